package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// The form commands: select and upload (the extension's
// actions/forms.js).

func init() {
	register(func(env *Env) *cli.Command { return newSelectCommand(env, nil) }, "select")
	register(func(env *Env) *cli.Command { return newUploadCommand(env, nil) }, "upload")
}

// repeated is a flag value that collects every occurrence as is: unlike
// cli.StringSliceFlag it never splits on commas, which option labels and
// values may hold ("Doe, John").
type repeated []string

func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
func (r *repeated) String() string     { return strings.Join(*r, ", ") }

// selectOptions is `bua select`'s command line.
type selectOptions struct {
	actionOptions
	Target protocol.Target
	By     protocol.Option // --value, --label or --index
	Items  []string        // its values, in order
	Force  bool
}

func newSelectCommand(env *Env, runF func(*selectOptions) error) *cli.Command {
	o := &selectOptions{}
	var values, labels, indexes repeated
	flags := append(targetFlags(),
		&cli.GenericFlag{Name: "value", Value: &values, Usage: "choose the option whose value is `VALUE`; repeat for a multi-select"},
		&cli.GenericFlag{Name: "label", Value: &labels, Usage: "choose the option whose visible text is `LABEL`; repeatable"},
		&cli.GenericFlag{Name: "index", Value: &indexes, Usage: "choose the option at 0-based position `N`; repeatable"},
		forceFlag(),
	)
	cmd := actionCommand("select", "choose options of a <select>, firing input and change as a person's choice does", "TARGET|--role ROLE", flags,
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError("select takes one TARGET (a uid like e3, a CSS selector, or --role combobox --name NAME) and --value, --label or --index")
			}
			o.Target = t
			for _, f := range []struct {
				by    protocol.Option
				items repeated
			}{{protocol.ByValue, values}, {protocol.ByLabel, labels}, {protocol.ByIndex, indexes}} {
				if c.IsSet(string(f.by)) {
					if o.By != "" {
						return usageError("select takes one of --value, --label or --index (repeat it for several options), not both " + string(o.By) + " and " + string(f.by))
					}
					o.By, o.Items = f.by, f.items
				}
			}
			if o.By == "" {
				return usageError("select needs --value, --label or --index: which option to choose")
			}
			if _, err := protocol.SelectOption(o.Target, o.By, o.Items); err != nil {
				return usageError(err.Error())
			}
			o.Force = c.Bool("force")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runSelect)
		})
	cmd.Description = "Exactly one of --value, --label or --index, repeated to choose several options of a\n" +
		"<select multiple>. Prints the values selected afterwards. An option the select\n" +
		"lacks fails at once (element_not_found), naming the options it has."
	return cmd
}

func runSelect(o *selectOptions) error {
	a, _ := protocol.SelectOption(o.Target, o.By, o.Items) // checked when read
	a.Force = o.Force
	return o.runAction(a, func(res json.RawMessage) error {
		if o.Quiet {
			return nil
		}
		var r protocol.SelectOptionResult
		_ = json.Unmarshal(res, &r)
		chosen := "nothing selected"
		if len(r.Values) > 0 {
			chosen = "selected " + strings.Join(quoteAll(r.Values), ", ")
		}
		fmt.Fprintln(o.env.Stdout, chosen+render.TabNote(r.TabID, r.TabHandle))
		return nil
	})
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// uploadOptions is `bua upload`'s command line.
type uploadOptions struct {
	actionOptions
	Target protocol.Target
	Files  []string // absolute
}

func newUploadCommand(env *Env, runF func(*uploadOptions) error) *cli.Command {
	o := &uploadOptions{}
	return actionCommand("upload", "set a file input's files, as choosing them in the file dialog would", "TARGET|--role ROLE FILE...", targetFlags(),
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usageError("upload takes TARGET (the <input type=file>) and one or more FILEs")
			}
			o.Target = t
			if o.Files, err = absPaths(rest); err != nil {
				return usageError(err.Error())
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runUpload)
		})
}

func runUpload(o *uploadOptions) error {
	return o.runAction(protocol.Upload(o.Target, o.Files), o.printOK("ok"))
}

// absPaths resolves paths against the working directory: the daemon,
// which checks and sends them, has its own.
func absPaths(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("file %s: %v", p, err)
		}
		out[i] = abs
	}
	return out, nil
}
