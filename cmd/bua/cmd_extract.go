package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/iostreams"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() {
	register(func(env *Env) *cli.Command { return newExtractCommand(env, nil) }, "extract")
}

// extractOptions is `bua extract`'s command line.
type extractOptions struct {
	actionOptions
	// Action is the extract to send: --selector, --max-elements,
	// --max-chars, --part and --changes (printed by printChanges).
	Action protocol.Action
	// Format is --format: default, markdown, text, elements or json.
	Format string
	// KeepText is --text: --json keeps the page's raw text.
	KeepText       bool
	FailOnObstacle bool
	Handoff        bool
	HandoffTimeout time.Duration
}

func newExtractCommand(env *Env, runF func(*extractOptions) error) *cli.Command {
	o := &extractOptions{}
	cmd := actionCommand("extract", "read the page: markdown, interactive elements with uids, obstacle verdict", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "selector", Usage: "extract only the elements matching `CSS` (main document), each in turn"},
			&cli.IntFlag{Name: "max-elements", Usage: "list at most `N` interactive elements (1-5000; default 200)"},
			&cli.IntFlag{Name: "max-chars", Usage: "print at most `N` characters of markdown and elements (500-1000000); the rest goes to later parts"},
			&cli.IntFlag{Name: "part", Usage: "with --max-chars, print part `N` of the cut page (from 1)"},
			&cli.BoolFlag{Name: "changes", Usage: "print only the elements added and the uids removed since the tab's last read (new uids continue its numbering)"},
			&cli.StringFlag{Name: "format", Value: "default", Usage: "markdown, text, elements or json (default: markdown, elements, verdict)"},
			&cli.BoolFlag{Name: "text", Usage: "with --json or --format json, keep the page's raw text (left out by default)"},
			&cli.BoolFlag{Name: "fail-on-obstacle", Usage: "exit 3 on a high-confidence obstacle verdict"},
			&cli.BoolFlag{Name: "handoff", Usage: "on a high-confidence obstacle, hand the tab to the person and print the page once they cleared it (see `bua wait-for-human`)"},
			&cli.DurationFlag{Name: "handoff-timeout", Value: handoff.DefaultTimeout, Usage: "with --handoff, how long the person gets"},
		},
		func(c *cli.Context) error {
			o.Format = c.String("format")
			switch o.Format {
			case "default", "markdown", "text", "elements", "json":
			default:
				return usageError("--format must be markdown, text, elements or json")
			}
			o.Action = protocol.Extract(c.String("selector"))
			if c.IsSet("max-elements") {
				n := c.Int("max-elements")
				if n < 1 || n > 5000 {
					return usageError("--max-elements must be from 1 to 5000")
				}
				o.Action.MaxElements = &n
			}
			if c.IsSet("max-chars") {
				n := c.Int("max-chars")
				if n < 500 || n > 1000000 {
					return usageError("--max-chars must be from 500 to 1000000")
				}
				o.Action.MaxChars = &n
			}
			if c.IsSet("part") {
				n := c.Int("part")
				if !c.IsSet("max-chars") || n < 1 {
					return usageError("--part N (from 1) reads one part of a page cut by --max-chars: give --max-chars too")
				}
				o.Action.Part = &n
			}
			if o.Action.Changes = c.Bool("changes"); o.Action.Changes {
				if o.Action.Selector != "" || o.Action.MaxChars != nil {
					return usageError("--changes reads what changed in the whole page since the last read: drop --selector, --max-chars and --part")
				}
			}
			o.KeepText, o.FailOnObstacle = c.Bool("text"), c.Bool("fail-on-obstacle")
			o.Handoff, o.HandoffTimeout = c.Bool("handoff"), c.Duration("handoff-timeout")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runExtract)
		})
	cmd.Description = "Prints the markdown, then the elements one a line, then the obstacle verdict\n" +
		"if there is one. An element line is its uid, role, quoted name, `: value`\n" +
		"and its states: [checked] [mixed] [selected] [expanded] [disabled], and\n" +
		"[hidden] when it has no box on the page; options are indented under\n" +
		"their select. Use a uid in the next command: `bua click e3`.\n" +
		"--json prints the result without the page's raw text (--text keeps it;\n" +
		"--format text prints only the text). One-shot extract only reports a\n" +
		"verdict; pass --fail-on-obstacle to exit 3 on a high one (flows stop on it\n" +
		"by default); --handoff hands the page to the person instead and prints\n" +
		"it once they cleared it (exit 3 if they do not within --handoff-timeout,\n" +
		"or at once when the browser is a headless managed one). At most 200 elements are listed (--max-elements); a cut\n" +
		"list ends with a line giving both counts. --max-chars N cuts the markdown\n" +
		"and the elements to N characters, with a last line that says which part\n" +
		"this is and how to read the next (--part). A page that stays blank is\n" +
		"read and flagged empty. --selector reads every match in document order\n" +
		"(one inside another with it): their markdown one block each, their\n" +
		"elements in turn, and a first line saying how many when there are several.\n" +
		"--changes prints only the elements added since the tab's last read, with\n" +
		"new uids (the uids listed before stay valid), and the uids removed."
	return cmd
}

func runExtract(o *extractOptions) error {
	if o.Action.Changes {
		return o.runAction(o.Action, o.printChanges)
	}
	shape := func(res json.RawMessage) any { return jsonExtract(res, o.KeepText) }
	var verdict *protocol.Obstacle
	render := func(res json.RawMessage) error {
		var r protocol.ExtractResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		verdict = r.Obstacle
		if o.Format == "json" {
			return printJSON(o.env, shape(res))
		}
		renderExtract(o.streams(), r, o.Format)
		return nil
	}
	if o.Handoff {
		return o.extractHandoff(shape, render)
	}
	err := o.runActionJSON(o.Action, shape, render)
	if err != nil {
		return err
	}
	if o.FailOnObstacle && verdict != nil && verdict.Confidence == "high" {
		fmt.Fprintf(o.env.Stderr, "blocked: %s (%s): %s\n", verdict.Type, verdict.Confidence, verdict.Message)
		return exit(exitBlocked)
	}
	return nil
}

// printChanges prints a changes read (extract --changes): the elements
// that appeared, one a line as extract prints them, then the uids gone.
func (o *extractOptions) printChanges(res json.RawMessage) error {
	var r protocol.ExtractResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	// The command line shows every change; only an agent's answer is capped.
	const all = 1 << 30
	out := render.Changes(r.Changes, all, all)
	if out == "" {
		out = "no changes since the last read"
	}
	fmt.Fprintln(o.env.Stdout, out)
	return nil
}

// jsonExtract is the result as --json prints it: without the page's raw
// text unless keepText, since the markdown carries the same words in a
// fraction of the size. Flows and saved extracts (bua obstacle) never read
// text.
func jsonExtract(raw json.RawMessage, keepText bool) any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	if !keepText {
		delete(m, "text")
	}
	return m
}

func renderExtract(ios *iostreams.IOStreams, r protocol.ExtractResult, format string) {
	w := ios.Out
	switch format {
	case "text":
		fmt.Fprintln(w, r.Text)
		return
	case "markdown":
		fmt.Fprintln(w, r.Markdown)
		if line := render.Budget(r, render.CLI); line != "" {
			fmt.Fprintln(ios.ErrOut, line)
		}
		return
	case "elements":
		if len(r.Elements) == 0 && ios.IsTerminal() && !ios.Quiet {
			fmt.Fprintln(w, noElements)
		}
		render.Elements(w, r.Elements)
		if r.Cut() {
			fmt.Fprintln(ios.ErrOut, render.ElementsCut(r, render.CLI))
		}
		return
	}
	o := render.ExtractOptions{Terms: render.CLI}
	if ios.IsTerminal() && !ios.Quiet {
		o.NoneLine = noElements
	}
	render.Extract(w, r, o)
}

// noElements stands for an empty element list on a terminal.
const noElements = "(no interactive elements)"

// extractHandoff is `bua extract --handoff`: extract, and on a high verdict
// hand the tab to the person (handOver), then print the page they cleared.
func (o *extractOptions) extractHandoff(shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	action := o.onTab(o.Action)
	cl, err := o.connect()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	ctx, cancel := o.actionContext(action)
	res, berr := cl.Request(ctx, action)
	cancel()
	if berr != nil {
		return o.failWith(berr)
	}
	var r protocol.ExtractResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if handoff.HighOnly(r.Obstacle) {
		out, err := o.handOver(cl, action, r, o.HandoffTimeout)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.env.Stderr, "handed back: the %s was cleared after %s\n", r.Obstacle.Type, out.Waited.Round(100*time.Millisecond))
		res = out.Result
	}
	if o.JSON {
		return printJSON(o.env, shape(res))
	}
	return render(res)
}
