package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// recordFake is a fake extension's daemon whose tabs load pages and whose
// describe knows a sign-in form: e1 the password field, e2 the submit
// button, which loads /home.
func recordFake(t *testing.T) *bridgetest.Harness {
	t.Helper()
	h, ext := startFake(t)
	tabs := bridgetest.NewTabs()
	tabs.Serve(ext)
	ext.Handle(protocol.ActionDescribe, func(a protocol.Action) (any, *protocol.Error) {
		if a.UID == "e1" {
			return protocol.DescribeResult{Tag: "input", InputType: "password", Label: "Password", Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: "Password", Count: 1}}}, nil
		}
		return protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{{By: "role", Role: "button", Name: "Sign in", Count: 1}}}, nil
	})
	ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		tab := 1
		tabs.Load(tab, "https://a.test/home")
		return protocol.OKResult{OK: true, TabID: &tab}, nil
	})
	return h
}

// signIn is the agent's sign-in on the fake: navigate, type the password,
// click Sign in.
func signIn(t *testing.T, p *mcpProc) {
	t.Helper()
	for _, args := range []string{
		`{"action":"navigate","url":"https://a.test/login"}`,
		`{"action":"type","uid":"e1","text":"s3cret-pw"}`,
		`{"action":"click","uid":"e2"}`,
	} {
		if line := p.tool(t, args); strings.Contains(line, `"isError":true`) {
			t.Fatalf("%s: %s", args, line)
		}
	}
}

// TestMCPRecord: with --record FILE, the agent's actions become a flow at
// FILE when its client hangs up: written whole at 0600, the password a
// secret read from BUA_PASSWORD and nowhere in the file, the header saying
// how it was made; stderr (and the log) say where it is and which
// environment variables a replay needs; `bua lint` accepts it.
func TestMCPRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sign in.yaml")
	p := startMCP(t, recordFake(t), "--record", path)
	signIn(t, p)
	p.feed.Close()
	if code := p.exit(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.errb.String())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the recording: %v\nstderr:\n%s", err, p.errb.String())
	}
	flow := string(data)
	t.Logf("the flow:\n%s\nstderr:\n%s", flow, p.errb.String())
	// The path has a blank: quoted for the OS's shells, POSIX's single
	// quotes, or the double quotes both PowerShell and cmd read.
	quoted, replay := "'"+path+"'", []string{"bua mcp: replay it with: BUA_PASSWORD=... bua run '" + path + "'\n"}
	if runtime.GOOS == "windows" {
		quoted, replay = `"`+path+`"`, []string{
			"bua mcp: replay it with, in PowerShell: $env:BUA_PASSWORD = '...'; bua run \"" + path + "\"\n",
			"bua mcp: or, in cmd: set \"BUA_PASSWORD=...\" & bua run \"" + path + "\"\n",
		}
	}
	for _, want := range []string{
		"# Recorded with bua mcp --record on 2026-11-22 10:00 UTC.\n#   bua mcp --record " + quoted + "\n",
		"#   BUA_PASSWORD: the text for the \"Password\" field",
		"- type: {role: textbox, name: Password, text: \"${{ vars.password }}\", clear: true}",
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/home\"}",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q:\n%s", want, flow)
		}
	}
	if strings.Contains(flow, "s3cret-pw") {
		t.Errorf("the flow holds the password:\n%s", flow)
	}
	checkPrivate(t, path, "a flow of what the agent typed")
	stderr := p.errb.String()
	for _, want := range append([]string{
		"bua mcp: recorded 3 of the agent's actions, 3 of them as steps to replay (reads are left out), in " + path + "\n",
		"  BUA_PASSWORD: the text for the \"Password\" field\n",
		// slog's text quotes a value with a blank as Go does (strconv.Quote).
		`msg="recording written" path=` + strconv.Quote(path) + ` actions=3 steps=3 env=[BUA_PASSWORD] handEdits=0`,
	}, replay...) {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "s3cret-pw") {
		t.Errorf("stderr holds the password:\n%s", stderr)
	}
	if r := runCLI(t, nil, "", "lint", path); r.code != 0 {
		t.Errorf("bua lint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestMCPRecordOnSignal: Ctrl-C or SIGTERM (main's context) ends the server
// with its client still connected, and the recording is written.
func TestMCPRecordOnSignal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flow.yaml")
	p := startMCP(t, recordFake(t), "--record", path)
	signIn(t, p)
	p.cancel()
	p.exit(t)
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "- click: {role: button, name: Sign in}") {
		t.Errorf("the recording after a signal: %v\n%s\nstderr:\n%s", err, data, p.errb.String())
	}
}

// TestMCPRecordNothing: a session that only read writes no file (an
// earlier one at FILE stays), and says why.
func TestMCPRecordNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(path, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startMCP(t, recordFake(t), "--record", path)
	p.tool(t, `{"action":"get_tabs"}`)
	p.feed.Close()
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d", code)
	}
	if data, _ := os.ReadFile(path); string(data) != "kept" {
		t.Errorf("FILE now holds %q", data)
	}
	if want := "bua mcp: nothing to record (the agent only read pages (1 reads), which a flow leaves out): " + path + " was not written"; !strings.Contains(p.errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, p.errb.String())
	}
}

// TestMCPRecordWriteFails: when FILE cannot be written at the end, the
// recording goes to the temp folder instead, stderr names both, and the
// command exits 1.
func TestMCPRecordWriteFails(t *testing.T) {
	tmp := t.TempDir()
	// The temp folder: TMPDIR on Unix, TMP (then TEMP) on Windows.
	for _, v := range []string{"TMPDIR", "TMP", "TEMP"} {
		t.Setenv(v, tmp)
	}
	path := filepath.Join(t.TempDir(), "flow.yaml")
	p := startMCP(t, recordFake(t), "--record", path)
	signIn(t, p)
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o700); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	p.feed.Close()
	if code := p.exit(t); code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	saved, _ := filepath.Glob(filepath.Join(tmp, "bua-record-*.yaml"))
	if len(saved) != 1 {
		t.Fatalf("saved elsewhere: %v\nstderr:\n%s", saved, p.errb.String())
	}
	if data, _ := os.ReadFile(saved[0]); !strings.Contains(string(data), "- click: {role: button, name: Sign in}") {
		t.Errorf("%s holds:\n%s", saved[0], data)
	}
	for _, want := range []string{"bua mcp: the recording was not written: writing the flow to " + path, "it was written to " + saved[0] + " instead"} {
		if !strings.Contains(p.errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.errb.String())
		}
	}
}

// TestMCPRecordUsage: a FILE that cannot be written, or --record with
// --read-only, is a usage error before the server starts.
func TestMCPRecordUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--record", filepath.Join(dir, "no", "flow.yaml")}, "--record: the folder " + filepath.Join(dir, "no") + " does not exist"},
		{[]string{"mcp", "--record", dir}, "is a folder"},
		{[]string{"mcp", "--read-only", "--record", filepath.Join(dir, "f.yaml")}, "--record and --read-only do not go together"},
	} {
		if r := runCLI(t, nil, "", tc.args...); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s", tc.args, r.code, exitUsage, tc.want, r.stderr)
		}
	}
}
