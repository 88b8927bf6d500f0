package browser

import (
	"bytes"
	"encoding/binary"
)

// parseProcArgs2 reads the argument vector out of macOS's kern.procargs2
// sysctl for one process (proc_darwin.go): a native-endian int32 argc, the
// executable's path, NUL padding, then argc NUL-terminated arguments (the
// environment follows, which it leaves alone). Each argument is whole,
// spaces and all, which ps(1)'s command= column cannot give: a profile
// under ~/Library/Application Support has one. It returns nil for a
// buffer too short or malformed. It lives in a file of its own, built on
// every OS, so its tests run everywhere.
func parseProcArgs2(buf []byte, order binary.ByteOrder) []string {
	if len(buf) < 4 {
		return nil
	}
	argc := int(int32(order.Uint32(buf)))
	if argc <= 0 || argc > len(buf) {
		return nil
	}
	rest := buf[4:]
	// The executable path, then the NULs that pad it.
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return nil
	}
	rest = rest[i:]
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	args := make([]string, 0, argc)
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil
		}
		args = append(args, string(rest[:i]))
		rest = rest[i+1:]
	}
	return args
}
