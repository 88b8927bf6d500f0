package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/internal/ctxtime"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() { register(newTraceCommand) }

// defaultTraceInterval is how often `bua trace --follow` asks for new
// events: get_trace waits behind no action, so each poll is one cheap
// round trip.
const defaultTraceInterval = 500 * time.Millisecond

func newTraceCommand(env *Env) *cli.Command {
	cmd := actionCommand("trace", "print the tab's recent console messages, exceptions, failed requests, navigations, dialogs and bua's actions", "",
		[]cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new events as they come, until Ctrl-C"},
			&cli.DurationFlag{Name: "interval", Value: defaultTraceInterval, Usage: "with --follow, how often to ask for new events"},
		},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("trace takes no arguments (pass --tab ID to pick the tab)")
			}
			if !c.Bool("follow") {
				return runAction(c, env, protocol.GetTrace(0), func(res json.RawMessage) error {
					var r protocol.TraceResult
					if err := json.Unmarshal(res, &r); err != nil {
						return err
					}
					noteDropped(env.Stderr, r.Dropped, false)
					for _, ev := range r.Events {
						fmt.Fprintln(env.Stdout, render.TraceLine(ev))
					}
					return nil
				})
			}
			if c.Duration("interval") <= 0 {
				return usageError("--interval must be positive, such as 500ms")
			}
			return followTrace(c, env)
		})
	cmd.Description = "The extension keeps, for each tab bua has attached to, the last 500 events\n" +
		"(at most 256 KiB): console messages and uncaught exceptions, requests that\n" +
		"failed or answered 4xx/5xx (URL, method and status only: never headers or\n" +
		"bodies), top-level navigations, dialogs, and bua's own actions with their\n" +
		"duration and error code (never the text typed). One line per event: time,\n" +
		"kind, level or status, then the text or URL. --json prints get_trace's\n" +
		"result {events, nextSeq, dropped}; with --follow, one event per line\n" +
		"(NDJSON). --follow stays on the tab of its first answer; Ctrl-C, or the\n" +
		"global --timeout, ends it (exit 0)."
	return cmd
}

// followTrace polls get_trace with sinceSeq = the last nextSeq until the
// command's context ends (Ctrl-C, or --timeout), printing each new event
// once.
func followTrace(c *cli.Context, env *Env) error {
	cl, err := connectToAct(c, env)
	if err != nil {
		return fail(c, env, err)
	}
	defer cl.Close()
	// --timeout bounds the whole follow: it ends at the deadline as at Ctrl-C.
	ctx, cancel := commandContext(c)
	defer cancel()
	tab, pinned := c.Int("tab"), c.IsSet("tab")
	since := 0
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	for {
		a := protocol.GetTrace(since)
		if pinned {
			a = a.OnTab(tab)
		}
		raw, berr := cl.Request(ctx, a)
		if berr != nil {
			if ctx.Err() != nil {
				return nil // Ctrl-C while asking: the follow is over, as asked
			}
			return failWith(c, env, berr)
		}
		var r protocol.TraceResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		// Later polls ask the tab this one answered for, even when another
		// tab becomes the most recently used.
		if !pinned && r.TabID != nil {
			tab, pinned = *r.TabID, true
		}
		noteDropped(env.Stderr, r.Dropped, since > 0)
		for _, ev := range r.Events {
			if c.Bool("json") {
				if err := enc.Encode(ev); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(env.Stdout, render.TraceLine(ev))
			}
		}
		since = r.NextSeq
		if err := ctxtime.Sleep(ctx, c.Duration("interval")); err != nil {
			return nil
		}
	}
}

// noteDropped says on stderr that the ring had evicted events the reader
// never saw.
func noteDropped(w io.Writer, n int, betweenPolls bool) {
	if n <= 0 {
		return
	}
	if betweenPolls {
		fmt.Fprintf(w, "bua: %d events came and went between two reads (the ring keeps the last %d); poll more often with --interval\n", n, protocol.TraceMaxEvents)
		return
	}
	fmt.Fprintf(w, "bua: %d older events were dropped (the ring keeps the last %d events, at most %d KiB)\n", n, protocol.TraceMaxEvents, protocol.TraceMaxBytes>>10)
}
