package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

func init() {
	register(func(env *Env) *cli.Command { return newServeCommand(env, nil) }, "serve")
}

// serveOptions is `bua serve`'s command line.
type serveOptions struct {
	globalOptions
	// Listen is --listen, else $BUA_LISTEN: the extension's WebSocket
	// address ("" for the default).
	Listen string
	// AllowOrigins are --allow-origin's extra origins.
	AllowOrigins []string
	// Prelaunch is --prelaunch, read: the selection whose managed browser
	// the daemon launches at start where a request's would.
	Prelaunch bridge.Selection
}

func newServeCommand(env *Env, runF func(*serveOptions) error) *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Name:     "serve",
		Category: catSetup,
		Usage:    "run the daemon (other commands start it when it is not running)",
		Description: "Listens on ws://127.0.0.1:48123 (or --listen, or $BUA_LISTEN) for the extension,\n" +
			"and on a private link for CLI commands (a unix socket; on Windows, loopback TCP\n" +
			"with a key only you can read). Logs go to the state dir's daemon.log, which\n" +
			fmt.Sprintf("rotates at %d MiB, keeping %d old files.\n", bridge.LogMaxMiB, bridge.LogBackups) +
			"It stops after an idle hour, or on `bua stop`. It accepts the extension with\n" +
			"the pinned ID (unpacked and managed) and, from the Chrome Web Store or Edge\n" +
			"Add-ons, the IDs listed in $BUA_EXTENSION_IDS (comma-separated).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "WebSocket `ADDR` for the extension (default 127.0.0.1:48123, or $BUA_LISTEN)"},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "also accept this exact `ORIGIN` (chrome-extension://ID); repeatable"},
			// Set by the command that starts the daemon to act at once
			// (bridge.Config.Prelaunch); not for people.
			&cli.StringFlag{Name: "prelaunch", Hidden: true, Usage: "launch the managed browser at start if a request with this --browser `SELECTION` would"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Listen, o.AllowOrigins = c.String("listen"), c.StringSlice("allow-origin")
			if o.Listen == "" {
				o.Listen = env.Getenv("BUA_LISTEN")
			}
			if p := c.String("prelaunch"); p != "" {
				var err error
				if o.Prelaunch, err = bridge.ParseSelection(p); err != nil {
					return usageError(err.Error())
				}
			}
			return runWith(o, runF, runServe)
		},
	}
}

func runServe(o *serveOptions) error {
	env := o.env
	d, err := dirs(env)
	if err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return cli.Exit("bua: "+err.Error(), exitUnavailable)
	}
	logf, err := bridge.OpenLog(d.LogFile())
	if err != nil {
		return err
	}
	defer logf.Close()
	log := slog.New(slog.NewTextHandler(io.MultiWriter(logf, env.Stderr), nil))
	// The store IDs (docs/extension.md#pairing): a bad entry stops
	// the daemon here, in its log too, where a command that started
	// it reads why.
	storeIDs, err := bridge.ParseExtensionIDs(env.Getenv(bridge.EnvExtensionIDs))
	if err != nil {
		bridge.LogFailure(log, err)
		return cli.Exit("bua: "+err.Error(), exitUsage)
	}
	daemon, err := bridge.New(bridge.Config{
		Dirs: d, Listen: o.Listen, StoreExtensionIDs: storeIDs, AllowOrigins: o.AllowOrigins,
		ServerVersion: version, Getenv: env.Getenv, Launch: launchBrowser, Log: log, Prelaunch: o.Prelaunch,
	})
	if err != nil {
		bridge.LogFailure(log, err)
		return cli.Exit("bua: "+err.Error(), exitUsage)
	}
	// --timeout, when given, is how long this daemon serves.
	ctx, cancel := o.commandContext()
	defer cancel()
	err = daemon.Run(ctx, nil)
	if errors.Is(err, home.ErrLocked) {
		return cli.Exit("bua: a daemon is already running for this BUA_HOME: see `bua status`", exitUsage)
	}
	if err != nil {
		// An auto-started daemon has no terminal: the log is where
		// the starting command reads why it stopped.
		bridge.LogFailure(log, err)
		return cli.Exit("bua: "+err.Error(), exitUnavailable)
	}
	return nil
}

// launchBrowser adapts pkg/browser to the daemon's Launcher.
func launchBrowser(ctx context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
	return browser.Launch(ctx, browser.Options{
		Exec: o.Exec, Headless: o.Headless, ProfileDir: o.ProfileDir, ExtensionDir: o.ExtensionDir, DownloadDir: o.DownloadDir, Log: o.Log,
	})
}
