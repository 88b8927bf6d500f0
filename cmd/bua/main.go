// Command bua drives a person's real Chrome, or a managed Chromium, from the
// shell and from CI. This package is CLI wiring only: behaviour lives in
// pkg/bridge, pkg/runner and pkg/obstacle.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Env is the process's I/O, injected so each command is testable with
// buffers (cli/cli's IOStreams, litestream's Main).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Now    func() time.Time
	// TerminalWidth, when > 0, makes Stdout a terminal of that many
	// columns: tests render the terminal form with it.
	TerminalWidth int
	// AutoStart lets commands start `bua serve` when no daemon answers;
	// in-process tests leave it off so they never fork the test binary.
	AutoStart bool
	// Dial opens the link to the daemon that a flow run's and bua mcp's
	// Requester (bridge.Requester) sends through; nil is bridge.Dial.
	// Tests give a fake, as cli/cli's tests give its Factory's HttpClient.
	Dial func(ctx context.Context, o bridge.ClientOptions) (bridge.Link, *protocol.Error)
}

func main() {
	// The signals stay caught until the process exits: after the first one
	// (which cancels ctx) a second may follow at once, such as the npm
	// launcher's forward of a terminal's Ctrl-C that also reached bua
	// directly (npm/bua/bin/bua.js), and restoring the default action
	// before os.Exit would let it kill bua by that signal instead of
	// ending with its own exit code.
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	os.Exit(run(ctx, os.Args, &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now, AutoStart: true}))
}
