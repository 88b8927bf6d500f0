package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(func(env *Env) *cli.Command { return newWaitForHumanCommand(env, nil) }, "wait-for-human")
}

// waitForHumanOptions is `bua wait-for-human`'s command line; its own
// --timeout, how long the person gets, is Timeout.
type waitForHumanOptions struct {
	actionOptions
}

func newWaitForHumanCommand(env *Env, runF func(*waitForHumanOptions) error) *cli.Command {
	o := &waitForHumanOptions{}
	cmd := actionCommand("wait-for-human", "hand the tab to the person until they clear the obstacle on it (captcha, login wall)", "",
		[]cli.Flag{&cli.DurationFlag{Name: "timeout", Value: handoff.DefaultTimeout, Usage: "how long the person gets"}},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("wait-for-human takes no arguments (pass --tab TAB to pick the tab)")
			}
			if c.Duration("timeout") <= 0 {
				return usageError("--timeout must be positive, such as 5m")
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runWaitForHuman)
		})
	cmd.Description = "Reads the tab; when it shows a high-confidence obstacle (a captcha, a login\n" +
		"wall), brings the tab to the person (out of the minimized BUA window into\n" +
		"their last focused window), shows \"bua needs you\" in the extension, and\n" +
		"reads the page again every 0.25-2 s until the obstacle is gone; then the\n" +
		"tab goes back. Exits 0 when cleared (or when there was nothing to clear),\n" +
		"3 when --timeout passes first, 130 on Ctrl-C (the tab goes back too).\n" +
		"Nobody can see a headless managed browser, so there it exits 3 at once;\n" +
		"BUA_HANDOFF=off does the same anywhere, BUA_HANDOFF=force hands over even\n" +
		"to a headless browser (tests and demos)."
	return cmd
}

func runWaitForHuman(o *waitForHumanOptions) error {
	ex := o.onTab(protocol.Extract(""))
	cl, err := o.connect()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	raw, berr := cl.Request(o.ctx, ex)
	if berr != nil {
		return o.failWith(berr)
	}
	var r protocol.ExtractResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	tab := tabOf(r, ex)
	if !handoff.HighOnly(r.Obstacle) {
		return o.printHandoff(handoffLine{TabID: tab, Outcome: "none"}, fmt.Sprintf("no obstacle on tab %d: nothing for a person to clear", tab))
	}
	out, err := o.handOver(cl, ex, r, o.Timeout)
	if err != nil {
		return err
	}
	line := handoffLine{TabID: tab, Obstacle: string(r.Obstacle.Type), Outcome: protocol.HandoffResolved, WaitedMs: out.Waited.Milliseconds()}
	return o.printHandoff(line, fmt.Sprintf("resolved: the %s on tab %d was cleared after %s", r.Obstacle.Type, tab, out.Waited.Round(100*time.Millisecond)))
}

// handoffLine is wait-for-human's --json output.
type handoffLine struct {
	TabID    int    `json:"tabId"`
	Obstacle string `json:"obstacle,omitempty"`
	Outcome  string `json:"outcome"` // none, resolved
	WaitedMs int64  `json:"waitedMs"`
}

func (g *globalOptions) printHandoff(line handoffLine, text string) error {
	if g.JSON {
		return printJSON(g.env, line)
	}
	fmt.Fprintln(g.streams().Out, text)
	return nil
}

// tabOf is the tab an extract read: its result's, else the one asked for.
func tabOf(r protocol.ExtractResult, ex protocol.Action) int {
	if r.TabID != nil {
		return *r.TabID
	}
	if ex.TabID != nil {
		return *ex.TabID
	}
	return 0
}

// handOver runs a handoff for the verdict in r, read by ex: exit 3 at once
// when the gate says nobody can see the browser, or when the person does
// not clear the page within timeout; failWith's exit for a failed request
// (130 on Ctrl-C); else the outcome, whose Result is the cleared page.
func (g *globalOptions) handOver(cl *bridge.Client, ex protocol.Action, r protocol.ExtractResult, timeout time.Duration) (handoff.Outcome, error) {
	v := r.Obstacle
	tab := tabOf(r, ex)
	if err := g.handoffGate()(g.ctx); err != nil {
		fmt.Fprintf(g.env.Stderr, "blocked: %s (%s): %s\nbua cannot hand this page to a person: %v\n", v.Type, v.Confidence, v.Message, err)
		return handoff.Outcome{}, exit(exitBlocked)
	}
	out, werr := handoff.Wait(g.ctx, cl, tab, v, handoff.Options{
		Extract: ex, Timeout: timeout,
		OnRequested: func(tab int, o *protocol.Obstacle) {
			fmt.Fprintf(g.env.Stderr, "%s on tab %d: waiting up to %s for a person to clear it in the browser\n", o.Type, tab, timeout)
		},
	})
	if werr != nil {
		if be, ok := werr.(*protocol.Error); ok {
			return out, g.failWith(be)
		}
		return out, werr
	}
	if !out.Resolved {
		if out.Verdict != nil {
			v = out.Verdict
		}
		fmt.Fprintf(g.env.Stderr, "blocked: %s (%s): %s\nnobody cleared it within %s: the tab went back; run `bua wait-for-human --tab %d` to try again\n", v.Type, v.Confidence, v.Message, timeout, tab)
		return out, exit(exitBlocked)
	}
	return out, nil
}

// handoffGate says whether a page can be handed to a person now
// (bridge.HandoffGate), asking a daemon that already runs.
func (g *globalOptions) handoffGate() handoff.Gate {
	sel, _ := bridge.ParseSelection(g.Browser)
	return bridge.HandoffGate(g.env.Getenv, sel, func(ctx context.Context) (bridge.Status, *protocol.Error) {
		cl, berr := dialExisting(ctx, g.env)
		if berr != nil {
			return bridge.Status{}, protocol.Errorf(berr.Code, "no daemon answers: %s", berr.Message)
		}
		defer cl.Close()
		st, berr := cl.Status(ctx)
		if berr != nil {
			return st, protocol.Errorf(berr.Code, "the daemon's status failed: %s", berr.Message)
		}
		return st, nil
	})
}
