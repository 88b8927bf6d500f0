//go:build !unix

package iostreams

import "os"

// terminal reports false off unix: output is treated as piped.
func terminal(f *os.File) (bool, int) { return false, 0 }
