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

func init() {
	register(func(env *Env) *cli.Command { return newTraceCommand(env, nil) }, "trace")
}

// traceOptions is `bua trace`'s command line.
type traceOptions struct {
	actionOptions
	Follow bool
	// Interval is how often --follow asks for new events.
	Interval time.Duration
}

// defaultTraceInterval is how often `bua trace --follow` asks for new
// events: get_trace waits behind no action, so each poll is one cheap
// round trip.
const defaultTraceInterval = 500 * time.Millisecond

func newTraceCommand(env *Env, runF func(*traceOptions) error) *cli.Command {
	o := &traceOptions{}
	cmd := actionCommand("trace", "print the tab's recent console messages, exceptions, failed requests, navigations, dialogs and bua's actions", "",
		[]cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new events as they come, until Ctrl-C"},
			&cli.DurationFlag{Name: "interval", Value: defaultTraceInterval, Usage: "with --follow, how often to ask for new events"},
		},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("trace takes no arguments (pass --tab TAB to pick the tab)")
			}
			o.Follow, o.Interval = c.Bool("follow"), c.Duration("interval")
			if o.Follow && o.Interval <= 0 {
				return usageError("--interval must be positive, such as 500ms")
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runTrace)
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

func runTrace(o *traceOptions) error {
	if o.Follow {
		return o.followTrace()
	}
	return o.runAction(protocol.GetTrace(0), func(res json.RawMessage) error {
		var r protocol.TraceResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		noteDropped(o.env.Stderr, r.Dropped, false)
		for _, ev := range r.Events {
			fmt.Fprintln(o.env.Stdout, render.TraceLine(ev))
		}
		return nil
	})
}

// followTrace polls get_trace with sinceSeq = the last nextSeq until the
// command's context ends (Ctrl-C, or --timeout), printing each new event
// once.
func (o *traceOptions) followTrace() error {
	cl, err := o.connectToAct()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	// --timeout bounds the whole follow: it ends at the deadline as at Ctrl-C.
	ctx, cancel := o.commandContext()
	defer cancel()
	tab, pinned := 0, o.Tab != nil
	if pinned {
		tab = *o.Tab
	}
	since := 0
	enc := json.NewEncoder(o.env.Stdout)
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
			return o.failWith(berr)
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
		noteDropped(o.env.Stderr, r.Dropped, since > 0)
		for _, ev := range r.Events {
			if o.JSON {
				if err := enc.Encode(ev); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(o.env.Stdout, render.TraceLine(ev))
			}
		}
		since = r.NextSeq
		if err := ctxtime.Sleep(ctx, o.Interval); err != nil {
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
