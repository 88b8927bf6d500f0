package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// The tab commands: tabs, open and close (the extension's actions/tabs.js).

func init() {
	register(func(env *Env) *cli.Command { return newTabsCommand(env, nil) }, "tabs")
	register(func(env *Env) *cli.Command { return newOpenCommand(env, nil) }, "open")
	register(func(env *Env) *cli.Command { return newCloseCommand(env, nil) }, "close")
}

// tabsOptions is `bua tabs`'s command line: the global flags alone (it
// has no --tab).
type tabsOptions struct {
	actionOptions
}

func newTabsCommand(env *Env, runF func(*tabsOptions) error) *cli.Command {
	o := &tabsOptions{}
	return &cli.Command{
		Name: "tabs", Category: catActions, Usage: "list tabs of every connected browser, or of --browser NAME's (blocklisted domains are hidden)",
		Action: func(c *cli.Context) error {
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runTabs)
		},
	}
}

// browserTab is one row of `bua tabs`: a tab as get_tabs answers it (its
// fields kept as they came, for --json) and the browser it is in.
type browserTab struct {
	Browser string
	Info    protocol.TabInfo
	Fields  map[string]json.RawMessage
}

// runTabs lists the tabs of every connected browser (--browser auto, the
// default), each with its browser's name, since several browsers number
// tabs independently; with --browser NAME, that browser's alone. With no
// browser connected, auto asks as any action does (which may launch the
// managed browser).
func runTabs(o *tabsOptions) error {
	cl, err := o.connectToAct()
	if err != nil {
		return o.fail(err)
	}
	defer cl.Close()
	ctx, cancel := o.commandContext()
	defer cancel()
	rows, err := o.tabRows(ctx, cl)
	if err != nil {
		return err
	}
	return o.printTabs(rows)
}

// printTabs prints rows: as JSON, ids only (--quiet), or a table.
func (o *tabsOptions) printTabs(rows []browserTab) error {
	ios := o.streams()
	if o.JSON {
		out := make([]map[string]json.RawMessage, len(rows))
		for i, r := range rows {
			out[i] = r.Fields
			out[i]["browser"], _ = json.Marshal(r.Browser)
		}
		return printJSON(o.env, out)
	}
	if ios.Quiet { // ids only, one a line, for xargs and loops
		for _, r := range rows {
			fmt.Fprintln(ios.Out, r.Info.TabID)
		}
		return nil
	}
	// Each row starts with the tab's handle (t1), what --tab and close
	// take, then its id. The browser column only when the tabs come from
	// several browsers: with one, the rows keep the columns scripts cut
	// (tab, id, domain, title, url).
	several := false
	for _, r := range rows {
		several = several || r.Browser != rows[0].Browser
	}
	cols := []string{"tab", "id", "domain", "title", "url"}
	if several {
		cols = slices.Insert(cols, 2, "browser")
	}
	tb := ios.NewTable(cols...)
	for _, r := range rows {
		handle := r.Info.Handle
		if handle == "" {
			handle = "-" // not from this daemon's answer; the id still works
		}
		row := []string{handle, strconv.Itoa(r.Info.TabID), r.Info.Domain, r.Info.Title, r.Info.URL}
		if several {
			row = slices.Insert(row, 2, r.Browser)
		}
		tb.AddRow(row...)
	}
	return tb.Render()
}

// tabRows asks each browser --browser picks (every connected one for
// auto) for its tabs; a failure is the command's, printed.
func (o *tabsOptions) tabRows(ctx context.Context, cl *bridge.Client) ([]browserTab, error) {
	sel, _ := bridge.ParseSelection(o.Browser) // dial checked it
	browsers := []string{string(sel)}
	if sel == bridge.SelectAuto {
		st, berr := cl.Status(ctx)
		if berr != nil {
			return nil, o.failWith(berr)
		}
		browsers = browsers[:0]
		for _, cn := range st.Connections {
			browsers = append(browsers, cn.Browser)
		}
		if len(browsers) == 0 {
			browsers = []string{string(bridge.SelectAuto)}
		}
	}
	var rows []browserTab
	for _, name := range browsers {
		res, berr := cl.RequestOn(ctx, bridge.Selection(name), protocol.GetTabs())
		if berr != nil {
			return nil, o.failWith(berr)
		}
		if name == string(bridge.SelectAuto) {
			name = servedAuto(ctx, cl)
		}
		var infos []protocol.TabInfo
		var fields []map[string]json.RawMessage
		if err := json.Unmarshal(res, &infos); err != nil {
			return nil, err
		}
		_ = json.Unmarshal(res, &fields)
		for i, t := range infos {
			rows = append(rows, browserTab{Browser: name, Info: t, Fields: fields[i]})
		}
	}
	return rows, nil
}

// servedAuto is the browser that served an auto request: the person's
// Chrome when it is connected, else the managed browser (the pool's auto).
func servedAuto(ctx context.Context, cl *bridge.Client) string {
	st, err := cl.Status(ctx)
	if err != nil {
		return string(bridge.SelectAuto)
	}
	for _, cn := range st.Connections {
		if cn.Browser == string(bridge.SelectUser) {
			return cn.Browser
		}
	}
	return string(bridge.SelectManaged)
}

// openOptions is `bua open`'s command line.
type openOptions struct {
	loadOptions
	URL   string
	Focus bool
}

func newOpenCommand(env *Env, runF func(*openOptions) error) *cli.Command {
	o := &openOptions{}
	return &cli.Command{
		Name: "open", Category: catActions, ArgsUsage: "URL",
		Usage: "open URL in a new tab in the minimized BUA window and print its tab id",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "focus", Usage: "open in a normal, focused window instead"}, waitUntilFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("open takes one URL")
			}
			o.URL, o.Focus = c.Args().First(), c.Bool("focus")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runOpen)
		},
	}
}

func runOpen(o *openOptions) error {
	return o.load(protocol.OpenTab(o.URL, o.Focus), func(res json.RawMessage) error {
		var r protocol.OpenTabResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		fmt.Fprintln(o.env.Stdout, r.TabID)
		return nil
	})
}

// closeOptions is `bua close`'s command line: the tab to close is Tab (an
// id) or TabHandle (t2), as --tab takes them.
type closeOptions struct {
	actionOptions
}

func newCloseCommand(env *Env, runF func(*closeOptions) error) *cli.Command {
	o := &closeOptions{}
	return &cli.Command{
		Name: "close", Category: catActions, ArgsUsage: "TAB", Usage: "close a tab, named by its handle (t2) or id (see `bua tabs`)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("close takes one TAB: a handle like t2, or a tab id (see `bua tabs`)")
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			id, handle, err := parseTab(c.Args().First())
			if err != nil {
				return usageError(fmt.Sprintf("close %q: want a tab handle like t2 or a tab id, as `bua tabs` lists them", c.Args().First()))
			}
			o.Tab, o.TabHandle = id, handle
			return runWith(o, runF, runClose)
		},
	}
}

// runClose sends close_tab: on the tab id, or with no tabId and the
// handle, which the daemon turns into its tab's id.
func runClose(o *closeOptions) error {
	return o.runAction(protocol.Action{Type: protocol.ActionCloseTab}, o.printOK("closed"))
}
