package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/iostreams"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() { register(newExtractCommand) }

func newExtractCommand(env *Env) *cli.Command {
	cmd := actionCommand("extract", "read the page: markdown, interactive elements with uids, obstacle verdict", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "selector", Usage: "extract only the element matching `CSS` (main document)"},
			&cli.IntFlag{Name: "max-elements", Usage: "list at most `N` interactive elements (1-5000; default 200)"},
			&cli.StringFlag{Name: "format", Value: "default", Usage: "markdown, text, elements or json (default: markdown, elements, verdict)"},
			&cli.BoolFlag{Name: "text", Usage: "with --json or --format json, keep the page's raw text (left out by default)"},
			&cli.BoolFlag{Name: "fail-on-obstacle", Usage: "exit 3 on a high-confidence obstacle verdict"},
			&cli.BoolFlag{Name: "handoff", Usage: "on a high-confidence obstacle, hand the tab to the person and print the page once they cleared it (see `bua wait-for-human`)"},
			&cli.DurationFlag{Name: "handoff-timeout", Value: handoff.DefaultTimeout, Usage: "with --handoff, how long the person gets"},
			&cli.IntFlag{Name: "max-chars", Usage: "fit the markdown and the element lines in `N` characters (500-1000000), the markdown cut into parts at block boundaries"},
			&cli.IntFlag{Name: "part", Usage: "with --max-chars, print part `N` of the markdown (from 1)"},
			&cli.BoolFlag{Name: "changes", Usage: "print only the elements added and the uids removed since the tab's last read (new uids continue its numbering)"},
		},
		func(c *cli.Context) error {
			format := c.String("format")
			switch format {
			case "default", "markdown", "text", "elements", "json":
			default:
				return usageError("--format must be markdown, text, elements or json")
			}
			action := protocol.Extract(c.String("selector"))
			if c.IsSet("max-elements") {
				n := c.Int("max-elements")
				if n < 1 || n > 5000 {
					return usageError("--max-elements must be from 1 to 5000")
				}
				action.MaxElements = &n
			}
			if err := budgetFlags(c, &action); err != nil {
				return err
			}
			if action.Changes {
				return runAction(c, env, action, func(res json.RawMessage) error { return printChanges(env, res) })
			}
			keepText := c.Bool("text")
			shape := func(res json.RawMessage) any { return jsonExtract(res, keepText) }
			var verdict *protocol.Obstacle
			render := func(res json.RawMessage) error {
				var r protocol.ExtractResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				verdict = r.Obstacle
				if format == "json" {
					return printJSON(env, shape(res))
				}
				renderExtract(env.streams(c), r, format)
				return nil
			}
			if c.Bool("handoff") {
				return extractHandoff(c, env, action, shape, render)
			}
			err := runActionJSON(c, env, action, shape, render)
			if err != nil {
				return err
			}
			if c.Bool("fail-on-obstacle") && verdict != nil && verdict.Confidence == "high" {
				fmt.Fprintf(env.Stderr, "blocked: %s (%s): %s\n", verdict.Type, verdict.Confidence, verdict.Message)
				return exit(exitBlocked)
			}
			return nil
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
		"list ends with a line giving both counts. A page that stays blank is\n" +
		"read and flagged empty.\n" +
		"--max-chars N keeps the markdown and the element lines within N characters:\n" +
		"the markdown is cut at block boundaries into parts, --part 2 reads the\n" +
		"next (the elements come with part 1). --changes prints only the elements\n" +
		"added since the tab's last read, with new uids, and the uids removed."
	return cmd
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
		return
	case "elements":
		renderElements(ios, r.Elements)
		if r.Cut() {
			fmt.Fprintln(ios.ErrOut, cutLine(r))
		}
		return
	}
	if r.Empty {
		fmt.Fprintln(w, "empty: the page showed no text and no visible element, even after waiting for it to settle")
	}
	fmt.Fprintln(w, strings.TrimRight(r.Markdown, "\n"))
	fmt.Fprintln(w)
	renderElements(ios, r.Elements)
	if r.Cut() {
		fmt.Fprintln(w, cutLine(r))
	}
	if b := r.Budget; b != nil {
		fmt.Fprintln(w, budgetLine(b))
	}
	if o := r.Obstacle; o != nil {
		fmt.Fprintf(w, "\nobstacle: %s (%s) — %s\n", o.Type, o.Confidence, o.Message)
	}
}

func renderElements(ios *iostreams.IOStreams, els []protocol.Element) {
	if len(els) == 0 {
		if ios.IsTerminal() && !ios.Quiet {
			fmt.Fprintln(ios.Out, "(no interactive elements)")
		}
		return
	}
	writeElements(ios.Out, els)
}

// writeElements prints one line per element: `e3 button "Sign in"`, then
// `: value` and the states in brackets; an option is indented under the
// select or listbox it belongs to. About 25 characters for a named
// button, a third of the table it replaced.
func writeElements(w io.Writer, els []protocol.Element) {
	var b strings.Builder
	for _, e := range els {
		b.Reset()
		if e.Parent != "" {
			b.WriteString("  ")
		}
		b.WriteString(e.UID)
		b.WriteByte(' ')
		b.WriteString(e.Role)
		if e.Name != "" {
			fmt.Fprintf(&b, " %q", e.Name)
		}
		if e.Value != "" {
			b.WriteString(": ")
			b.WriteString(e.Value)
		}
		for _, s := range elementStates(e) {
			b.WriteString(" [")
			b.WriteString(s)
			b.WriteByte(']')
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

// elementStates lists the states an element line shows, only those that
// hold: an unchecked box or a collapsed menu shows nothing.
func elementStates(e protocol.Element) []string {
	var out []string
	switch e.Checked {
	case protocol.Checked:
		out = append(out, "checked")
	case protocol.Mixed:
		out = append(out, "mixed")
	}
	if e.Selected {
		out = append(out, "selected")
	}
	if e.Expanded != nil && *e.Expanded {
		out = append(out, "expanded")
	}
	if e.Disabled {
		out = append(out, "disabled")
	}
	if e.Visible != nil && !*e.Visible {
		out = append(out, "hidden")
	}
	return out
}

// cutLine is the one line under a cut element list: both counts and how to
// narrow or widen the read.
func cutLine(r protocol.ExtractResult) string {
	return fmt.Sprintf("elements: %d of %d listed; narrow with --selector or widen with --max-elements %d", len(r.Elements), r.ElementsTotal, min(r.ElementsTotal, 5000))
}

// extractHandoff is `bua extract --handoff`: extract, and on a high verdict
// hand the tab to the person (handOver), then print the page they cleared.
func extractHandoff(c *cli.Context, env *Env, action protocol.Action, shape func(json.RawMessage) any, render func(json.RawMessage) error) error {
	if c.IsSet("tab") {
		action = action.OnTab(c.Int("tab"))
	}
	cl, err := connect(c, env)
	if err != nil {
		return fail(c, env, err)
	}
	defer cl.Close()
	ctx, cancel := actionContext(c, action)
	res, berr := cl.Request(ctx, action)
	cancel()
	if berr != nil {
		return failWith(c, env, berr)
	}
	var r protocol.ExtractResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if handoff.HighOnly(r.Obstacle) {
		out, err := handOver(c, env, cl, action, r, c.Duration("handoff-timeout"))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "handed back: the %s was cleared after %s\n", r.Obstacle.Type, out.Waited.Round(100*time.Millisecond))
		res = out.Result
	}
	if c.Bool("json") {
		return printJSON(env, shape(res))
	}
	return render(res)
}

// budgetFlags sets extract's maxChars, part and changes from --max-chars,
// --part and --changes, with the schema's rules worded for the command
// line.
func budgetFlags(c *cli.Context, a *protocol.Action) error {
	if c.IsSet("max-chars") {
		n := c.Int("max-chars")
		if n < 500 || n > 1000000 {
			return usageError("--max-chars must be from 500 to 1000000")
		}
		a.MaxChars = &n
	}
	if c.IsSet("part") {
		n := c.Int("part")
		switch {
		case a.MaxChars == nil:
			return usageError("--part goes with --max-chars: it picks one of the parts that budget cuts the markdown into")
		case n < 1:
			return usageError("--part counts from 1")
		}
		a.Part = &n
	}
	if a.Changes = c.Bool("changes"); a.Changes && (a.MaxChars != nil || a.Selector != "") {
		return usageError("--changes reads what changed in the whole page: drop --selector and --max-chars")
	}
	return nil
}

// budgetLine is the line under a budgeted read that left something out:
// which part this is, the characters shown, and how to read on.
func budgetLine(b *protocol.BudgetCut) string {
	s := fmt.Sprintf("part %d of %d: %d of %d characters shown", b.Part, b.Parts, b.ShownChars, b.TotalChars)
	if b.Part < b.Parts {
		s += fmt.Sprintf("; read on with --part %d", b.Part+1)
	}
	return s
}

// printChanges prints a changes read: the elements added, one a line as
// extract prints them, then the uids removed on one line.
func printChanges(env *Env, res json.RawMessage) error {
	var r protocol.ChangesResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if len(r.Changes.Added) == 0 && len(r.Changes.Removed) == 0 {
		fmt.Fprintln(env.Stdout, "no changes")
		return nil
	}
	writeElements(env.Stdout, r.Changes.Added)
	if len(r.Changes.Removed) > 0 {
		fmt.Fprintln(env.Stdout, "removed: "+strings.Join(r.Changes.Removed, " "))
	}
	return nil
}
