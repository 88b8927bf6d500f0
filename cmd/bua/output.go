package main

import (
	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/iostreams"
)

// streams is the one output layer for a command (pkg/iostreams): env's
// writers, whether stdout is a terminal and how wide (Env.TerminalWidth
// stands in for a terminal in tests), NO_COLOR, and --quiet.
func (e *Env) streams(c *cli.Context) *iostreams.IOStreams {
	s := iostreams.New(e.Stdin, e.Stdout, e.Stderr, e.Getenv)
	if e.TerminalWidth > 0 {
		s.SetTerminal(true, e.TerminalWidth)
	}
	if c != nil {
		s.Quiet = c.Bool("quiet")
	}
	return s
}
