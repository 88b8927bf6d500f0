package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/internal/exclusive"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/mcpserver"
)

// `bua mcp --port N` (docs/mcp.md#over-http): the same server over MCP's
// streamable HTTP transport on 127.0.0.1, for agents that run apart from
// their tools or share one server. pkg/mcpserver's HTTPHandler checks
// Host, Origin and the bearer token; this file keeps the token, listens,
// and gives each session an agent of its own (agentRequester with its own
// owner id), whose tabs close (unless --keep-tabs) and whose link closes
// when the session ends.

// mcpSessionTimeout is --session-timeout's default: an agent's session
// with no request for this long ends, and its tabs with it; an MCP client
// starts a new one when it next calls (the server answers 404 for the old).
const mcpSessionTimeout = time.Hour

// checkHTTPFlags checks --port and the flags that go with it.
func checkHTTPFlags(c *cli.Context) error {
	if !c.IsSet("port") {
		for _, f := range []string{"rotate-token", "session-timeout"} {
			if c.IsSet(f) {
				return usageError("--" + f + " goes with --port N (MCP over HTTP); the stdio server has no token and one session")
			}
		}
		return nil
	}
	if p := c.Int("port"); p < 0 || p > 65535 {
		return usageError(fmt.Sprintf("--port %d is not a TCP port: give 1-65535, or 0 for a free one", p))
	}
	if c.IsSet("record") {
		return usageError("--record and --port do not go together: a flow is one agent's work, and each HTTP session is an agent of its own; record with a stdio server (`bua mcp --record FILE`)")
	}
	if c.Duration("session-timeout") < 0 {
		return usageError("--session-timeout must be 0 (never) or more")
	}
	return nil
}

// serveMCPHTTP serves MCP over streamable HTTP on 127.0.0.1:--port until
// Ctrl-C or SIGTERM; agent makes each session's link and options.
func (o *mcpOptions) serveHTTP(d home.Dirs, log *slog.Logger, agent func() (*bridge.Requester, mcpserver.Options)) error {
	env := o.env
	if err := d.Ensure(); err != nil {
		return cli.Exit("bua: "+err.Error(), exitUnavailable)
	}
	tokenFile := d.MCPTokenFile()
	token, err := mcpToken(tokenFile, o.RotateToken, log)
	if err != nil {
		return cli.Exit("bua mcp: "+err.Error(), exitUnavailable)
	}
	ctx := o.ctx
	// Loopback only, and no other process may bind the port beside this
	// one (SO_EXCLUSIVEADDRUSE on Windows).
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port))
	ln, err := exclusive.Listen(ctx, "tcp", addr)
	if err != nil {
		return cli.Exit("bua mcp: "+listenFailure(addr, o.Port, err), exitUnavailable)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	h, err := mcpserver.NewHTTP(mcpserver.HTTPOptions{
		Token: token, Port: port, SessionTimeout: o.SessionTimeout, Log: log,
		Session: func() (*mcpserver.Server, func(), error) {
			link, so := agent()
			srv, err := mcpserver.New(so)
			if err != nil {
				return nil, nil, err
			}
			end := func() {
				if !o.KeepTabs {
					closeTabs(link, srv) // a session is an agent: its tabs go with it
				}
				link.Close()
			}
			return srv, end, nil
		},
	})
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, mcpserver.HTTPPath)
	if o.Quiet {
		// For a supervisor that keeps stderr in a log: no token there.
		fmt.Fprintf(env.Stderr, "bua mcp: serving MCP (streamable HTTP) at %s; the bearer token is in %s\n", url, tokenFile)
	} else {
		printHTTPSetup(env, url, token, tokenFile)
	}
	log.Info("bua mcp serving on http", "url", url, "browser", o.Browser, "readOnly", o.ReadOnly, "sessionTimeout", o.SessionTimeout)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var failed error
	select {
	case <-ctx.Done():
	case failed = <-served:
	}
	// The sessions first: their event streams would hold Shutdown.
	h.Close()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	_ = srv.Close()
	if failed != nil && !errors.Is(failed, http.ErrServerClosed) {
		return cli.Exit("bua mcp: the HTTP server stopped: "+failed.Error(), exitUnavailable)
	}
	log.Info("bua mcp stopped")
	return nil // Ctrl-C or SIGTERM
}

// mcpToken is --port's bearer token, kept in path: the one there when the
// file is private to the user and holds one; a new one when it is missing,
// holds no token, or rotate. A file others may read is refused, naming the
// fix: its token may be known.
func mcpToken(path string, rotate bool, log *slog.Logger) (string, error) {
	if !rotate {
		switch err := home.CheckPrivate(path); {
		case err == nil:
			if tok, rerr := bridge.ReadToken(path); rerr == nil && tok != "" {
				return tok, nil
			}
			// Never its content in the log: it may be most of a token.
			log.Warn("the MCP token file held no token: a new one replaces it", "path", path)
		case home.IsNotExist(err):
		default:
			return "", fmt.Errorf("the token file is not private, so others may know the token: %w; or run with --rotate-token, which writes a new one (give your MCP clients the new one)", err)
		}
	}
	tok := bridge.NewToken()
	if err := home.WriteFile(path, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("write the token: %w", err)
	}
	if err := home.CheckPrivate(path); err != nil {
		return "", err
	}
	return tok, nil
}

// listenFailure says why --port could not be listened on.
func listenFailure(addr string, port int, err error) string {
	if bridge.AddrInUse(err) {
		holder := "another program"
		if o := home.PortOwner(port); o != "" {
			holder = o
		}
		return fmt.Sprintf("cannot listen on %s: the port is taken by %s: pick another --port, or 0 for a free one", addr, holder)
	}
	return fmt.Sprintf("cannot listen on %s: %v", addr, err)
}

// printHTTPSetup tells the person, once, on stderr, where the server is
// and what a client needs: the URL and the Authorization header, as
// Claude Code's command and as the JSON other clients take. The token is
// never logged.
func printHTTPSetup(env *Env, url, token, tokenFile string) {
	header := "Authorization: Bearer " + token
	fmt.Fprintf(env.Stderr, "bua mcp: serving MCP (streamable HTTP) at %s, on this machine only\n", url)
	fmt.Fprintf(env.Stderr, "bua mcp: every request must carry the header %q\n", header)
	fmt.Fprintf(env.Stderr, "bua mcp: the token is kept in %s, readable by you alone; --rotate-token replaces it\n", tokenFile)
	fmt.Fprintf(env.Stderr, "Claude Code:\n  claude mcp add --transport http bua %s --header %q\n", url, header)
	fmt.Fprintf(env.Stderr, "Cursor (.cursor/mcp.json) and others; VS Code (.vscode/mcp.json) names the key \"servers\" and adds \"type\": \"http\":\n")
	fmt.Fprintf(env.Stderr, "  {\"mcpServers\": {\"bua\": {\"url\": %q, \"headers\": {\"Authorization\": %q}}}}\n", url, "Bearer "+token)
}
