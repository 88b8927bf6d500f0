package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/runner"
)

// workerBrowsersStopTimeout bounds stopping the workers' browsers at the
// end of a run: each stops within its SIGTERM grace (5 s) and the kill
// after it, all at once.
const workerBrowsersStopTimeout = 30 * time.Second

// stopLaunchedBrowsers is `bua run --parallel`'s promise to leave no
// browser of its own behind: it notes which of the workers' managed
// browsers (managed, managed-1, …) run before the run, and returns the
// func that, when the run ends (passed, failed or interrupted), stops
// those the run launched. A browser that ran before (`bua browser start
// --count N`, another command's) is left running, as are the person's
// Chrome and a run with --keep-browsers (the caller does not call this).
// When it cannot tell what ran before (a daemon in doubt), it stops none.
func (o *runOptions) stopLaunchedBrowsers(workers []runner.Worker) (stop func()) {
	var names []string
	for _, w := range workers {
		if l, ok := w.Requester.(*workerLink); ok && !l.g.ownWindow {
			names = append(names, l.g.Browser)
		}
	}
	if len(names) == 0 {
		return func() {}
	}
	before, known := o.runningManaged(o.ctx)
	if !known {
		return func() {}
	}
	return func() {
		// The run's context may be cancelled (Ctrl-C): the stop has its own.
		ctx, cancel := context.WithTimeout(context.Background(), workerBrowsersStopTimeout)
		defer cancel()
		now, known := o.runningManaged(ctx)
		if !known {
			return
		}
		var launched []string
		for _, n := range names {
			if now[n] && !before[n] {
				launched = append(launched, n)
			}
		}
		if len(launched) == 0 {
			return
		}
		cl, berr := dialExisting(ctx, o.env)
		if berr != nil {
			fmt.Fprintf(o.env.Stderr, "bua: could not stop the workers' browsers %s: %s: run `bua browser stop`\n", strings.Join(launched, ", "), berr.Message)
			return
		}
		defer cl.Close()
		errs := make([]string, len(launched))
		var wg sync.WaitGroup
		for i, n := range launched {
			wg.Go(func() {
				if _, berr := cl.BrowserStop(ctx, n); berr != nil {
					errs[i] = n + ": " + berr.Message
				}
			})
		}
		wg.Wait()
		if errs = slices.DeleteFunc(errs, func(s string) bool { return s == "" }); len(errs) > 0 {
			fmt.Fprintf(o.env.Stderr, "bua: could not stop a worker's browser (%s): run `bua browser stop`\n", strings.Join(errs, "; "))
			return
		}
		if !o.Quiet {
			fmt.Fprintf(o.env.Stderr, "bua: stopped the browsers this run launched for its workers: %s (--keep-browsers keeps them)\n", strings.Join(launched, ", "))
		}
	}
}

// runningManaged is the managed browsers the daemon has running, by name;
// none when no daemon runs. known is false when whether one runs is in
// doubt (bua status would fail the same way).
func (o *runOptions) runningManaged(ctx context.Context) (running map[string]bool, known bool) {
	ctx, cancel := context.WithTimeout(ctx, linkTimeout)
	defer cancel()
	running = map[string]bool{}
	cl, berr := dialExisting(ctx, o.env)
	if berr != nil {
		return running, !daemonInDoubt(berr)
	}
	defer cl.Close()
	st, berr := cl.Status(ctx)
	if berr != nil {
		return nil, false
	}
	for _, m := range st.ManagedBrowsers {
		if m.Running {
			running[m.Name] = true
		}
	}
	return running, true
}
