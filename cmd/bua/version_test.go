package main

import (
	"bytes"
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
		if want := versionLine(buildOf("", "")) + "\n"; got != want {
			t.Errorf("bua %s printed %q, want %q", flag, got, want)
		}
		if !strings.HasPrefix(got, "bua "+version+" (") || !strings.HasSuffix(got, "development build)\n") {
			t.Errorf("bua %s printed %q, want bua %s (..., development build)", flag, got, version)
		}
	}
	if b := buildOf("0123456789abcdef", "2026-12-07T10:00:00Z"); b.Dev || b.Commit != "0123456789abcdef" || b.Time != "2026-12-07T10:00:00Z" {
		t.Errorf("buildOf with a stamped commit = %+v, want a release build with that commit and time", b)
	}
}
