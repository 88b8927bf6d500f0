package main

import (
	"github.com/bua-dev/bua/pkg/iostreams"
)

// streams is the one output layer for a command (pkg/iostreams): env's
// writers, whether stdout is a terminal and how wide (Env.TerminalWidth
// stands in for a terminal in tests), NO_COLOR, and --quiet.
func (g *globalOptions) streams() *iostreams.IOStreams {
	e := g.env
	s := iostreams.New(e.Stdin, e.Stdout, e.Stderr, e.Getenv)
	if e.TerminalWidth > 0 {
		s.SetTerminal(true, e.TerminalWidth)
	}
	s.Quiet = g.Quiet
	return s
}
