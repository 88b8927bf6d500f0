//go:build unix

package iostreams

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminal reports whether f is a terminal, and its width in columns (0
// when unknown). A char device that is not a terminal (/dev/null) is not.
func terminal(f *os.File) (bool, int) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return false, 0
	}
	return true, int(ws.Col)
}
