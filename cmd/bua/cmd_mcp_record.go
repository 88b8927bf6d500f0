package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/mcpserver"
)

// `bua mcp --record FILE` (docs/record.md): the server keeps each action
// that succeeded (mcpserver.Log), and when it exits (its client hung up,
// Ctrl-C, SIGTERM) the flow writer turns them into a flow at FILE.

// checkRecord checks --record's FILE before the server starts, so that an
// agent's work is never recorded only to be lost at the end.
func checkRecord(c *cli.Context) error {
	if !c.IsSet("record") {
		return nil
	}
	if c.Bool("read-only") {
		return usageError("--record and --read-only do not go together: a read-only agent changes nothing a flow would replay")
	}
	if err := flowwriter.CheckPath(c.String("record")); err != nil {
		return usageError("--record: " + err.Error())
	}
	return nil
}

// saveRecording writes steps as a flow at path (--record's FILE), with
// command (recordCommand) in its header, and tells the
// person on stderr (and in the log) what was written and which environment
// variables a replay needs. It loses nothing: when FILE cannot be written,
// the flow goes to a file in the temp folder instead, or, failing that, to
// stderr, and the command exits 1.
func saveRecording(env *Env, log *slog.Logger, path, command string, steps []mcpserver.Step) error {
	h := flowwriter.Header{MadeBy: "bua mcp --record", Command: command, Time: env.Now()}
	f, err := flowwriter.Compile(h, mcpserver.Entries(steps))
	if f == nil {
		fmt.Fprintf(env.Stderr, "bua mcp: %s was not written: %v\n", path, err)
		log.Error("recording not written", "path", path, "err", err)
		return exit(exitFailure)
	}
	if f.Steps == 0 {
		why := "no action succeeded"
		if len(steps) > 0 {
			why = fmt.Sprintf("the agent only read pages (%d reads), which a flow leaves out", len(steps))
		}
		fmt.Fprintf(env.Stderr, "bua mcp: nothing to record (%s): %s was not written\n", why, path)
		log.Info("recording not written: nothing to replay", "path", path, "actions", len(steps))
		return nil
	}
	code := exitOK
	if werr := f.WriteFile(path); werr != nil {
		fmt.Fprintf(env.Stderr, "bua mcp: the recording was not written: %v\n", werr)
		log.Error("recording not written", "path", path, "err", werr)
		if path = writeTemp(env, "bua mcp", f.YAML); path == "" {
			return exit(exitFailure)
		}
		code = exitFailure
	}
	var envs []string
	for _, v := range f.Env {
		envs = append(envs, v.Name)
	}
	log.Info("recording written", "path", path, "actions", len(steps), "steps", f.Steps, "env", envs, "handEdits", len(f.Problems))
	fmt.Fprintf(env.Stderr, "bua mcp: recorded %d of the agent's actions, %d of them as steps to replay (reads are left out), in %s\n", len(steps), f.Steps, path)
	printReplayAdvice(env, "bua mcp", path, f, err)
	return exit(code)
}

// recordCommand is the command line that made the recording, as the
// flow's header gives it: the flags that shaped what the agent could do.
func recordCommand(c *cli.Context) string {
	words := []string{"bua", "mcp"}
	if c.IsSet("browser") {
		words = append(words, "--browser", c.String("browser"))
	}
	if c.Bool("headless") {
		words = append(words, "--headless")
	}
	for _, flag := range []string{"allow", "block"} {
		for _, d := range c.StringSlice(flag) {
			words = append(words, "--"+flag, shellWord(d))
		}
	}
	return strings.Join(append(words, "--record", shellWord(c.String("record"))), " ")
}
