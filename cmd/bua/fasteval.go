package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// fastEvalEnabled lets tests send the same command line through the full
// CLI, to prove the two paths answer alike.
var fastEvalEnabled = true

// parseFastEval recognises the plain one-shot eval that agents run most,
// `bua eval EXPR` with at most a `--tab N` (or `--tab=N`) before or after
// EXPR, and returns its parts. Anything else (another flag, `-` for stdin,
// a flag-like EXPR, a malformed tab) is not ok and goes through the full
// CLI, which parses, refuses and explains it.
func parseFastEval(args []string) (expr string, tab int, hasTab, ok bool) {
	if len(args) < 3 || (args[1] != "eval" && args[1] != "evaluate") {
		return "", 0, false, false
	}
	var exprs []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--tab" && i+1 < len(args) && !hasTab:
			i++
			a = "--tab=" + args[i]
			fallthrough
		case strings.HasPrefix(a, "--tab=") && !hasTab:
			n, err := strconv.Atoi(strings.TrimPrefix(a, "--tab="))
			if err != nil {
				return "", 0, false, false
			}
			tab, hasTab = n, true
		case strings.HasPrefix(a, "-"):
			return "", 0, false, false
		default:
			exprs = append(exprs, a)
		}
	}
	if len(exprs) != 1 {
		return "", 0, false, false
	}
	return exprs[0], tab, hasTab, true
}

// fastEval runs a plain one-shot eval (parseFastEval) without building the
// urfave/cli app of every command: that build and its parse were ~0.6–0.8
// ms of a ~5 ms `bua eval` on the development machine (BENCHMARKS.md
// §One-shot eval and the warm flow, this round). It prints, fails and exits
// as runAction does for `bua eval`; ok is false when args are not that
// plain form, and then nothing has been done.
func fastEval(ctx context.Context, args []string, env *Env) (code int, ok bool) {
	if !fastEvalEnabled {
		return 0, false
	}
	expr, tab, hasTab, ok := parseFastEval(args)
	if !ok {
		return 0, false
	}
	d, err := dirs(env)
	if err != nil {
		return 0, false // the full CLI says what is wrong with BUA_HOME
	}
	a := protocol.Evaluate(expr)
	if hasTab {
		a = a.OnTab(tab)
	}
	fail := func(be *protocol.Error) int {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			fmt.Fprintln(env.Stderr, "bua: interrupted: the browser stops the action this command started")
			return exitInterrupted
		}
		printBridgeError(env, be, false)
		return exitForCode(be.Code)
	}
	cl, berr := bridge.Dial(ctx, bridge.ClientOptions{Dirs: d, AutoStart: env.AutoStart, Browser: bridge.SelectAuto, Env: os.Environ()})
	if berr != nil {
		return fail(berr), true
	}
	defer cl.Close()
	res, berr := cl.Request(ctx, a)
	if berr != nil && berr.Reason == protocol.ReasonRefused {
		printBridgeError(env, berr, false)
		return exitUsage, true // the daemon refused it before sending
	}
	if berr != nil {
		return fail(berr), true
	}
	if err := printEvalResult(env, res); err != nil {
		fmt.Fprintf(env.Stderr, "bua: %v\n", err)
		return exitUsage, true
	}
	return 0, true
}
