package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// runCLICtx is runCLI under ctx, which the test cancels as Ctrl-C cancels
// main's signal context.
func runCLICtx(t *testing.T, ctx context.Context, h *bridgetest.Harness, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	vars := map[string]string{"BUA_HOME": h.Dirs.Config}
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] },
		Now:    func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) },
	}
	code := run(ctx, append([]string{"bua"}, args...), env)
	return result{code, out.String(), errb.String()}
}

// recordingFake makes the fake extension a recording one: open_tab opens tab
// 7, record_start answers the tab's page, record_read hands out steps (the
// sign-in below) one read at a time, waiting briefly when there are none,
// and ends the recording with reason end once they are read (none: only
// record_stop ends it).
func recordingFake(ext *bridgetest.Extension, end protocol.RecordEndReason) (stopped *atomic.Bool) {
	login := "http://a.test/login"
	steps := []protocol.RecordedStep{
		{TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionType_, Text: ptrTo("ada@example.com"), Clear: true},
			Target: &protocol.DescribeResult{Tag: "input", InputType: "email", Label: "Email", Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: "Email", Count: 1}}}},
		{TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionType_, Clear: true}, Secret: 1,
			Target: &protocol.DescribeResult{Tag: "input", InputType: "password", Label: "Password", Locators: []protocol.Locator{{By: "role", Role: "textbox", Name: "Password", Count: 1}}}},
		{TabID: 7, URL: login, Title: "Sign in", Action: &protocol.Action{Type: protocol.ActionClick},
			Target: &protocol.DescribeResult{Tag: "button", Locators: []protocol.Locator{{By: "role", Role: "button", Name: "Sign in", Count: 1}}}},
		{TabID: 7, URL: "http://a.test/home", Title: "Home", Landed: true},
	}
	stopped = &atomic.Bool{}
	var mu sync.Mutex
	ext.Handle(protocol.ActionOpenTab, func(protocol.Action) (any, *protocol.Error) {
		return protocol.OpenTabResult{TabID: 7, WindowID: 1, Domain: "a.test"}, nil
	})
	ext.Handle(protocol.ActionRecordStart, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.RecordStartResult{OK: true, TabID: *a.TabID, URL: login, Title: "Sign in"}, nil
	})
	ext.Handle(protocol.ActionRecordStop, func(a protocol.Action) (any, *protocol.Error) {
		stopped.Store(true)
		return protocol.RecordStartResult{OK: true, TabID: *a.TabID, URL: login, Steps: len(steps), Ended: true, Reason: protocol.RecordStopped}, nil
	})
	ext.Handle(protocol.ActionRecordRead, func(a protocol.Action) (any, *protocol.Error) {
		mu.Lock()
		defer mu.Unlock()
		since := max(*a.SinceSeq, 1)
		r := protocol.RecordReadResult{Steps: []protocol.RecordedStep{}, NextSeq: since}
		if since <= len(steps) {
			s := steps[since-1]
			s.Seq = since
			r.Steps, r.NextSeq = []protocol.RecordedStep{s}, since+1
		}
		switch {
		case r.NextSeq > len(steps) && stopped.Load():
			r.Ended, r.Reason = true, protocol.RecordStopped
		case r.NextSeq > len(steps) && end != "":
			r.Ended, r.Reason = true, end
		case len(r.Steps) == 0:
			time.Sleep(20 * time.Millisecond) // the long poll, shortened
		}
		return r, nil
	})
	return stopped
}

func ptrTo[T any](v T) *T { return &v }

// TestRecordPopupStop: a recording the person ends from the popup writes
// the flow, exit 0: role targets, the password from BUA_PASSWORD and
// never a text for it, and stderr says how to replay it.
func TestRecordPopupStop(t *testing.T) {
	h, ext := startFake(t)
	recordingFake(ext, protocol.RecordUserStopped)
	out := filepath.Join(t.TempDir(), "signin.yaml")
	r := runCLI(t, h, "", "record", "http://a.test/login", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	y := string(raw)
	for _, want := range []string{
		"# Recorded with bua record on 2026-11-22 10:00 UTC.\n#   bua record http://a.test/login -o " + out,
		"- type: {role: textbox, name: Email, text: ada@example.com, clear: true}",
		`- type: {role: textbox, name: Password, text: "${{ vars.password }}", clear: true}`,
		"- click: {role: button, name: Sign in}",
		`- wait_for: {url: "${{ vars.base }}/home"} # "Home"`,
	} {
		if !strings.Contains(y, want) {
			t.Errorf("the flow lacks %q:\n%s", want, y)
		}
	}
	replay := []string{"\nbua record: replay it with: BUA_PASSWORD=... bua run " + out + "\n"}
	if runtime.GOOS == "windows" { // PowerShell's and cmd's ways to set a variable
		replay = []string{
			"\nbua record: replay it with, in PowerShell: $env:BUA_PASSWORD = '...'; bua run " + out + "\n",
			"\nbua record: or, in cmd: set \"BUA_PASSWORD=...\" & bua run " + out + "\n",
		}
	}
	for _, want := range append([]string{"Stop in the extension's popup", "wrote " + out, "BUA_PASSWORD: the text for the \"Password\" field", `3. click button "Sign in"`}, replay...) {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	checkPrivate(t, out, "a flow: it holds what the person typed")
	reqs := ext.Requests()
	if reqs[0].Type != protocol.ActionOpenTab || reqs[0].URL != "http://a.test/login" || !reqs[0].Focus {
		t.Errorf("first request %+v, want open_tab of the URL, focused", reqs[0])
	}
}

// TestRecordCtrlC: Ctrl-C stops the recording (record_stop), the steps
// still under way are read, the flow is written, and the exit code is 0.
func TestRecordCtrlC(t *testing.T) {
	h, ext := startFake(t)
	stopped := recordingFake(ext, "")
	out := filepath.Join(t.TempDir(), "signin.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			n := 0
			for _, a := range ext.Requests() {
				if a.Type == protocol.ActionRecordRead {
					n++
				}
			}
			if n >= 6 {
				cancel() // Ctrl-C, after the steps were read and a few empty reads
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	r := runCLICtx(t, ctx, h, "record", "--tab", "7", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 for Ctrl-C\n%s", r.code, r.stderr)
	}
	if !stopped.Load() {
		t.Error("Ctrl-C sent no record_stop")
	}
	if y := readFileString(out); !strings.Contains(y, "- click: {role: button, name: Sign in}") || !strings.Contains(r.stderr, "(Ctrl-C)") {
		t.Errorf("flow:\n%s\nstderr:\n%s", y, r.stderr)
	}
	if reqs := ext.Requests(); reqs[0].Type != protocol.ActionRecordStart || *reqs[0].TabID != 7 {
		t.Errorf("first request %+v, want record_start on tab 7 (no tab opened with --tab)", reqs[0])
	}
}

func readFileString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// TestRecordOptions: what record's command line gives runRecord, and what
// it refuses before it records anything (exit 2).
func TestRecordOptions(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.yaml")
	checkOptions(t, newRecordCommand, nil, []optionsCase[recordOptions]{
		{name: "URL", args: []string{"record", "http://a.test/", "-o", out},
			want: &recordOptions{globalOptions: defaults(), URL: "http://a.test/", Output: out}},
		{name: "TabNamedJSON", args: []string{"--json", "record", "--tab", "3", "--output", out, "--name", "Sign in"},
			want: &recordOptions{globalOptions: defaults(func(g *globalOptions) { g.JSON = true }), Tab: 3, Output: out, Name: "Sign in"}},
		{name: "Blank", args: []string{"record", "-o", out, "--browser", "managed"},
			want: &recordOptions{globalOptions: defaults(func(g *globalOptions) { g.Browser = "managed" }), Output: out}},
		{name: "NoOutput", args: []string{"record", "http://a.test/"}, wantErr: "needs -o FILE"},
		{name: "URLAndTab", args: []string{"record", "http://a.test/", "--tab", "3", "-o", out}, wantErr: "not both"},
		{name: "TwoURLs", args: []string{"record", "a", "b", "-o", out}, wantErr: "at most one URL"},
		{name: "TabZero", args: []string{"record", "--tab", "0", "-o", out}, wantErr: "--tab takes a tab ID"},
		{name: "NoFolder", args: []string{"record", "-o", filepath.Join(dir, "no", "f.yaml")}, wantErr: "does not exist"},
		{name: "Folder", args: []string{"record", "-o", dir}, wantErr: "is a folder"},
	})
}

// fakeBrowser is a launched managed browser whose extension is a fake one
// the test connects; Stop ends it.
type fakeBrowser struct{ done chan struct{} }

func (b *fakeBrowser) Pid() int { return 1 }
func (b *fakeBrowser) Stop(context.Context) error {
	select {
	case <-b.done:
	default:
		close(b.done)
	}
	return nil
}
func (b *fakeBrowser) Kill()                 { _ = b.Stop(context.Background()) }
func (b *fakeBrowser) Done() <-chan struct{} { return b.done }
func (b *fakeBrowser) Err() error            { return nil }

// TestRecordManagedBrowserWindow: with no paired Chrome connected, bua
// record launches the managed browser with a window where there is a
// display (DISPLAY set), and headless where there is none, which it says
// nobody can act in; either way it records there and writes the flow.
func TestRecordManagedBrowserWindow(t *testing.T) {
	for _, display := range []string{":7", ""} {
		t.Run("DISPLAY="+display, func(t *testing.T) {
			var h *bridgetest.Harness
			launched := make(chan bridge.LaunchOptions, 1)
			h = bridgetest.StartDaemon(t, bridge.Config{
				Launch: func(_ context.Context, o bridge.LaunchOptions) (bridge.BrowserProcess, error) {
					launched <- o
					go func() {
						ext, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.ManagedToken})
						if err != nil {
							t.Errorf("fake managed extension: %v", err)
							return
						}
						t.Cleanup(func() { ext.Close() })
						recordingFake(ext, protocol.RecordUserStopped)
					}()
					return &fakeBrowser{done: make(chan struct{})}, nil
				},
			})
			out := filepath.Join(t.TempDir(), "signin.yaml")
			r := runCLIEnv(t, h, map[string]string{"DISPLAY": display}, "", "--browser", "managed", "record", "http://a.test/login", "-o", out)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var o bridge.LaunchOptions
			select {
			case o = <-launched:
			default:
				t.Fatal("no managed browser was launched")
			}
			headless := display == "" && runtime.GOOS == "linux" // elsewhere there is always a display
			if o.Headless != headless {
				t.Errorf("launched with headless %v, want %v (DISPLAY=%q)", o.Headless, headless, display)
			}
			if says := strings.Contains(r.stderr, "runs headless, so nobody can see the page"); says != headless {
				t.Errorf("stderr says the browser is headless: %v, want %v\n%s", says, headless, r.stderr)
			}
			if !strings.Contains(readFileString(out), "- click: {role: button, name: Sign in}") {
				t.Errorf("the flow was not written from the managed browser's recording:\n%s\n%s", readFileString(out), r.stderr)
			}
		})
	}
}
