package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(newSelectCommand)
	register(newUploadCommand)
}

// repeated is a flag value that collects every occurrence as is: unlike
// cli.StringSliceFlag it never splits on commas, which option labels and
// values may hold ("Doe, John").
type repeated []string

func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
func (r *repeated) String() string     { return strings.Join(*r, ", ") }

func newSelectCommand(env *Env) *cli.Command {
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
			var by protocol.Option
			var items []string
			for _, f := range []struct {
				by    protocol.Option
				items repeated
			}{{protocol.ByValue, values}, {protocol.ByLabel, labels}, {protocol.ByIndex, indexes}} {
				if c.IsSet(string(f.by)) {
					if by != "" {
						return usageError("select takes one of --value, --label or --index (repeat it for several options), not both " + string(by) + " and " + string(f.by))
					}
					by, items = f.by, f.items
				}
			}
			if by == "" {
				return usageError("select needs --value, --label or --index: which option to choose")
			}
			a, err := protocol.SelectOption(t, by, items)
			if err != nil {
				return usageError(err.Error())
			}
			return runAction(c, env, withForce(c, a), func(res json.RawMessage) error {
				if c.Bool("quiet") {
					return nil
				}
				var r protocol.SelectOptionResult
				_ = json.Unmarshal(res, &r)
				chosen := "nothing selected"
				if len(r.Values) > 0 {
					chosen = "selected " + strings.Join(quoteAll(r.Values), ", ")
				}
				if r.TabID != nil {
					chosen += fmt.Sprintf(" (tab %d)", *r.TabID)
				}
				fmt.Fprintln(env.Stdout, chosen)
				return nil
			})
		})
	cmd.Description = "Exactly one of --value, --label or --index, repeated to choose several options of a\n" +
		"<select multiple>. Prints the values selected afterwards. An option the select\n" +
		"lacks fails at once (element_not_found), naming the options it has."
	return cmd
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func newUploadCommand(env *Env) *cli.Command {
	return actionCommand("upload", "set a file input's files, as choosing them in the file dialog would", "TARGET|--role ROLE FILE...", targetFlags(),
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usageError("upload takes TARGET (the <input type=file>) and one or more FILEs")
			}
			files, err := absPaths(rest)
			if err != nil {
				return usageError(err.Error())
			}
			return runAction(c, env, protocol.Upload(t, files), printOK(c, env, "ok"))
		})
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

// downloadFlag is --download DIR on click and press: wait for the download
// the input starts, then put the file in DIR.
func downloadFlag() cli.Flag {
	return &cli.StringFlag{Name: "download", Usage: "wait for the download this starts to finish, and put the file in `DIR` (printed with its size and sha256)"}
}

// runInput sends click or press_key: with --download DIR it asks for the
// download to be awaited (download: true) and delivers the file into DIR.
func runInput(c *cli.Context, env *Env, a protocol.Action) error {
	if !c.IsSet("download") {
		return runAction(c, env, a, printOK(c, env, "ok"))
	}
	dir := c.String("download")
	if dir == "" {
		return usageError("--download needs a DIR to put the file in")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return usageError(err.Error())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError(fmt.Sprintf("--download %s: %v", dir, err))
	}
	d, err := dirs(env)
	if err != nil {
		return err
	}
	a.Download = true
	return runActionAfter(c, env, a, func(res json.RawMessage) (json.RawMessage, error) {
		return deliverDownload(res, dir, d.Downloads())
	}, nil, func(res json.RawMessage) error {
		if c.Bool("quiet") {
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
		if r.TabID != nil {
			line += fmt.Sprintf(" (tab %d)", *r.TabID)
		}
		fmt.Fprintln(env.Stdout, line)
		return nil
	})
}

// deliverDownload puts the finished download a result reports into dir
// and returns the result with download.path and filename naming it there.
// A file the managed browser saved (under managedDir, bua's own) is moved;
// one in a person's downloads folder is copied, leaving theirs in place.
// A file of that name in dir is replaced.
func deliverDownload(res json.RawMessage, dir, managedDir string) (json.RawMessage, error) {
	var r map[string]any
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, fmt.Errorf("the result is not JSON: %v", err)
	}
	dl, _ := r["download"].(map[string]any)
	src, _ := dl["path"].(string)
	if src == "" {
		return nil, errors.New("the result reports no downloaded file: update the extension (`bua extension path`)")
	}
	name := filepath.Base(src)
	rel, rerr := filepath.Rel(managedDir, src)
	managed := rerr == nil && !strings.HasPrefix(rel, "..")
	if m := uniquified.FindStringSubmatch(name); managed && m != nil {
		// Chrome named it "report (1).bin" because an earlier report.bin
		// is still in bua's folder: DIR gets the name the site gave.
		if _, err := os.Stat(filepath.Join(filepath.Dir(src), m[1]+m[2])); err == nil {
			name = m[1] + m[2]
		}
	}
	dst := filepath.Join(dir, name)
	if dst != src {
		var err error
		if managed {
			err = moveFile(src, dst)
		} else {
			err = copyFile(src, dst)
		}
		if err != nil {
			return nil, fmt.Errorf("downloaded to %s, but could not put it in %s: %v", src, dir, err)
		}
	}
	dl["path"], dl["filename"] = dst, filepath.Base(dst)
	return json.Marshal(r)
}

// uniquified matches the " (N)" Chrome adds to a download's name when a
// file of that name is already in the folder: base, extension.
var uniquified = regexp.MustCompile(`^(.+) \([0-9]+\)(\.[^. ]+)?$`)

// moveFile renames src to dst, or copies and removes it across devices.
func moveFile(src, dst string) error {
	if os.Rename(src, dst) == nil {
		return nil
	}
	if err := copyFile(src, dst); err != nil {
		return err
	}
	return os.Remove(src)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
