//go:build !windows

package flowwriter

import "strings"

// mkdirCommand is the shell command that creates dir and its parents.
func mkdirCommand(dir string) string {
	if strings.ContainsAny(dir, " \t'\"$`\\") {
		return "mkdir -p '" + strings.ReplaceAll(dir, "'", `'\''`) + "'"
	}
	return "mkdir -p " + dir
}
