package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// The input commands: click, hover, type, press and scroll (the
// extension's actions/input.js).

func init() {
	register(func(env *Env) *cli.Command { return newClickCommand(env, nil) }, "click")
	register(func(env *Env) *cli.Command { return newHoverCommand(env, nil) }, "hover")
	register(func(env *Env) *cli.Command { return newTypeCommand(env, nil) }, "type")
	register(func(env *Env) *cli.Command { return newPressCommand(env, nil) }, "press")
	register(func(env *Env) *cli.Command { return newScrollCommand(env, nil) }, "scroll")
}

// clickOptions is `bua click`'s command line.
type clickOptions struct {
	actionOptions
	Target protocol.Target
	Force  bool
	// Download is --download's folder, absolute; "" without it.
	Download string
	// Button is --button: left, middle, right, back or forward; "" is the
	// protocol's default, left (the schema checks the name).
	Button string
	// ClickCount is --click-count; nil is the protocol's default, one click.
	ClickCount *int
}

func newClickCommand(env *Env, runF func(*clickOptions) error) *cli.Command {
	o := &clickOptions{}
	flags := append(targetFlags(), forceFlag(), downloadFlag(),
		&cli.StringFlag{Name: "button", Usage: "the mouse `BUTTON`: left (default), middle, right, back or forward"},
		&cli.IntFlag{Name: "click-count", Usage: "`N` clicks in a row: 2 for a double click, 3 for a triple click"})
	return actionCommand("click", "click an element with a trusted mouse event", "TARGET|--role ROLE", flags,
		func(c *cli.Context) (err error) {
			if o.Target, err = oneTarget(c); err != nil {
				return err
			}
			o.Force = c.Bool("force")
			o.Button = c.String("button")
			if c.IsSet("click-count") {
				n := c.Int("click-count")
				o.ClickCount = &n
			}
			if o.Download, err = downloadDir(c); err != nil {
				return err
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runClick)
		})
}

func runClick(o *clickOptions) error {
	a := protocol.Click(o.Target)
	a.Force, a.Button, a.ClickCount = o.Force, o.Button, o.ClickCount
	return o.runInput(a, o.Download)
}

// hoverOptions is `bua hover`'s command line.
type hoverOptions struct {
	actionOptions
	Target protocol.Target
	Force  bool
}

func newHoverCommand(env *Env, runF func(*hoverOptions) error) *cli.Command {
	o := &hoverOptions{}
	return actionCommand("hover", "move the mouse over an element", "TARGET|--role ROLE", append(targetFlags(), forceFlag()),
		func(c *cli.Context) (err error) {
			if o.Target, err = oneTarget(c); err != nil {
				return err
			}
			o.Force = c.Bool("force")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runHover)
		})
}

func runHover(o *hoverOptions) error {
	a := protocol.Hover(o.Target)
	a.Force = o.Force
	return o.runAction(a, o.printOK("ok"))
}

// typeOptions is `bua type`'s command line.
type typeOptions struct {
	actionOptions
	Target protocol.Target
	// Text is what to type: TEXT, or --text-env's variable's value; with
	// FromStdin, standard input is read instead when the command runs.
	Text      string
	FromStdin bool
	Force     bool
	Clear     bool
}

func newTypeCommand(env *Env, runF func(*typeOptions) error) *cli.Command {
	o := &typeOptions{}
	flags := append(targetFlags(), forceFlag(), &cli.StringFlag{Name: "text-env", Usage: "read TEXT from environment variable `VAR` (keeps secrets out of ps and history)"},
		&cli.BoolFlag{Name: "clear", Usage: "clear the field first, so TEXT replaces its value (select all, delete)"})
	return actionCommand("type", "focus an element and insert text", "TARGET|--role ROLE TEXT|-", flags,
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			o.Target = t
			switch {
			case c.IsSet("text-env"):
				if len(rest) != 0 {
					return usageError("with --text-env, type takes only TARGET (or --role ROLE [--name NAME])")
				}
				o.Text = env.Getenv(c.String("text-env"))
				if o.Text == "" {
					return usageError("environment variable " + c.String("text-env") + " is not set or empty: export it first")
				}
			case len(rest) != 1:
				return usageError("type takes TARGET and TEXT (or - to read stdin, or --text-env VAR); with --role, only TEXT")
			case rest[0] == "-":
				o.FromStdin = true
			default:
				o.Text = rest[0]
			}
			o.Force, o.Clear = c.Bool("force"), c.Bool("clear")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runType)
		})
}

func runType(o *typeOptions) error {
	text := o.Text
	if o.FromStdin {
		b, err := io.ReadAll(o.env.Stdin)
		if err != nil {
			return err
		}
		text = strings.TrimSuffix(string(b), "\n")
	}
	a := protocol.Type(o.Target, text)
	a.Force, a.Clear = o.Force, o.Clear
	return o.runAction(a, o.printOK("ok"))
}

// pressOptions is `bua press`'s command line.
type pressOptions struct {
	actionOptions
	Key string
	// Download is --download's folder, absolute; "" without it.
	Download string
}

func newPressCommand(env *Env, runF func(*pressOptions) error) *cli.Command {
	o := &pressOptions{}
	cmd := actionCommand("press", "press a key or chord: Enter, Tab, Escape, ArrowDown, Control+a, Shift+Tab, F5, a", "KEY", []cli.Flag{downloadFlag()},
		func(c *cli.Context) (err error) {
			if c.NArg() != 1 {
				return usageError("press takes one KEY, e.g. Enter or Control+a")
			}
			o.Key = c.Args().First()
			if o.Download, err = downloadDir(c); err != nil {
				return err
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runPress)
		})
	cmd.Description = "Named keys: Enter Tab Escape Backspace Delete Space ArrowUp ArrowDown ArrowLeft\n" +
		"ArrowRight Home End PageUp PageDown F1-F12; any single character; chords of\n" +
		"Control, Shift, Alt, Meta and one key joined by +, like Control+a or Shift+Tab."
	return cmd
}

func runPress(o *pressOptions) error { return o.runInput(protocol.PressKey(o.Key), o.Download) }

// scrollOptions is `bua scroll`'s command line.
type scrollOptions struct {
	actionOptions
	Direction string
	Amount    int // CSS pixels; 0: one viewport
}

func newScrollCommand(env *Env, runF func(*scrollOptions) error) *cli.Command {
	o := &scrollOptions{}
	return actionCommand("scroll", "scroll the page up or down", "up|down",
		[]cli.Flag{&cli.IntFlag{Name: "amount", Usage: "CSS `PIXELS` (default one viewport)"}},
		func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("scroll takes a direction: up or down")
			}
			o.Direction, o.Amount = c.Args().First(), c.Int("amount")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runScroll)
		})
}

func runScroll(o *scrollOptions) error {
	return o.runAction(protocol.Scroll(o.Direction, o.Amount), o.printOK("ok"))
}

// downloadFlag is --download DIR on click and press: wait for the download
// the input starts, then put the file in DIR.
func downloadFlag() cli.Flag {
	return &cli.StringFlag{Name: "download", Usage: "wait for the download this starts to finish, and put the file in `DIR` (printed with its size and sha256)"}
}

// downloadDir reads --download: DIR made absolute, or "" without the flag.
func downloadDir(c *cli.Context) (string, error) {
	if !c.IsSet("download") {
		return "", nil
	}
	dir := c.String("download")
	if dir == "" {
		return "", usageError("--download needs a DIR to put the file in")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", usageError(err.Error())
	}
	return dir, nil
}

// runInput sends click or press_key: with a download folder, dir, it asks
// for the download to be awaited (download: true) and delivers the file
// into dir.
func (o *actionOptions) runInput(a protocol.Action, dir string) error {
	if dir == "" {
		return o.runAction(a, o.printOK("ok"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError(fmt.Sprintf("--download %s: %v", dir, err))
	}
	d, err := dirs(o.env)
	if err != nil {
		return err
	}
	a.Download = true
	return o.runActionAfter(a, func(res json.RawMessage) (json.RawMessage, error) {
		return deliverDownload(res, dir, d.Downloads())
	}, nil, func(res json.RawMessage) error {
		if o.Quiet {
			return nil
		}
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		dl := r.Download
		line := fmt.Sprintf("downloaded %s (%d bytes", dl.Path, dl.Size)
		if dl.SHA256 != "" {
			line += ", sha256 " + dl.SHA256
		}
		line += ")"
		fmt.Fprintln(o.env.Stdout, line+render.TabNote(r.TabID, r.TabHandle))
		return nil
	})
}
