package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/flowwriter"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/recording"
)

// `bua record [URL] -o FILE` (docs/record.md#bua-record): the
// person acts in a tab, the extension records their input (pkg/recording),
// and when they press Ctrl-C, Stop in the popup, or close the tab, the
// flow writer turns it into FILE.

func init() {
	register(func(env *Env) *cli.Command { return newRecordCommand(env, nil) }, "record")
}

// recordOptions is `bua record`'s command line.
type recordOptions struct {
	globalOptions
	// URL is the page to open; "" records --tab's tab or opens about:blank.
	URL string
	// Tab is --tab, the tab to record as it is; 0 without it.
	Tab int
	// Output is -o, the flow file to write.
	Output string
	// Name is --name, the flow's name; "" keeps the first page's title.
	Name string
}

func newRecordCommand(env *Env, runF func(*recordOptions) error) *cli.Command {
	o := &recordOptions{}
	return &cli.Command{
		Name: "record", Category: catFlows, ArgsUsage: "[URL]",
		Usage: "record what you do in a tab as a flow: open URL, act, press Ctrl-C",
		Description: "Opens URL (about:blank without one) in a new, focused tab, or records tab ID\n" +
			"with --tab, and records what you do there: clicks, the text you type (its final\n" +
			"value), choices, keys such as Enter, files chosen, the pages you go to, the tabs a\n" +
			"click opens. Alt+Shift+click a text to add a check that it shows; the extension's\n" +
			"popup adds checks of the URL and the title. Ctrl-C here, Stop in the popup, or\n" +
			"closing the tab ends the recording and writes FILE (exit 0). Text typed into a\n" +
			"password field is never recorded: the flow reads it from a BUA_ environment\n" +
			"variable. With no paired Chrome, a managed browser records, with a window when\n" +
			"there is a display. See docs/record.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the flow to `FILE` (required)"},
			&cli.IntFlag{Name: "tab", Usage: "record tab `ID` as it is (see `bua tabs`) instead of opening URL"},
			&cli.StringFlag{Name: "name", Usage: "the flow's `NAME` (default: the first page's title)"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.URL, o.Tab, o.Output, o.Name = c.Args().First(), c.Int("tab"), c.String("output"), c.String("name")
			switch {
			case c.NArg() > 1:
				return usageError("record takes at most one URL")
			case c.NArg() == 1 && c.IsSet("tab"):
				return usageError("record takes a URL to open or --tab ID to record, not both")
			case c.IsSet("tab") && o.Tab <= 0:
				return usageError("--tab takes a tab ID from `bua tabs`")
			case o.Output == "":
				return usageError("record needs -o FILE, the flow to write (e.g. -o flows/signin.yaml)")
			}
			if err := flowwriter.CheckPath(o.Output); err != nil {
				return usageError("-o: " + err.Error())
			}
			return runWith(o, runF, runRecord)
		},
	}
}

// runRecord runs one recording and writes its flow to o.Output.
func runRecord(o *recordOptions) error {
	cl, err := o.connect()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	if berr := o.recordBrowser(cl); berr != nil {
		return o.failWith(berr)
	}
	tab, berr := o.recordTab(cl)
	if berr != nil {
		return o.failWith(berr)
	}
	s, berr := recording.Start(o.ctx, cl, tab)
	if berr != nil {
		return o.failWith(berr)
	}
	if quiet := o.Quiet || o.JSON; !quiet {
		fmt.Fprintf(o.env.Stderr, "bua record: recording tab %d (%s): act in the browser, then press Ctrl-C here, or Stop in the extension's popup, to write %s\n", tab, s.Started.URL, o.Output)
		fmt.Fprintf(o.env.Stderr, "bua record: Alt+Shift+click a text to check it shows; the popup adds checks of the URL and the title\n")
		s.OnStep = func(st protocol.RecordedStep) {
			if line := recording.Describe(st); line != "" {
				fmt.Fprintf(o.env.Stderr, "  %d. %s\n", st.Seq, line)
			}
		}
	}
	s.OnDropped = func(n int) {
		fmt.Fprintf(o.env.Stderr, "bua record: %d steps were lost: the extension holds at most 2000 unread\n", n)
	}
	steps, reason, cerr := s.Collect(o.ctx)
	if cerr != nil {
		fmt.Fprintf(o.env.Stderr, "bua record: the recording broke off (%s): writing the %d steps read so far\n", cerr.Message, len(steps))
	}
	code := o.saveRecorded(steps, reason)
	if cerr != nil && code == exitOK {
		code = exitFailure
	}
	return exit(code)
}

// recordBrowser makes sure a browser the person can see serves the
// recording: their own Chrome when it is paired and connected, else the
// managed browser, launched with a window when there is a display. A
// headless one is said to be for tests: nobody can act in it.
func (o *recordOptions) recordBrowser(cl *bridge.Client) *protocol.Error {
	ctx, cancel := o.linkContext()
	defer cancel()
	sel, _ := bridge.ParseSelection(o.Browser)
	st, err := cl.Status(ctx)
	if err != nil {
		return err
	}
	user := slices.ContainsFunc(st.Connections, func(cs bridge.ConnStatus) bool { return cs.Kind == bridge.KindUser })
	d, derr := dirs(o.env)
	managed := bridge.IsManaged(string(sel))
	if !managed && (user || derr != nil || bridge.LaunchPolicyFor(sel, o.env.Getenv, d) != bridge.LaunchAtOnce) {
		return nil // the person's Chrome, or the request says why it is not there
	}
	name := string(bridge.SelectManaged) // what auto launches
	if managed {
		name = string(sel) // managed, or managed-N
	}
	ms, running := managedStatus(st, name)
	if !running {
		var err *protocol.Error
		if ms, err = cl.BrowserStart(ctx, name, bridge.BrowserOptions{Headless: !hasDisplay(o.env.Getenv)}); err != nil {
			return err
		}
	}
	if ms.Options.Headless && !o.Quiet {
		fmt.Fprintln(o.env.Stderr, "bua record: the managed browser runs headless, so nobody can see the page to act on it: a recording there is for tests that drive the page through DevTools.\n"+
			"  To record yourself: pair your Chrome (`bua pair`), or run a visible managed browser (`bua browser stop`, then `bua browser start` where there is a display).")
	}
	return nil
}

// managedStatus is the managed browser name's status in st (managed, or
// managed-N), and whether it runs.
func managedStatus(st bridge.Status, name string) (bridge.ManagedStatus, bool) {
	if name == string(bridge.SelectManaged) {
		return st.Managed, st.Managed.Running
	}
	for _, m := range st.ManagedBrowsers {
		if m.Name == name {
			return m, m.Running
		}
	}
	return bridge.ManagedStatus{}, false
}

// hasDisplay says whether a browser window could show: on Linux, DISPLAY
// or WAYLAND_DISPLAY is set; elsewhere there is always one.
func hasDisplay(getenv func(string) string) bool {
	return runtime.GOOS != "linux" || getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// recordTab is the tab to record: --tab's, or a new focused one at URL.
func (o *recordOptions) recordTab(cl *bridge.Client) (int, *protocol.Error) {
	if o.Tab > 0 {
		return o.Tab, nil
	}
	url := cmp.Or(o.URL, "about:blank")
	ctx, cancel := o.commandContext()
	defer cancel()
	raw, err := cl.Request(ctx, protocol.OpenTab(url, true))
	if err != nil {
		return 0, err
	}
	var r protocol.OpenTabResult
	if jerr := json.Unmarshal(raw, &r); jerr != nil {
		return 0, protocol.Errorf(protocol.CodeInternalError, "open_tab answered %s: %v", raw, jerr)
	}
	return r.TabID, nil
}

// saveRecorded writes the steps as a flow at out and says what it wrote
// (--json: as one object on stdout). It returns the exit code: 0 when the
// flow was written (or there was nothing to write), 1 when it could not
// be and went to the temp folder instead.
func (o *recordOptions) saveRecorded(steps []protocol.RecordedStep, reason protocol.RecordEndReason) int {
	env, out := o.env, o.Output
	h := flowwriter.Header{MadeBy: "bua record", Command: o.commandLine(), Time: env.Now(), Name: o.Name}
	f, err := flowwriter.Compile(h, recording.Entries(steps))
	if f == nil {
		fmt.Fprintf(env.Stderr, "bua record: %s was not written: %v\n", out, err)
		return exitFailure
	}
	why := endWords(reason)
	if f.Steps == 0 {
		fmt.Fprintf(env.Stderr, "bua record: the recording ended (%s) with nothing to replay: %s was not written\n", why, out)
		return exitOK
	}
	code, where := exitOK, out
	if werr := f.WriteFile(out); werr != nil {
		fmt.Fprintf(env.Stderr, "bua record: %v\n", werr)
		if where = writeTemp(env, "bua record", f.YAML); where == "" {
			return exitFailure
		}
		code = exitFailure
	}
	var inc *flowwriter.IncompleteError
	errors.As(err, &inc)
	if o.JSON {
		_ = printJSON(env, recordReport(where, reason, len(steps), f, inc))
		return code
	}
	fmt.Fprintf(env.Stderr, "bua record: the recording ended (%s): wrote %s, %d steps\n", why, where, f.Steps)
	printReplayAdvice(env, "bua record", where, f, err)
	return code
}

// recordReport is `bua record --json`'s answer.
func recordReport(where string, reason protocol.RecordEndReason, recorded int, f *flowwriter.Flow, inc *flowwriter.IncompleteError) any {
	rep := struct {
		Output   string   `json:"output"`
		Ended    string   `json:"ended"`
		Recorded int      `json:"recorded"`
		Steps    int      `json:"steps"`
		Env      []string `json:"env"`
		Problems []string `json:"problems"`
	}{Output: where, Ended: string(reason), Recorded: recorded, Steps: f.Steps, Env: []string{}, Problems: []string{}}
	for _, v := range f.Env {
		rep.Env = append(rep.Env, v.Name)
	}
	if inc != nil {
		for _, p := range inc.Problems {
			rep.Problems = append(rep.Problems, p.String())
		}
	}
	return rep
}

// endWords says why a recording ended, for a person.
func endWords(reason protocol.RecordEndReason) string {
	switch reason {
	case protocol.RecordStopped:
		return "Ctrl-C"
	case protocol.RecordUserStopped:
		return "Stop in the extension's popup"
	case protocol.RecordTabClosed:
		return "its tab closed"
	case protocol.RecordSessionEnded:
		return "bua's session on its tab ended"
	case "":
		return "broken off"
	}
	return string(reason)
}

// recordCommandLine is the command as the flow's header gives it.
func (o *recordOptions) commandLine() string {
	words := []string{"bua", "record"}
	if o.Browser != "" && o.Browser != "auto" {
		words = append(words, "--browser", o.Browser)
	}
	if o.Tab > 0 {
		words = append(words, "--tab", strconv.Itoa(o.Tab))
	} else if o.URL != "" {
		words = append(words, shellWord(o.URL))
	}
	return strings.Join(append(words, "-o", shellWord(o.Output)), " ")
}
