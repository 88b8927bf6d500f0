package wine

import "golang.org/x/sys/windows"

// Detected reports whether this process runs under Wine, by the export
// only Wine's ntdll has (wine_get_version), the check Wine's own
// documentation gives.
func Detected() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
