package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

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
			&cli.BoolFlag{Name: "fail-on-obstacle", Usage: "exit 3 on a high-confidence obstacle verdict"},
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
			var verdict *protocol.Obstacle
			err := runAction(c, env, action, func(res json.RawMessage) error {
				var r protocol.ExtractResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				verdict = r.Obstacle
				return renderExtract(env.streams(c), r, format, res)
			})
			if err != nil {
				return err
			}
			if c.Bool("fail-on-obstacle") && verdict != nil && verdict.Confidence == "high" {
				fmt.Fprintf(env.Stderr, "blocked: %s (%s): %s\n", verdict.Type, verdict.Confidence, verdict.Message)
				return exit(exitBlocked)
			}
			return nil
		})
	cmd.Description = "Prints the markdown, then the elements as a table (uid, role, name, value,\n" +
		"visible), then the obstacle verdict if there is one. Use a uid in the next\n" +
		"command: `bua click e3`. One-shot extract only reports a verdict; pass\n" +
		"--fail-on-obstacle to exit 3 on a high one (flows stop on it by default).\n" +
		"At most 200 elements are listed (--max-elements); a cut list ends with a\n" +
		"line giving both counts. A page that stays blank is read and flagged empty."
	return cmd
}

func renderExtract(ios *iostreams.IOStreams, r protocol.ExtractResult, format string, raw json.RawMessage) error {
	w := ios.Out
	switch format {
	case "json":
		var v any
		_ = json.Unmarshal(raw, &v)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case "text":
		fmt.Fprintln(w, r.Text)
		return nil
	case "markdown":
		fmt.Fprintln(w, r.Markdown)
		return nil
	case "elements":
		if err := renderElements(ios, r.Elements); err != nil {
			return err
		}
		if r.Cut() {
			fmt.Fprintln(ios.ErrOut, cutLine(r))
		}
		return nil
	}
	if r.Empty {
		fmt.Fprintln(w, "empty: the page showed no text and no visible element, even after waiting for it to settle")
	}
	fmt.Fprintln(w, strings.TrimRight(r.Markdown, "\n"))
	fmt.Fprintln(w)
	if err := renderElements(ios, r.Elements); err != nil {
		return err
	}
	if r.Cut() {
		fmt.Fprintln(w, cutLine(r))
	}
	if o := r.Obstacle; o != nil {
		fmt.Fprintf(w, "\nobstacle: %s (%s) — %s\n", o.Type, o.Confidence, o.Message)
	}
	return nil
}

func renderElements(ios *iostreams.IOStreams, els []protocol.Element) error {
	if len(els) == 0 {
		if ios.IsTerminal() && !ios.Quiet {
			fmt.Fprintln(ios.Out, "(no interactive elements)")
		}
		return nil
	}
	tb := ios.NewTable("uid", "role", "name", "value", "visible")
	for _, e := range els {
		vis := ""
		if e.Visible != nil {
			vis = yesNo(*e.Visible, "yes", "no")
		}
		tb.AddRow(e.UID, e.Role, e.Name, e.Value, vis)
	}
	return tb.Render()
}

// cutLine is the one line under a cut element list: both counts and how to
// narrow or widen the read.
func cutLine(r protocol.ExtractResult) string {
	return fmt.Sprintf("elements: %d of %d listed; narrow with --selector or widen with --max-elements %d", len(r.Elements), r.ElementsTotal, min(r.ElementsTotal, 5000))
}
