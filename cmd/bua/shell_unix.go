//go:build !windows

package main

import (
	"regexp"
	"strings"
	"sync"
)

// The command lines bua suggests to the person and writes in a flow's
// header, for the shells of Linux and macOS (sh, bash, zsh): POSIX
// quoting. shell_windows.go writes them for PowerShell and cmd.

// shellWord is s as one word a POSIX shell reads back as s: s itself when
// it holds nothing the shell reads specially, else s in single quotes.
func shellWord(s string) string {
	if posixPlain().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var posixPlain = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`) })

// runCommands is `bua run FILE` for file, with each of names set in its
// environment to "..." for the person to fill in: one line, the
// assignments before the command, which a POSIX shell sets for that
// command alone.
func runCommands(names []string, file string) []shellCommand {
	words := make([]string, 0, len(names)+1)
	for _, n := range names {
		words = append(words, n+"=...")
	}
	return []shellCommand{{line: strings.Join(append(words, "bua run "+shellWord(file)), " ")}}
}
