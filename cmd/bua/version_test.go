package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine: --version names the version, the commit (short) and
// the commit's date, and says when the binary is a development build.
func TestVersionLine(t *testing.T) {
	const full = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
	for _, tc := range []struct {
		b    build
		want string
	}{
		{build{Version: "0.2.0", Commit: full, Time: "2026-12-07T23:30:00Z"}, "bua 0.2.0 (commit 1a2b3c4, 2026-12-07)"},
		{build{Version: "0.2.0", Commit: full, Time: "2026-12-08T01:30:00+02:00"}, "bua 0.2.0 (commit 1a2b3c4, 2026-12-07)"},
		{build{Version: "0.1.0-dev", Commit: full, Time: "2026-12-07T10:00:00Z", Dev: true}, "bua 0.1.0-dev (commit 1a2b3c4, 2026-12-07, development build)"},
		{build{Version: "0.1.0-dev", Commit: full, Time: "2026-12-07T10:00:00Z", Dirty: true, Dev: true}, "bua 0.1.0-dev (commit 1a2b3c4+dirty, 2026-12-07, development build)"},
		{build{Version: "0.1.0-dev", Dev: true}, "bua 0.1.0-dev (development build)"},
		{build{Version: "0.2.0", Commit: "abc", Time: "yesterday"}, "bua 0.2.0 (commit abc, yesterday)"},
	} {
		if got := versionLine(tc.b); got != tc.want {
			t.Errorf("versionLine(%+v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

// TestVersionFlag: a test binary has no stamped commit, so it is a
// development build, and `bua --version` and `bua -v` say so on stdout
// with exit 0; a stamped commit is a release build, whose version keeps
// no -dev suffix.
func TestVersionFlag(t *testing.T) {
	if !strings.HasSuffix(version, "-dev") {
		t.Fatalf("version %q: an unstamped build's version must end in -dev", version)
	}
	for _, flag := range []string{"--version", "-v"} {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
		if code := run(t.Context(), []string{"bua", flag}, env); code != 0 {
			t.Fatalf("bua %s: exit %d, stderr %q", flag, code, errb.String())
		}
		// Whether Go stamped the test binary with the commit depends on
		// -buildvcs: the line is versionLine's either way.
		got := out.String()
		info, _ := debug.ReadBuildInfo()
		if want := versionLine(buildOf("", "", info)) + "\n"; got != want {
			t.Errorf("bua %s printed %q, want %q", flag, got, want)
		}
		if !strings.HasPrefix(got, "bua "+version+" (") || !strings.HasSuffix(got, "development build)\n") {
			t.Errorf("bua %s printed %q, want bua %s (..., development build)", flag, got, version)
		}
	}
	if b := buildOf("0123456789abcdef", "2026-12-07T10:00:00Z", nil); b.Dev || b.Commit != "0123456789abcdef" || b.Time != "2026-12-07T10:00:00Z" {
		t.Errorf("buildOf with a stamped commit = %+v, want a release build with that commit and time", b)
	}
	// `go install github.com/bua-dev/bua/cmd/bua@v0.2.0`: a checksummed
	// module of that version, no vcs settings.
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/bua-dev/bua", Version: "v0.2.0", Sum: "h1:abc="}}
	if got, want := versionLine(buildOf("", "", installed)), "bua 0.2.0"; got != want {
		t.Errorf("go install @v0.2.0 says %q, want %q", got, want)
	}
	// A build in a checkout: Go 1.24+ gives it a pseudo-version but no
	// checksum; it stays a development build.
	checkout := &debug.BuildInfo{Main: debug.Module{Path: "github.com/bua-dev/bua", Version: "v0.1.1-0.20261207100000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-07T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(buildOf("", "", checkout)), "bua "+version+" (commit 0123456+dirty, 2026-12-07, development build)"; got != want {
		t.Errorf("a checkout's build says %q, want %q", got, want)
	}
}
