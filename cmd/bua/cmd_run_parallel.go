package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/runner"
)

// workers are the workers of `bua run --parallel N`, each with a lazy
// connection of its own (it dials on its first action) to the browser it
// owns for the whole run:
//
//   - managed browsers (--browser managed, or auto where bua may launch
//     one: CI=true, or no pairing): worker i has managed browser i
//     (bridge.ManagedName: managed, managed-1, …), its own profile, so
//     cookies and storage are the worker's alone. A worker whose browser
//     dies gets a new one: the daemon launches it on the next request.
//   - the person's Chrome (--browser user, a pairing's name, or auto with a
//     pairing outside CI): every worker drives that one browser, each as
//     a tab owner with a window of its own (bridge.ClientOptions.OwnWindow),
//     so each has an active tab for input; cookies are the browser's,
//     shared by all of them.
func (o *runOptions) workers() ([]runner.Worker, error) {
	d, err := dirs(o.env)
	if err != nil {
		return nil, usageError(err.Error())
	}
	sel, err := bridge.CheckBrowser(d, o.Browser)
	if err != nil {
		return nil, usageError(fmt.Sprintf("--browser %q: %v", o.Browser, err))
	}
	if bridge.IsManaged(string(sel)) && sel != bridge.SelectManaged {
		return nil, usageError(fmt.Sprintf("--browser %s names one managed browser, and --parallel gives each worker its own (managed, managed-1, …): use --browser managed, or leave --browser out", sel))
	}
	managed := managedWorkers(o.env, sel, d)
	workers := make([]runner.Worker, o.Parallel)
	for i := range workers {
		g := o.globalOptions
		if managed {
			g.Browser = bridge.ManagedName(i)
		} else {
			g.Browser = string(sel)
			g.owner, g.ownWindow = fmt.Sprintf("run-%d-worker-%d", os.Getpid(), i), true
		}
		workers[i] = runner.Worker{Index: i, Requester: &workerLink{g.requester(), &g}}
	}
	return workers, nil
}

// managedWorkers says whether sel gives each worker a managed browser of
// its own, rather than a window in the person's Chrome: managed, and auto
// where bua may launch one unprompted (bridge.MayAutoLaunch).
func managedWorkers(env *Env, sel bridge.Selection, d home.Dirs) bool {
	return sel == bridge.SelectManaged || sel == bridge.SelectAuto && bridge.MayAutoLaunch(env.Getenv, d)
}

// workerBrowsers says, for the run's first line, which browsers workers
// drive.
func workerBrowsers(workers []runner.Worker) string {
	var names []string
	owned := false
	for _, w := range workers {
		l := w.Requester.(*workerLink)
		names = append(names, l.g.Browser)
		owned = l.g.ownWindow
	}
	if owned {
		browser := names[0]
		if browser == "" || browser == string(bridge.SelectAuto) {
			browser = string(bridge.SelectUser)
		}
		return fmt.Sprintf("a window each in the browser %s (its cookies are shared: full isolation needs managed browsers)", browser)
	}
	return "managed browsers " + strings.Join(names, ", ")
}

// workerLink is a worker's Requester, with the options it dials with:
// its browser, and the owner and own window it acts as in the person's
// Chrome.
type workerLink struct {
	*bridge.Requester
	g *globalOptions
}

// closeAll closes each worker's connection.
func closeAll(ls []*bridge.Requester) {
	for _, l := range ls {
		l.Close()
	}
}
