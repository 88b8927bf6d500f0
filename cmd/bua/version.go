package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// The release build stamps these at link time (.goreleaser.yaml's
// ldflags: -X main.version=... -X main.commit=... -X main.date=...):
// version is the release's, commit the full hash it was built from, date
// the commit's time (RFC 3339), never the build's, so that two builds of
// one commit are byte for byte the same. A build without them
// (scripts/build, go run, go install from a checkout) is a development
// build: its version gets a -dev suffix, and --version reads the
// commit from what Go stamps itself (debug.ReadBuildInfo's vcs.*).
var (
	version = "0.1.0"
	commit  string
	date    string
)

// A development build's version gets its -dev suffix in a package-level
// initializer rather than in init, so that it is there before any init
// of the package runs, whichever reads version.
var _ = func() struct{} {
	if commit == "" {
		version += "-dev"
	}
	return struct{}{}
}()

func init() {
	cli.VersionPrinter = func(c *cli.Context) {
		info, _ := debug.ReadBuildInfo()
		fmt.Fprintln(c.App.Writer, versionLine(buildOf(commit, date, info)))
	}
}

// build is what --version says of this binary.
type build struct {
	Version string // 0.2.0, or 0.1.0-dev
	Commit  string // the full hash, "" when unknown
	Time    string // the commit's time, RFC 3339, "" when unknown
	Dirty   bool   // built from a checkout with uncommitted changes
	Dev     bool   // not a release build
}

// buildOf is this binary's build, from the stamped commit and date, or,
// without them, from what Go recorded (info, nil when it recorded
// nothing): `go install github.com/bua-dev/bua/cmd/bua@v0.2.0` builds a
// downloaded, checksummed module (its Main.Sum is set), which is that
// release's code, so its version is the module's; any other build is a
// development build, whose commit comes from Go's vcs settings (a `go
// build` in a git checkout records vcs.revision, vcs.time and
// vcs.modified; `go run` and test binaries record none).
func buildOf(commit, date string, info *debug.BuildInfo) build {
	if commit != "" {
		return build{Version: version, Commit: commit, Time: date}
	}
	if info != nil && info.Main.Sum != "" && strings.HasPrefix(info.Main.Version, "v") {
		return build{Version: strings.TrimPrefix(info.Main.Version, "v")}
	}
	b := build{Version: version, Dev: true}
	if info == nil {
		return b
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

// versionLine is --version's line: "bua 0.2.0 (commit 1a2b3c4, 2026-12-07)"
// for a release, "bua 0.1.0-dev (commit 1a2b3c4+dirty, 2026-12-07,
// development build)" for a build from a checkout, and "bua 0.1.0-dev
// (development build)" when Go recorded no commit.
func versionLine(b build) string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 7 {
			c = c[:7]
		}
		if b.Dirty {
			c += "+dirty"
		}
		parts = append(parts, "commit "+c)
	}
	if b.Time != "" {
		if t, err := time.Parse(time.RFC3339, b.Time); err == nil {
			parts = append(parts, t.UTC().Format(time.DateOnly))
		} else {
			parts = append(parts, b.Time)
		}
	}
	if b.Dev {
		parts = append(parts, "development build")
	}
	line := "bua " + b.Version
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line
}
