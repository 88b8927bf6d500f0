package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

func init() {
	register(func(env *Env) *cli.Command { return newStopCommand(env, nil) }, "stop")
	register(func(env *Env) *cli.Command { return newStatusCommand(env, nil) }, "status")
	register(func(env *Env) *cli.Command { return newEventsCommand(env, nil) }, "events")
}

// stopOptions is `bua stop`'s command line: the global flags alone.
type stopOptions struct {
	globalOptions
}

func newStopCommand(env *Env, runF func(*stopOptions) error) *cli.Command {
	o := &stopOptions{}
	return &cli.Command{
		Name:     "stop",
		Category: catSetup,
		Usage:    "stop the daemon (and the managed browser)",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, runStop)
		},
	}
}

func runStop(o *stopOptions) error {
	env := o.env
	ctx, cancel := o.linkContext()
	defer cancel()
	cl, err := dialExisting(ctx, env)
	if daemonInDoubt(err) {
		return o.failWith(err) // whether a daemon runs is unknown
	}
	if err != nil {
		if !o.Quiet {
			fmt.Fprintln(env.Stdout, "bua daemon is not running")
		}
		// A killed daemon may have left its browser behind.
		return o.stopOrphan(ctx)
	}
	defer cl.Close()
	if err := cl.StopDaemon(ctx); err != nil {
		return o.failWith(err)
	}
	// Wait for the daemon to finish (its link gone, its lock released
	// once the managed browser has stopped), so a following command starts
	// a fresh daemon rather than racing the old one's shutdown, and no
	// browser outlives `bua stop`.
	d, _ := dirs(env)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(d.Link()); os.IsNotExist(err) && !home.Locked(d.LockFile()) {
			break
		}
		select {
		case <-tick.C:
			continue
		case <-ctx.Done():
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return o.failWith(protocol.Errorf(protocol.CodeInternalError, "aborted by caller"))
		}
		t, _ := protocol.Timeout(ctx)
		return cli.Exit(fmt.Sprintf("bua: the daemon said it is stopping, but it still runs after %s (the command's timeout): its managed browser may take a few seconds more; run `bua status` to see when it is gone", t), exitTimeout)
	}
	if !o.Quiet {
		fmt.Fprintln(env.Stdout, "bua daemon stopped")
	}
	return nil
}

// statusOptions is `bua status`'s command line: the global flags alone.
type statusOptions struct {
	globalOptions
}

func newStatusCommand(env *Env, runF func(*statusOptions) error) *cli.Command {
	o := &statusOptions{}
	return &cli.Command{
		Name:     "status",
		Category: catSetup,
		Usage:    "show the daemon, connected extensions and in-flight requests",
		// Exits 0 when the daemon is up, 4 when it is down; --quiet prints
		// nothing, the exit code being the answer.
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, runStatus)
		},
	}
}

func runStatus(o *statusOptions) error {
	env := o.env
	quiet := o.Quiet && !o.JSON
	ctx, cancel := o.linkContext()
	defer cancel()
	cl, berr := dialExisting(ctx, env)
	if daemonInDoubt(berr) {
		return o.failWith(berr) // whether a daemon runs is unknown
	}
	if berr != nil {
		var orphan bridge.ManagedStatus
		orphans := []bridge.ManagedStatus{}
		if d, err := dirs(env); err == nil {
			orphan, orphans = bridge.OrphanStatus(d), bridge.Orphans(d)
		}
		if o.JSON {
			if err := printJSON(env, map[string]any{"daemon": "down", "managed": orphan, "managedBrowsers": orphans}); err != nil {
				return err
			}
			return exit(exitUnavailable)
		}
		if !quiet {
			fmt.Fprintln(env.Stdout, "daemon: down (any action command starts it; or run `bua serve`)")
			for _, m := range orphans {
				printManaged(env, m)
			}
		}
		return exit(exitUnavailable)
	}
	defer cl.Close()
	st, berr := cl.Status(ctx)
	if berr != nil {
		return o.failWith(berr)
	}
	if o.JSON {
		return printJSON(env, st)
	}
	if quiet {
		return nil
	}
	w := env.Stdout
	fmt.Fprintf(w, "daemon:     up (pid %d, version %s, uptime %s)\n", st.PID, st.Version, st.Uptime)
	fmt.Fprintf(w, "listen:     %s\n", st.URL)
	fmt.Fprintf(w, "paired:     %s\n", yesNo(st.UserPaired, "user token set", "no user pairing (run `bua pair`)"))
	if len(st.Pairings) > 0 {
		fmt.Fprintf(w, "named:      %s (--browser NAME)\n", strings.Join(st.Pairings, ", "))
	}
	if len(st.ManagedBrowsers) == 0 {
		printManaged(env, st.Managed)
	}
	for _, m := range st.ManagedBrowsers {
		printManaged(env, m)
	}
	if st.Held > 0 {
		fmt.Fprintf(w, "in flight:  %d (%d waiting for their extension to reconnect)\n", st.InFlight, st.Held)
	} else {
		fmt.Fprintf(w, "in flight:  %d\n", st.InFlight)
	}
	fmt.Fprintf(w, "runtime:    %d goroutines, heap %.1f MB, %s\n", st.Runtime.Goroutines, float64(st.Runtime.HeapInUseBytes)/(1<<20), fdCount(st.Runtime.OpenFDs))
	for name, at := range st.Replaced {
		fmt.Fprintf(w, "replaced:   the %s extension at %s (it does not reconnect by itself: see `bua doctor`)\n", name, at.Format(time.TimeOnly))
	}
	if len(st.Connections) == 0 {
		fmt.Fprintln(w, "extensions: none connected")
		return nil
	}
	tb := o.streams().NewTable("browser", "kind", "client", "protocol", "caps", "last seen", "in flight")
	for _, cn := range st.Connections {
		caps := ""
		if cn.Caps != nil {
			caps = fmt.Sprintf("%d actions", len(cn.Caps.Actions))
			if len(cn.Caps.Features) > 0 {
				caps += ", " + strings.Join(cn.Caps.Features, " ")
			}
		}
		tb.AddRow(cn.Browser, string(cn.Kind), cn.ClientVersion, fmt.Sprint(cn.ProtocolVersion), caps, time.Since(cn.LastSeen).Round(time.Second).String()+" ago", fmt.Sprint(cn.InFlight))
	}
	return tb.Render()
}

// printManaged is status's line for a managed browser: "managed:", or
// its own name (managed-1:) for the others.
func printManaged(env *Env, m bridge.ManagedStatus) {
	if m.RecordError != "" {
		fmt.Fprintf(env.Stdout, "record:     %s: `bua browser stop` moves it aside and stops the browser found by its profile\n", m.RecordError)
	}
	label := "managed:"
	if m.Name != "" && m.Name != string(bridge.SelectManaged) {
		label = m.Name + ":"
	}
	switch {
	case m.Orphan && m.RecordError != "":
		fmt.Fprintf(env.Stdout, "%-11s orphan (pid %d, profile %s), found by its profile: left running by a daemon that is gone; `bua browser stop` stops it\n", label, m.PID, m.Profile)
	case m.Orphan:
		fmt.Fprintf(env.Stdout, "%-11s orphan (pid %d, profile %s): left running by a daemon that is gone; `bua browser stop` stops it\n", label, m.PID, m.Profile)
	case m.Running:
		fmt.Fprintf(env.Stdout, "%-11s running (pid %d, headless %v)\n", label, m.PID, m.Options.Headless)
	default:
		fmt.Fprintf(env.Stdout, "%-11s not running\n", label)
	}
}

// fdCount reads RuntimeStats.OpenFDs: -1 means the system does not say.
func fdCount(n int) string {
	if n < 0 {
		return "open fds unknown"
	}
	return fmt.Sprintf("%d open fds", n)
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// eventsOptions is `bua events`'s command line.
type eventsOptions struct {
	globalOptions
	// Follow is --follow: stream new events after the log.
	Follow bool
}

func newEventsCommand(env *Env, runF func(*eventsOptions) error) *cli.Command {
	o := &eventsOptions{}
	return &cli.Command{
		Name:     "events",
		Category: catSetup,
		Usage:    "print the extension's event log; --follow streams new events",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep streaming events as they arrive"},
		},
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Follow = c.Bool("follow")
			return runWith(o, runF, runEvents)
		},
	}
}

func runEvents(o *eventsOptions) error {
	env := o.env
	d, err := dirs(env)
	if err != nil {
		return err
	}
	printRec := func(line []byte) {
		if o.JSON {
			fmt.Fprintln(env.Stdout, string(line))
			return
		}
		var rec bridge.EventRecord
		if json.Unmarshal(line, &rec) != nil {
			return
		}
		fmt.Fprintf(env.Stdout, "%s  %-8s %-16s %s\n", rec.Time.Local().Format("2006-01-02 15:04:05"), rec.Kind, rec.Event.Type, eventDetail(rec.Event))
	}
	printLog := func() {
		f, err := os.Open(d.EventLog())
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			printRec(sc.Bytes())
		}
	}
	if !o.Follow {
		printLog()
		return nil
	}
	cl, berr := o.connect()
	if berr != nil {
		return o.fail(berr)
	}
	defer cl.Close()
	// --timeout bounds the follow: it ends at the deadline as at
	// Ctrl-C, exit 0, as `bua trace --follow` does.
	ctx, cancel := o.commandContext()
	defer cancel()
	ferr := cl.Follow(ctx, printLog, func(rec bridge.EventRecord) {
		line, _ := json.Marshal(rec)
		printRec(line)
	})
	if ferr != nil {
		return o.failWith(ferr)
	}
	return nil
}

// eventDetail prints an event's fields but its type, compactly.
func eventDetail(ev protocol.Event) string {
	var m map[string]any
	if json.Unmarshal(ev.Raw, &m) != nil {
		return ""
	}
	delete(m, "type")
	b, _ := json.Marshal(m)
	return string(b)
}
