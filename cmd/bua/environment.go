package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/runner"
)

func init() {
	register(func(env *Env) *cli.Command { return newEnvironmentCommand(env, nil) }, "environment")
}

// environmentOptions is `bua environment`'s command line: the global
// flags alone.
type environmentOptions struct {
	globalOptions
}

// envVar is one environment variable bua reads: its name, its default
// (what bua does when it is unset) and what it means, each one line.
type envVar struct {
	Name, Default, Meaning string
}

// envGroup is a heading of `bua help environment` and the variables under
// it.
type envGroup struct {
	Title string
	Vars  []envVar
}

// environment is every environment variable bua's code reads, the one list
// `bua help environment` prints and docs/environment.md shows;
// TestHelpEnvironment scans the module's code for the variables it reads
// and fails on one missing here, or here and read nowhere.
var environment = []envGroup{
	{"bua's own", []envVar{
		{"BUA_HOME", "the OS's folders, below", "one folder for all of bua's files (pairing tokens, logs, browser profiles, the daemon's socket and lock); each home has a daemon of its own"},
		{"BUA_LISTEN", bridge.DefaultListen, "the address the daemon listens on for the extension (`bua serve --listen` wins): set it alike for every bua command, and pair your Chrome after setting it"},
		{"BUA_CHROME", "chromium, Chrome for Testing or chrome, on PATH, in the usual folders or in the Playwright and Puppeteer caches", "the browser a managed browser runs: a name on PATH or a path"},
		{bridge.EnvExtensionIDs, "none: only the pinned ID", "extension IDs from the Chrome Web Store or Edge Add-ons the daemon also accepts, comma-separated"},
		{"BUA_HANDOFF", "a page is handed over only in a browser a person can see", "`off` never hands a page to a person; `force` hands it over even in a headless browser (tests, demos)"},
		{"CI", "not CI: with your Chrome paired, --browser auto waits for it and launches nothing", "`true` lets --browser auto launch a headless managed browser even when your own Chrome is paired"},
	}},
	{"Where bua keeps and finds files (without BUA_HOME)", []envVar{
		{"HOME", "the OS's", "the base of the folders below; also where bua looks for browsers in user caches"},
		{"XDG_CONFIG_HOME", "~/.config", "Linux and macOS: pairing tokens in $XDG_CONFIG_HOME/bua"},
		{"XDG_STATE_HOME", "~/.local/state", "Linux and macOS: logs, downloads and browser profiles in $XDG_STATE_HOME/bua"},
		{"XDG_RUNTIME_DIR", "the state folder's run/", "Linux and macOS: the daemon's socket and lock in $XDG_RUNTIME_DIR/bua"},
		{"LOCALAPPDATA", "the OS's local application data folder", "Windows: all of bua's files in %LOCALAPPDATA%\\bua; also where bua looks for browsers"},
		{"USERPROFILE", "no user folder is searched", "Windows: the home folder where bua looks for browsers"},
		{"PROGRAMFILES", "not searched", "Windows: a folder where bua looks for browsers"},
		{"PROGRAMFILES(X86)", "not searched", "Windows: a folder where bua looks for browsers"},
		{"HOMEDRIVE", "not searched", "Windows: the drive whose Program Files bua searches for browsers"},
		{"PATH", "nothing searched on PATH", "where bua looks for chromium, chrome and BUA_CHROME's name first"},
		{"PLAYWRIGHT_BROWSERS_PATH", "ms-playwright in the OS's cache folder", "Playwright's browser cache, searched for its Chromium (`0`: not searched)"},
		{"XDG_CACHE_HOME", "~/.cache", "Linux: the cache folder that holds ms-playwright"},
		{"PUPPETEER_CACHE_DIR", "~/.cache/puppeteer", "Puppeteer's browser cache, searched for Chrome for Testing"},
	}},
	{"The terminal", []envVar{
		{"NO_COLOR", "colour on a terminal", "any value turns colour off (no-color.org)"},
		{"TERM", "colour on a terminal", "`dumb` turns colour off"},
		{"COLUMNS", "the terminal's width, else 80", "the width bua lays its tables out to"},
		{"DISPLAY", "none", "Linux: with neither it nor WAYLAND_DISPLAY, a browser window cannot open: bua record starts a headless browser, and a failed launch says why"},
		{"WAYLAND_DISPLAY", "none", "Linux: as DISPLAY"},
	}},
}

// envNotes close `bua help environment`: the variables bua reads by a
// name the person gives, and the one it sets.
var envNotes = []string{
	"A flow reads any variable as env.NAME, and `bua type --text-env NAME` types one's value.",
	fmt.Sprintf("bua run sets %s (the worker's index, 0 … N-1) for its flows' env.", runner.WorkerIndexEnv),
}

func newEnvironmentCommand(env *Env, runF func(*environmentOptions) error) *cli.Command {
	o := &environmentOptions{}
	return &cli.Command{
		Name:     "environment",
		Category: catSetup,
		Usage:    "list the environment variables bua reads, each with its default (also: bua help environment)",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, func(o *environmentOptions) error {
				writeEnvironment(o.env.Stdout)
				return nil
			})
		},
	}
}

// writeEnvironment prints the environment table: per group a heading, then
// per variable a line "  NAME  meaning" and one "default: ..." under the
// meaning.
func writeEnvironment(w io.Writer) {
	fmt.Fprintln(w, "Environment variables bua reads:")
	for _, g := range environment {
		fmt.Fprintf(w, "\n%s:\n", g.Title)
		for _, v := range g.Vars {
			fmt.Fprintf(w, "  %-24s %s\n  %-24s default: %s\n", v.Name, v.Meaning, "", v.Default)
		}
	}
	fmt.Fprintln(w)
	for _, n := range envNotes {
		fmt.Fprintln(w, n)
	}
}
