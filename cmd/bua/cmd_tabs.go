package main

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

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
		Name: "tabs", Category: catActions, Usage: "list tabs (blocklisted domains are hidden)",
		Action: func(c *cli.Context) error {
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runTabs)
		},
	}
}

func runTabs(o *tabsOptions) error {
	return o.runAction(protocol.GetTabs(), func(res json.RawMessage) error {
		var tabs []protocol.TabInfo
		if err := json.Unmarshal(res, &tabs); err != nil {
			return err
		}
		ios := o.streams()
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

// closeOptions is `bua close`'s command line.
type closeOptions struct {
	actionOptions
	TabID int
}

func newCloseCommand(env *Env, runF func(*closeOptions) error) *cli.Command {
	o := &closeOptions{}
	return &cli.Command{
		Name: "close", Category: catActions, ArgsUsage: "TABID", Usage: "close a tab",
		Action: func(c *cli.Context) error {
			id, err := strconv.Atoi(c.Args().First())
			if c.NArg() != 1 || err != nil {
				return usageError("close takes one numeric TABID (see `bua tabs`)")
			}
			o.TabID = id
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runClose)
		},
	}
}

func runClose(o *closeOptions) error {
	return o.runAction(protocol.CloseTab(o.TabID), o.printOK("closed"))
}
