package main

// What `bua record` and `bua mcp --record` share once a recording is
// compiled into a flow (pkg/flowwriter): the file kept when its path
// cannot be written, and the advice on how to replay it.

import (
	"errors"
	"fmt"
	"os"

	"github.com/bua-dev/bua/pkg/flowwriter"
)

// writeTemp writes a flow that could not go where it was asked to a new
// 0600 file in the temp folder, says so on stderr (prog names the command)
// and returns its path; failing that too, it prints the flow on stderr and
// returns "". The recording is never lost.
func writeTemp(env *Env, prog string, data []byte) string {
	tmp, err := os.CreateTemp("", "bua-record-*.yaml") // 0600
	if err == nil {
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			fmt.Fprintf(env.Stderr, "%s: it was written to %s instead: move it where you want it\n", prog, tmp.Name())
			return tmp.Name()
		}
		_ = os.Remove(tmp.Name())
	}
	fmt.Fprintf(env.Stderr, "%s: nor could it be written to the temp folder (%v); here it is:\n%s", prog, err, data)
	return ""
}

// printReplayAdvice tells the person on stderr what a written flow still
// needs: the steps to edit by hand (err, flowwriter.Compile's
// *IncompleteError), the environment variables a replay reads, and the
// command that replays the flow at where.
func printReplayAdvice(env *Env, prog, where string, f *flowwriter.Flow, err error) {
	var inc *flowwriter.IncompleteError
	if errors.As(err, &inc) {
		fmt.Fprintf(env.Stderr, "%s: %d steps need a hand edit before the flow replays (see its \"bua: edit this\" comments):\n", prog, len(inc.Problems))
		for _, p := range inc.Problems {
			fmt.Fprintf(env.Stderr, "  %s\n", p)
		}
	}
	var names []string
	if len(f.Env) > 0 {
		fmt.Fprintf(env.Stderr, "%s: a replay needs these environment variables (secrets: never written to the file):\n", prog)
		for _, v := range f.Env {
			fmt.Fprintf(env.Stderr, "  %s: %s\n", v.Name, v.What())
			names = append(names, v.Name)
		}
	}
	for i, c := range runCommands(names, where) {
		switch {
		case c.shell == "":
			fmt.Fprintf(env.Stderr, "%s: replay it with: %s\n", prog, c.line)
		case i == 0:
			fmt.Fprintf(env.Stderr, "%s: replay it with, in %s: %s\n", prog, c.shell, c.line)
		default:
			fmt.Fprintf(env.Stderr, "%s: or, in %s: %s\n", prog, c.shell, c.line)
		}
	}
}

// shellCommand is a command line bua suggests to the person, written for
// one shell ("PowerShell", "cmd") or, when shell is "", for every shell
// of this OS (runCommands: shell_unix.go, shell_windows.go).
type shellCommand struct{ shell, line string }
