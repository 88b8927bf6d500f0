package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
	"github.com/bua-dev/bua/pkg/roletarget"
)

func init() {
	register(newNavigateCommand)
	register(newReloadCommand)
	register(newBackCommand)
	register(newForwardCommand)
	register(newDialogCommand)
	register(newClickCommand)
	register(newTypeCommand)
	register(newHoverCommand)
	register(newPressCommand)
	register(newScrollCommand)
	register(newScreenshotCommand)
	register(newEvalCommand)
	register(newWaitForCommand)
	register(newTabsCommand)
	register(newOpenCommand)
	register(newCloseCommand)
}

// printOK is the text form of {ok: true, tabId}, and of the tab an input
// opened (newTabId); --quiet prints only that new tab's id, as `bua open`
// prints its tab's, since the rest is nothing a script needs beyond the
// exit code.
func printOK(c *cli.Context, env *Env, verb string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		if c.Bool("quiet") {
			if r.NewTabID != nil {
				fmt.Fprintln(env.Stdout, *r.NewTabID)
			}
			return nil
		}
		line := render.OK(verb, r, "")
		if r.NewTabID != nil {
			line += "; " + render.NewTab(*r.NewTabID, render.CLI)
		}
		fmt.Fprintln(env.Stdout, line)
		return nil
	}
}

// waitUntilFlag is --wait-until on the commands that load a page (the
// schema's waitUntil).
func waitUntilFlag() cli.Flag {
	return &cli.StringFlag{Name: "wait-until", Usage: "answer once the page has reached `POINT`: commit (its response arrived), domcontentloaded, load (the default: every image, script and frame loaded) or networkidle (load, then no network connection for 500 ms)"}
}

// withWaitUntil sets the action's waitUntil from --wait-until, when given.
func withWaitUntil(c *cli.Context, a protocol.Action) (protocol.Action, error) {
	if !c.IsSet("wait-until") {
		return a, nil
	}
	a.WaitUntil = c.String("wait-until")
	if !slices.Contains(protocol.WaitUntilValues, a.WaitUntil) {
		return a, usageError(fmt.Sprintf("--wait-until %q: expected %s", a.WaitUntil, strings.Join(protocol.WaitUntilValues, ", ")))
	}
	return a, nil
}

// loadAction sends a page-loading action (navigate, reload, back,
// forward) with --wait-until applied.
func loadAction(c *cli.Context, env *Env, a protocol.Action, render func(json.RawMessage) error) error {
	a, err := withWaitUntil(c, a)
	if err != nil {
		return err
	}
	return runAction(c, env, a, render)
}

// targetFlags are --uid and --selector, which force how TARGET is read;
// --frame, the frame a selector or role target is looked up in (the
// schema's frame); and
// --role, --name and --nth, the role target that replaces TARGET.
func targetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "uid", Usage: "read TARGET as a uid from the last extract"},
		&cli.BoolFlag{Name: "selector", Usage: "read TARGET as a CSS selector, even when it looks like e3"},
		&cli.StringFlag{Name: "frame", Usage: "look for the selector (or --role) in the iframe whose URL contains `TEXT` or whose name is TEXT"},
		&cli.StringFlag{Name: "role", Usage: "target the element with WAI-ARIA `ROLE` (button, link, textbox, ...) instead of TARGET; no extract needed"},
		&cli.StringFlag{Name: "name", Usage: "with --role: the accessible `NAME`, exact, or /pattern/flags"},
		&cli.IntFlag{Name: "nth", Usage: "with --role: take the `N`th match, 0-based, when several have that role and name"},
	}
}

// forceFlag is --force on click, hover and type: act without waiting for
// the target to be actionable (the schema's force).
func forceFlag() cli.Flag {
	return &cli.BoolFlag{Name: "force", Usage: "act at once, skipping the wait until TARGET is visible, stable, enabled and not covered"}
}

// withForce sets the action's force from --force.
func withForce(c *cli.Context, a protocol.Action) protocol.Action {
	a.Force = c.Bool("force")
	return a
}

// target reads the command's target and returns the args after it: with
// --role, the role target (no TARGET argument); otherwise TARGET, where
// ^e\d+$ is a uid and anything else a CSS selector, unless --uid or
// --selector says otherwise.
func target(c *cli.Context) (protocol.Target, []string, error) {
	args := c.Args().Slice()
	if c.IsSet("role") {
		return roleTarget(c, args)
	}
	if c.IsSet("name") || c.IsSet("nth") {
		return protocol.Target{}, nil, usageError("--name and --nth go with --role, e.g. --role button --name \"Sign in\"")
	}
	if len(args) == 0 {
		return protocol.Target{}, nil, usageError(c.Command.Name + " needs a TARGET: a uid like e3 (from `bua extract`), a CSS selector, or --role ROLE [--name NAME]")
	}
	s, rest := args[0], args[1:]
	var t protocol.Target
	switch {
	case c.Bool("uid") && c.Bool("selector"):
		return protocol.Target{}, nil, usageError("--uid and --selector exclude each other")
	case c.Bool("uid"):
		t = protocol.Target{UID: s}
	case c.Bool("selector"):
		t = protocol.Target{Selector: s}
	default:
		t = protocol.ParseTarget(s)
	}
	if err := frameFlag(c, &t); err != nil {
		return protocol.Target{}, nil, err
	}
	return t, rest, nil
}

// frameFlag sets t.Frame from --frame, which goes with a CSS selector or
// --role, not a uid.
func frameFlag(c *cli.Context, t *protocol.Target) error {
	if !c.IsSet("frame") {
		return nil
	}
	if t.UID != "" {
		return usageError("--frame goes with a CSS selector or --role: uid " + t.UID + " already names the frame it was read in")
	}
	if t.Frame = c.String("frame"); t.Frame == "" {
		return usageError("--frame needs TEXT: a part of the iframe's URL, or its name")
	}
	return nil
}

// roleTarget reads --role, --name and --nth, checking the role and name as
// the flow loader does (roletarget.CheckRole, roletarget.CheckName).
func roleTarget(c *cli.Context, args []string) (protocol.Target, []string, error) {
	if c.Bool("uid") || c.Bool("selector") {
		return protocol.Target{}, nil, usageError("--role replaces TARGET: drop --uid and --selector")
	}
	t := protocol.Target{Role: c.String("role"), Name: c.String("name")}
	if err := roletarget.CheckRole(t.Role); err != nil {
		return protocol.Target{}, nil, usageError(err.Error())
	}
	if c.IsSet("name") && t.Name == "" {
		return protocol.Target{}, nil, usageError("--name is empty: leave it out to match any name")
	}
	if err := roletarget.CheckName(t.Name); err != nil {
		return protocol.Target{}, nil, usageError(err.Error())
	}
	if c.IsSet("nth") {
		n := c.Int("nth")
		if n < 0 {
			return protocol.Target{}, nil, usageError("--nth counts from 0: the first match is --nth 0")
		}
		t.Nth = &n
	}
	if err := frameFlag(c, &t); err != nil {
		return protocol.Target{}, nil, err
	}
	return t, args, nil
}

func actionCommand(name, usage, args string, flags []cli.Flag, action func(c *cli.Context) error) *cli.Command {
	return &cli.Command{
		Name: name, Category: catActions, Usage: usage, ArgsUsage: args,
		Flags: append(flags, tabFlag()), Action: action,
	}
}

func newNavigateCommand(env *Env) *cli.Command {
	cmd := actionCommand("navigate", "load URL in the current tab (opens one in the BUA window if none)", "URL", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("navigate takes one URL (http, https or about:blank)")
			}
			return loadAction(c, env, protocol.Navigate(c.Args().First()), printOK(c, env, "ok"))
		})
	cmd.Description = "By default navigate answers at the page's load event, once its images, scripts\n" +
		"and frames have loaded. --wait-until commit answers once the server's response\n" +
		"arrived, domcontentloaded once the HTML is parsed (its text is there; slow ads\n" +
		"and trackers may still load), networkidle once the page has also had no\n" +
		"network connection for 500 ms (data it fetches after load has arrived)."
	return cmd
}

func newReloadCommand(env *Env) *cli.Command {
	return actionCommand("reload", "reload the current tab and wait for it to load (uids from an earlier extract go stale)", "", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("reload takes no arguments (pass --tab ID to pick the tab)")
			}
			return loadAction(c, env, protocol.Action{Type: protocol.ActionReload}, printOK(c, env, "ok"))
		})
}

func newClickCommand(env *Env) *cli.Command {
	return actionCommand("click", "click an element with a trusted mouse event", "TARGET|--role ROLE", append(targetFlags(), forceFlag(), downloadFlag()),
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError(fmt.Sprintf("click takes one TARGET (or --role ROLE [--name NAME]), got extra %q", rest[0]))
			}
			return runInput(c, env, withForce(c, protocol.Click(t)))
		})
}

func newHoverCommand(env *Env) *cli.Command {
	return actionCommand("hover", "move the mouse over an element", "TARGET|--role ROLE", append(targetFlags(), forceFlag()),
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError(fmt.Sprintf("hover takes one TARGET (or --role ROLE [--name NAME]), got extra %q", rest[0]))
			}
			return runAction(c, env, withForce(c, protocol.Hover(t)), printOK(c, env, "ok"))
		})
}

func newTypeCommand(env *Env) *cli.Command {
	flags := append(targetFlags(), forceFlag(), &cli.StringFlag{Name: "text-env", Usage: "read TEXT from environment variable `VAR` (keeps secrets out of ps and history)"},
		&cli.BoolFlag{Name: "clear", Usage: "clear the field first, so TEXT replaces its value (select all, delete)"})
	cmd := actionCommand("type", "focus an element and insert text", "TARGET|--role ROLE TEXT|-", flags,
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			var text string
			switch {
			case c.IsSet("text-env"):
				if len(rest) != 0 {
					return usageError("with --text-env, type takes only TARGET (or --role ROLE [--name NAME])")
				}
				text = env.Getenv(c.String("text-env"))
				if text == "" {
					return usageError("environment variable " + c.String("text-env") + " is not set or empty: export it first")
				}
			case len(rest) != 1:
				return usageError("type takes TARGET and TEXT (or - to read stdin, or --text-env VAR); with --role, only TEXT")
			case rest[0] == "-":
				b, err := io.ReadAll(env.Stdin)
				if err != nil {
					return err
				}
				text = strings.TrimSuffix(string(b), "\n")
			default:
				text = rest[0]
			}
			a := withForce(c, protocol.Type(t, text))
			a.Clear = c.Bool("clear")
			return runAction(c, env, a, printOK(c, env, "ok"))
		})
	return cmd
}

func newPressCommand(env *Env) *cli.Command {
	cmd := actionCommand("press", "press a key or chord: Enter, Tab, Escape, ArrowDown, Control+a, Shift+Tab, F5, a", "KEY", []cli.Flag{downloadFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("press takes one KEY, e.g. Enter or Control+a")
			}
			return runInput(c, env, protocol.PressKey(c.Args().First()))
		})
	cmd.Description = "Named keys: Enter Tab Escape Backspace Delete Space ArrowUp ArrowDown ArrowLeft\n" +
		"ArrowRight Home End PageUp PageDown F1-F12; any single character; chords of\n" +
		"Control, Shift, Alt, Meta and one key joined by +, like Control+a or Shift+Tab."
	return cmd
}

func newScrollCommand(env *Env) *cli.Command {
	return actionCommand("scroll", "scroll the page up or down", "up|down",
		[]cli.Flag{&cli.IntFlag{Name: "amount", Usage: "CSS `PIXELS` (default one viewport)"}},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("scroll takes a direction: up or down")
			}
			return runAction(c, env, protocol.Scroll(c.Args().First(), c.Int("amount")), printOK(c, env, "ok"))
		})
}

func newScreenshotCommand(env *Env) *cli.Command {
	return actionCommand("screenshot", "save a JPEG of the tab", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (default: screenshot-TIME.jpg)"},
			&cli.BoolFlag{Name: "full-page", Usage: "capture the whole page, not just the viewport"},
			&cli.BoolFlag{Name: "labels", Usage: "draw each element's uid from the last extract on the image"},
		},
		func(c *cli.Context) error {
			out := c.String("output")
			if out == "" {
				out = "screenshot-" + env.Now().Format("20060102-150405.000") + ".jpg"
			}
			a := protocol.Screenshot(c.Bool("full-page"))
			a.Labels = c.Bool("labels")
			if c.Bool("json") {
				// --json prints the full result, dataUrl included, and still saves the file.
				return runAction(c, env, a, nil)
			}
			return runAction(c, env, a, func(res json.RawMessage) error {
				var r protocol.ScreenshotResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				data, err := decodeDataURL(r.DataURL)
				if err != nil {
					return err
				}
				if err := os.WriteFile(out, data, 0o644); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, out)
				return nil
			})
		})
}

// decodeDataURL returns the bytes of a base64 data URL.
func decodeDataURL(u string) ([]byte, error) {
	_, b64, ok := strings.Cut(u, ";base64,")
	if !ok {
		return nil, fmt.Errorf("screenshot result is not a base64 data URL")
	}
	return base64.StdEncoding.DecodeString(b64)
}

func newEvalCommand(env *Env) *cli.Command {
	cmd := actionCommand("eval", "run JavaScript in the page (a function body: use return)", "EXPRESSION|-", nil,
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(`eval takes one EXPRESSION, e.g. 'return document.title', or - for stdin`)
			}
			expr := c.Args().First()
			if expr == "-" {
				b, err := io.ReadAll(env.Stdin)
				if err != nil {
					return err
				}
				expr = string(b)
			}
			return runAction(c, env, protocol.Evaluate(expr), func(res json.RawMessage) error { return printEvalResult(env, res) })
		})
	// evaluate is the flow step's name (and the protocol action's).
	cmd.Aliases = []string{"evaluate"}
	cmd.Description = "EXPRESSION is wrapped as (() => { EXPRESSION })() and awaited, so write a\n" +
		"function body and use return: `bua eval 'return document.title'`. A body\n" +
		"that uses await is wrapped as (async () => { EXPRESSION })():\n" +
		"`bua eval 'const r = await fetch(\"/api\"); return r.status'`. A bare\n" +
		"expression without return yields undefined. A thrown error is invalid_action."
	return cmd
}

// printEvalResult prints an evaluate result as `bua eval` shows it: a
// string as it is, any other value as JSON, a described or truncated value
// by its description or preview (docs/protocol.md#evaluate).
func printEvalResult(env *Env, res json.RawMessage) error {
	var r protocol.EvaluateResult
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, render.Eval(r))
	return nil
}

func newWaitForCommand(env *Env) *cli.Command {
	flags := append(targetFlags(),
		&cli.DurationFlag{Name: "timeout", Value: protocol.DefaultWaitForTimeout, Usage: "how long to wait (at most 60s)"},
		&cli.StringFlag{Name: "text", Usage: "wait for `TEXT` shown in the page (or in TARGET): a substring, or /regex/flags"},
		&cli.StringFlag{Name: "state", Usage: "wait until TARGET (or --text) is `STATE`: attached, visible (default), hidden or detached"},
		&cli.StringFlag{Name: "url", Usage: "wait until the tab's URL matches `PATTERN`: a glob (**/done, *.html) or /regex/flags"},
	)
	cmd := actionCommand("wait-for", "wait until an element is visible (or attached, hidden, detached), text shows, or the URL matches", "[TARGET|--role ROLE]", flags,
		func(c *cli.Context) error {
			w := protocol.Wait{Text: c.String("text"), State: c.String("state"), URL: c.String("url")}
			if c.IsSet("text") && w.Text == "" {
				return usageError("--text needs the text to wait for")
			}
			var t protocol.Target
			if c.NArg() > 0 || c.IsSet("role") || (w.Text == "" && w.URL == "") {
				var rest []string
				var err error
				if t, rest, err = target(c); err != nil {
					return err
				}
				if len(rest) > 0 {
					return usageError(fmt.Sprintf("wait-for takes one TARGET (or --role ROLE [--name NAME]); quote a selector with spaces, got extra %q", rest[0]))
				}
			}
			verb := "found"
			if w.URL != "" || w.State == protocol.WaitHidden || w.State == protocol.WaitDetached {
				verb = "ok"
			}
			return runAction(c, env, protocol.WaitUntil(t, w, c.Duration("timeout")), printOK(c, env, verb))
		})
	cmd.Description = "With TARGET alone, waits until it is visible. --state attached|visible|hidden|detached\n" +
		"changes that (detached: until no element matches, e.g. a spinner). --text waits\n" +
		"for text shown in the page, or inside TARGET; with --state hidden or detached, for\n" +
		"it to go. --url waits for the tab's URL alone: a glob over the whole URL (** any\n" +
		"characters, * any but /, {a,b} either) or /regex/flags."
	return cmd
}

func newBackCommand(env *Env) *cli.Command {
	return actionCommand("back", "go back one page in the tab's history and wait for it (uids go stale)", "", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("back takes no arguments (pass --tab ID to pick the tab)")
			}
			return loadAction(c, env, protocol.GoBack(), printMoved(c, env, "earlier"))
		})
}

func newForwardCommand(env *Env) *cli.Command {
	return actionCommand("forward", "go forward one page in the tab's history and wait for it (uids go stale)", "", []cli.Flag{waitUntilFlag()},
		func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("forward takes no arguments (pass --tab ID to pick the tab)")
			}
			return loadAction(c, env, protocol.GoForward(), printMoved(c, env, "later"))
		})
}

// printMoved prints go_back's and go_forward's result: the URL the tab
// went to, or that its history had no page that way (not an error, as
// Playwright's goBack returns null).
func printMoved(c *cli.Context, env *Env, which string) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		if c.Bool("quiet") {
			return nil
		}
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		fmt.Fprintln(env.Stdout, render.OK("ok", r, which))
		return nil
	}
}

func newDialogCommand(env *Env) *cli.Command {
	cmd := actionCommand("dialog", "answer the alert, confirm, prompt or beforeunload dialog open on the tab", "accept|dismiss",
		[]cli.Flag{&cli.StringFlag{Name: "prompt-text", Usage: "answer a prompt with `TEXT` (with accept)"}},
		func(c *cli.Context) error {
			var accept bool
			switch c.Args().First() {
			case "accept":
				accept = true
			case "dismiss":
			default:
				return usageError("dialog takes accept or dismiss")
			}
			if c.NArg() != 1 {
				return usageError("dialog takes one word: accept or dismiss")
			}
			var text *string
			if c.IsSet("prompt-text") {
				if !accept {
					return usageError("--prompt-text answers a prompt you accept: use dialog accept --prompt-text TEXT")
				}
				s := c.String("prompt-text")
				text = &s
			}
			return runAction(c, env, protocol.HandleDialog(accept, text), func(res json.RawMessage) error {
				if c.Bool("quiet") {
					return nil
				}
				var r protocol.HandleDialogResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				how := "dismissed"
				if r.Accepted {
					how = "accepted"
				}
				fmt.Fprintf(env.Stdout, "%s %s %q\n", how, r.DialogType, r.Message)
				return nil
			})
		})
	cmd.Description = "A page's dialogs are left open (the action that meets one fails, naming it):\n" +
		"this answers the one open on the tab. A flow can answer them as they open with\n" +
		"dialogs: accept or dismiss."
	return cmd
}

func newTabsCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name: "tabs", Category: catActions, Usage: "list tabs (blocklisted domains are hidden)",
		Action: func(c *cli.Context) error {
			return runAction(c, env, protocol.GetTabs(), func(res json.RawMessage) error {
				var tabs []protocol.TabInfo
				if err := json.Unmarshal(res, &tabs); err != nil {
					return err
				}
				ios := env.streams(c)
				if ios.Quiet { // ids only, one a line, for xargs and loops
					for _, t := range tabs {
						fmt.Fprintln(ios.Out, t.TabID)
					}
					return nil
				}
				tb := ios.NewTable("tab", "domain", "title", "url")
				for _, t := range tabs {
					tb.AddRow(strconv.Itoa(t.TabID), t.Domain, t.Title, t.URL)
				}
				return tb.Render()
			})
		},
	}
}

func newOpenCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name: "open", Category: catActions, ArgsUsage: "URL",
		Usage: "open URL in a new tab in the minimized BUA window and print its tab id",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "focus", Usage: "open in a normal, focused window instead"}, waitUntilFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("open takes one URL")
			}
			return loadAction(c, env, protocol.OpenTab(c.Args().First(), c.Bool("focus")), func(res json.RawMessage) error {
				var r protocol.OpenTabResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, r.TabID)
				return nil
			})
		},
	}
}

func newCloseCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name: "close", Category: catActions, ArgsUsage: "TABID", Usage: "close a tab",
		Action: func(c *cli.Context) error {
			id, err := strconv.Atoi(c.Args().First())
			if c.NArg() != 1 || err != nil {
				return usageError("close takes one numeric TABID (see `bua tabs`)")
			}
			return runAction(c, env, protocol.CloseTab(id), printOK(c, env, "closed"))
		},
	}
}
