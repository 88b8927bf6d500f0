package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/mcpserver"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(func(env *Env) *cli.Command { return newMCPCommand(env, nil) }, "mcp")
}

// mcpOptions is `bua mcp`'s command line, checked: the flags that go
// together do (checkRecord, checkHTTPFlags).
type mcpOptions struct {
	globalOptions
	// Allow and Block are --allow's and --block's domains (domains).
	Allow, Block []string
	ReadOnly     bool
	// Headless is --headless; HeadlessSet says it was given, which makes
	// the server launch the managed browser itself (agentRequester).
	Headless, HeadlessSet bool
	KeepTabs              bool
	// Record is --record's FILE ("" for none), and RecordCommand the
	// command line its flow's header names (recordCommand).
	Record, RecordCommand string
	// HTTP says --port was given: Port (0 for a free one) serves MCP over
	// streamable HTTP, with RotateToken and SessionTimeout.
	HTTP           bool
	Port           int
	RotateToken    bool
	SessionTimeout time.Duration
}

func newMCPCommand(env *Env, runF func(*mcpOptions) error) *cli.Command {
	o := &mcpOptions{}
	cmd := &cli.Command{
		Name: "mcp", Category: catSetup,
		Usage: "serve the browser to an AI agent: an MCP server with one tool, browser, on stdin/stdout (or HTTP: --port)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "allow", Usage: "act only on `DOMAIN` and its subdomains (repeat for more)"},
			&cli.StringSliceFlag{Name: "block", Usage: "never act on `DOMAIN` or its subdomains, on top of your blocklist (repeat for more)"},
			&cli.BoolFlag{Name: "read-only", Usage: "offer only the actions that read: extract, screenshot, get_tabs, wait_for, get_trace, describe"},
			&cli.BoolFlag{Name: "headless", Usage: "launch the managed browser headless (with --browser managed or managed-N, or when none is paired)"},
			&cli.BoolFlag{Name: "keep-tabs", Usage: "leave the tabs the agent opened open when it ends (by default they are closed: the stdio client hung up, or the HTTP session ended)"},
			&cli.StringFlag{Name: "record", Usage: "when the server exits, write the agent's successful actions to `FILE` as a flow that `bua run` replays"},
			&cli.IntFlag{Name: "port", Usage: "serve MCP over streamable HTTP on 127.0.0.1:`N` instead of stdio, each request with the bearer token printed at start (0: a free port)"},
			&cli.BoolFlag{Name: "rotate-token", Usage: "with --port, replace the bearer token with a new one (clients need the new one)"},
			&cli.DurationFlag{Name: "session-timeout", Value: mcpSessionTimeout, Usage: "with --port, end an agent's session after `DURATION` without a request, closing its tabs (0: never)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError("mcp takes no arguments: an MCP client starts it, e.g. `claude mcp add bua -- bua mcp`")
			}
			var err error
			if o.Allow, err = domains(c, "allow"); err != nil {
				return err
			}
			if o.Block, err = domains(c, "block"); err != nil {
				return err
			}
			if err := checkRecord(c); err != nil {
				return err
			}
			if err := checkHTTPFlags(c); err != nil {
				return err
			}
			o.globalOptions = readGlobals(c, env)
			o.ReadOnly, o.KeepTabs = c.Bool("read-only"), c.Bool("keep-tabs")
			o.Headless, o.HeadlessSet = c.Bool("headless"), c.IsSet("headless")
			if o.Record = c.String("record"); c.IsSet("record") {
				o.RecordCommand = recordCommand(c)
			}
			o.HTTP, o.Port, o.RotateToken, o.SessionTimeout = c.IsSet("port"), c.Int("port"), c.Bool("rotate-token"), c.Duration("session-timeout")
			return runWith(o, runF, runMCP)
		},
	}
	cmd.Description = "An MCP client (Claude Code, Cursor, VS Code) starts `bua mcp` and speaks\n" +
		"JSON-RPC on its stdin and stdout; logs go to stderr. It uses the same daemon,\n" +
		"and the same --browser choice, as every command: your paired Chrome, a Chrome\n" +
		"paired by name (--browser work), or a managed Chromium; --browser managed-1\n" +
		"(… managed-15) gives an agent a managed browser of its own, with its own\n" +
		"profile, which no other agent shares. Each `bua mcp` is one agent with tabs\n" +
		"of its own: its actions with no tabId go to its own current tab, and it may\n" +
		"not act on a tab another agent holds. --allow and --block bound where it may\n" +
		"act (checked on navigate's URL and on the tab's URL before each action); a\n" +
		"refused call is an error with code domain_blocked. The tabs the agent opened\n" +
		"are closed when it ends, unless --keep-tabs. --record FILE writes what\n" +
		"the agent did as a flow when the server exits (docs/record.md).\n" +
		"--port N serves MCP's streamable HTTP transport on http://127.0.0.1:N/mcp\n" +
		"instead, for agents that run apart from their tools or share one server:\n" +
		"loopback only; every request carries the bearer token kept in the config\n" +
		"dir's mcp-token (printed at start, with the client's config); each session\n" +
		"is one agent with tabs of its own. See docs/mcp.md."
	return cmd
}

// domains reads a repeatable --allow or --block, one domain each (a URL's
// host is taken as its domain).
func domains(c *cli.Context, flag string) ([]string, error) {
	var out []string
	for _, v := range c.StringSlice(flag) {
		d := mcpserver.NormalizeDomain(v)
		if d == "" {
			return nil, usageError(fmt.Sprintf("--%s %q names no domain: give one like example.com", flag, v))
		}
		out = append(out, d)
	}
	return out, nil
}

func runMCP(o *mcpOptions) error {
	env := o.env
	d, err := dirs(env)
	if err != nil {
		return cli.Exit("bua: "+err.Error(), exitUnavailable)
	}
	sel, err := bridge.ParseSelection(o.Browser)
	if err != nil {
		return usageError(err.Error())
	}
	// Logs go to stderr: stdout carries JSON-RPC only.
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	root, _ := os.Getwd()
	// agent is one agent's link to the daemon and its server's options:
	// the stdio server's one, or each HTTP session's.
	agent := func() (*bridge.Requester, mcpserver.Options) {
		link := o.agentRequester(d, sel)
		return link, mcpserver.Options{
			Requester: link, ReadOnly: o.ReadOnly, Allow: o.Allow, Block: o.Block, Root: root,
			HandoffGate: bridge.HandoffGate(env.Getenv, sel, link.Status),
			Version:     version, Log: log,
		}
	}
	if o.HTTP {
		return o.serveHTTP(d, log, agent)
	}

	link, so := agent()
	defer link.Close()
	var rec *mcpserver.Log
	if o.Record != "" {
		rec = &mcpserver.Log{}
		so.Recorder = rec
	}
	srv, err := mcpserver.New(so)
	if err != nil {
		return err
	}
	log.Info("bua mcp serving on stdio", "browser", sel, "readOnly", o.ReadOnly, "allow", o.Allow, "block", o.Block)
	if err := srv.Serve(o.ctx, env.Stdin, env.Stdout); err != nil {
		log.Warn("bua mcp ended", "err", err)
	}
	if !o.KeepTabs {
		closeTabs(link, srv)
	}
	if rec != nil {
		return saveRecording(env, log, o.Record, o.RecordCommand, rec.Steps())
	}
	return nil // the client hung up, or Ctrl-C: both end the server
}

// closeTabsTimeout bounds closing an agent's tabs when it ends.
const closeTabsTimeout = 5 * time.Second

// closeTabs closes the tabs srv's agent opened, now that it ended, over
// its link as it is: a daemon that went away is not dialled again (nor
// started) for it. It ends the link's dialling for good.
func closeTabs(link *bridge.Requester, srv *mcpserver.Server) {
	link.StopDialing()
	ctx, cancel := context.WithTimeout(context.Background(), closeTabsTimeout)
	defer cancel()
	srv.CloseTabs(ctx)
}

// newOwnerID is this server's owner id on the daemon's link: random, so
// two agents never share tabs by accident.
func newOwnerID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "mcp-" + hex.EncodeToString(b)
}

// agentRequester is one agent's link to the daemon, under an owner id of
// its own (the stdio server's one, or each HTTP session's): it dials on
// the first call (so tools/list answers at once), and again after the
// daemon went away (bridge.RequesterOptions.Redial). The server checks
// each action it decodes (protocol.ActionFrom): the link sends them as
// checked.
func (o *mcpOptions) agentRequester(d home.Dirs, sel bridge.Selection) *bridge.Requester {
	env := o.env
	co := bridge.ClientOptions{
		Dirs: d, AutoStart: env.AutoStart, Browser: sel, Env: os.Environ(), Prelaunch: true, Owner: newOwnerID(), Checked: true,
	}
	ro := bridge.RequesterOptions{Redial: true, Browser: sel, Dial: func(ctx context.Context) (bridge.Link, *protocol.Error) {
		return env.dial(ctx, co)
	}}
	if bridge.IsManaged(string(sel)) || o.HeadlessSet {
		// This server launches the managed browser itself, headful
		// unless --headless, so a daemon it starts must not launch a
		// headless one first (a browser that already runs is used as
		// it is).
		ro.Start = &bridge.BrowserOptions{Headless: o.Headless}
		co.Prelaunch = false
	}
	return bridge.NewRequester(ro)
}
