package main

import (
	"regexp"
	"strings"
	"sync"
)

// The command lines bua suggests to the person and writes in a flow's
// header, for the two shells of Windows: PowerShell (what Windows
// Terminal and VS Code open) and cmd. Both read a word in double quotes
// as it is, but for PowerShell's $ and ` and cmd's %; neither reads a
// backslash as an escape, so a Windows path needs quotes only for its
// spaces and symbols. shell_unix.go writes them for POSIX shells.

// shellWord is s as one word PowerShell and cmd both pass to bua as s
// (cmdWord), or, when no word does that (s holds $, ` or "), PowerShell's
// (psWord): the one a command line in a flow's header gives.
func shellWord(s string) string {
	if needsPSQuotes(s) {
		return psWord(s)
	}
	return cmdWord(s)
}

// cmdWord is s as one word cmd passes to a program as s: s itself when it
// holds nothing cmd or PowerShell reads specially, else s in double
// quotes, with the backslashes that end it doubled so that the program
// (its C runtime's, or Go's, command-line parsing) does not read the
// closing quote as an escaped one. A %NAME% of a variable cmd has set is
// still expanded in quotes: cmd has no quoting that stops it.
func cmdWord(s string) string {
	if windowsPlain().MatchString(s) {
		return s
	}
	body := strings.TrimRight(s, `\`)
	return `"` + body + strings.Repeat(`\`, 2*(len(s)-len(body))) + `"`
}

// psWord is s as one word PowerShell passes to a program as s: cmdWord's
// double quotes, or single quotes (a ' in s doubled) when s holds what
// PowerShell reads in double quotes: $, ` or ".
func psWord(s string) string {
	if !needsPSQuotes(s) {
		return cmdWord(s)
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// needsPSQuotes reports whether s holds what PowerShell reads inside
// double quotes (a variable, an escape, the end of the string).
func needsPSQuotes(s string) bool { return strings.ContainsAny(s, "$`\"") }

// windowsPlain is a word neither shell reads specially: no blank, no
// quote, none of cmd's & | < > ^ % or PowerShell's ; , @ ( ) { } # $ `,
// and no ~ first (PowerShell 7.4 reads ~ there as the home folder; a
// short name's RUNNER~1 is plain).
var windowsPlain = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:\\=+-][A-Za-z0-9_./:\\=+~-]*$`) })

// runCommands is `bua run FILE` for file, with each of names set in its
// environment to "..." for the person to fill in. Without names, and for
// a file both shells quote alike, one line both run; else one line for
// PowerShell ($env:NAME = '...'; bua run FILE) and one for cmd (set
// "NAME=..." & bua run FILE), which set the variables in the shell until
// it exits.
func runCommands(names []string, file string) []shellCommand {
	if len(names) == 0 && !needsPSQuotes(file) {
		return []shellCommand{{line: "bua run " + cmdWord(file)}}
	}
	ps := make([]string, 0, len(names)+1)
	cmd := make([]string, 0, len(names)+1)
	for _, n := range names {
		ps = append(ps, "$env:"+n+" = '...'")
		cmd = append(cmd, `set "`+n+`=..."`)
	}
	return []shellCommand{
		{shell: "PowerShell", line: strings.Join(append(ps, "bua run "+psWord(file)), "; ")},
		{shell: "cmd", line: strings.Join(append(cmd, "bua run "+cmdWord(file)), " & ")},
	}
}
