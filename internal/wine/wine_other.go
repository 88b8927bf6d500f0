//go:build !windows

package wine

// Detected reports whether this process runs under Wine: never off
// Windows.
func Detected() bool { return false }
