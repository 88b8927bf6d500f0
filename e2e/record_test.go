package e2e

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// recordSecret is what the test types into the sign-in's password field:
// testdata/sites/record/signin.html refuses any other.
const recordSecret = "Corr3ct-Horse"

// recording is a `bua record` running in the background.
type recording struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr strings.Builder
	done   chan struct{}
}

// startRecording starts `bua record args...` and waits until it says it is
// recording; it returns the recorded tab's id.
func startRecording(t *testing.T, args ...string) (*recording, string) {
	t.Helper()
	r := &recording{t: t, cmd: exec.Command(buaBin, append([]string{"record"}, args...)...), done: make(chan struct{})}
	r.cmd.Env = buaEnv
	pipe, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	lines := make(chan string, 64)
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			r.mu.Lock()
			r.stderr.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	started := regexp.MustCompile(`recording tab (\d+)`)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l := <-lines:
			if m := started.FindStringSubmatch(l); m != nil {
				return r, m[1]
			}
		case <-r.done:
			t.Fatalf("bua record exited before recording:\n%s", r.output())
		case <-deadline:
			t.Fatalf("bua record did not start recording in 30 s:\n%s", r.output())
		}
	}
}

func (r *recording) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// waitOutput waits until bua record has printed want (a step it read).
func (r *recording) waitOutput(want string) {
	r.t.Helper()
	for end := time.Now().Add(15 * time.Second); !strings.Contains(r.output(), want); {
		if time.Now().After(end) {
			r.t.Fatalf("bua record never printed %q:\n%s", want, r.output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// interrupt presses Ctrl-C and returns the exit code.
func (r *recording) interrupt() int {
	r.t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		r.t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("bua record did not end 30 s after Ctrl-C:\n%s", r.output())
	}
	err := r.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}

// devtoolsHand dials the managed browser's test-only DevTools port.
func devtoolsHand(t *testing.T) *harness.CDP {
	t.Helper()
	u, err := harness.DevToolsURL(harness.ManagedProfile(buaHome))
	if err != nil {
		t.Fatal(err)
	}
	c, err := harness.DialCDP(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRecordSignIn records, by trusted input only, a sign-in (a password
// among the fields), a check added with Alt+Shift+click, a <select>, a
// checkbox, a form in an out-of-process iframe and a tab a link opens,
// while the page's own script clicks and types too; Ctrl-C writes the
// flow, exit 0. The flow lints, has role targets, never the password (nor
// do bua's logs or the trace), and replays green in a fresh browser (a
// second BUA_HOME: its own daemon, profile and headless browser) with the
// password from BUA_PASSWORD; without it, it stops at once, naming it.
func TestRecordSignIn(t *testing.T) {
	out := filepath.Join(t.TempDir(), "signin.yaml")
	rec, tab := startRecording(t, siteURL("record/signin.html"), "-o", out)
	if !strings.Contains(rec.output(), "headless") {
		t.Errorf("bua record did not say a headless browser is for tests:\n%s", rec.output())
	}
	c := devtoolsHand(t)
	p := newHand(t, c, "page", "record/signin.html")
	p.click("#email")
	p.keys("ada@example.com")
	p.click("#password")
	p.keys(recordSecret)
	p.click("#remember")
	p.click("button[type=submit]")
	p.waitFor(`location.pathname.endsWith("/welcome.html") && document.readyState === "complete" && document.querySelector("#hello").textContent === "Welcome, ada"`)

	x, y := p.center("#hello")
	p.clickAt(x, y, 1|8) // Alt+Shift: a check that the text shows
	p.click("#plan")
	p.press("ArrowDown")
	p.press("Enter")
	p.waitFor(`document.querySelector("#plan").value === "pro"`)
	p.click("#news")
	p.waitFor(`document.querySelector("#summary").textContent === "Plan: pro, news: yes"`)

	f := newHand(t, c, "iframe", "record/coupon.html")
	ox, oy := p.frameOrigin("#coupon")
	fx, fy := f.center("#code")
	p.clickAt(ox+fx, oy+fy, 0)
	p.keys("SAVE10")
	fx, fy = f.center("button")
	p.clickAt(ox+fx, oy+fy, 0)
	p.waitFor(`document.querySelector("#coupon-state").textContent === "Coupon SAVE10 applied"`)

	p.click("a[target=_blank]")
	n := newHand(t, c, "page", "record/terms.html")
	n.click("#accept")
	n.waitFor(`document.querySelector("#done").textContent === "Terms accepted"`)
	x, y = n.center("#done")
	n.clickAt(x, y, 1|8)
	rec.waitOutput(`check: the page shows "Terms accepted"`)

	if code := rec.interrupt(); code != 0 {
		t.Fatalf("Ctrl-C: exit %d, want 0\n%s", code, rec.output())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, rec.output())
	}
	flow := string(raw)
	t.Logf("bua record said:\n%s\nthe recorded flow:\n%s", rec.output(), flow)
	for _, want := range []string{
		"- type: {role: textbox, name: Email, text: ada@example.com, clear: true}",
		`- type: {role: textbox, name: Password, text: "${{ vars.password }}", clear: true}`,
		"- click: {role: checkbox, name: Remember me}",
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/record/welcome.html?**\"}",
		"- wait_for: {text: 'Welcome, ada'}",
		"- select_option: {role: combobox, name: Plan, value: [pro]}",
		"- click: {role: checkbox, name: Send me news}",
		"- type: {role: textbox, name: Coupon code, frame: /record/coupon.html, text: SAVE10, clear: true}",
		"- click: {role: button, name: Apply, frame: /record/coupon.html}",
		"- click: {role: link, name: Read the terms}\n    as: tab_1",
		`- click: {role: button, name: Accept the terms, tabId: "${{ tab_1.newTabId }}"}`,
		`- wait_for: {text: Terms accepted, tabId: "${{ tab_1.newTabId }}"}`,
		`password: "${{ env.BUA_PASSWORD }}"`,
		"secrets: [password]",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q", want)
		}
	}
	for _, never := range []string{recordSecret, "Decoy", "uid", "nth-child", "bua: edit this"} {
		if strings.Contains(flow, never) {
			t.Errorf("the flow holds %q", never)
		}
	}
	if r := (harness.Cmd{Bin: buaBin, Env: buaEnv}).Run(context.Background(), "lint", out); r.Code != 0 {
		t.Errorf("bua lint: exit %d\n%s", r.Code, r.Output())
	}
	assertNoSecret(t, tab)
	replayFresh(t, out)
}

// assertNoSecret checks that the password is in none of bua's files under
// its home (the daemon's log, the event log: everything but the browser's
// profile) nor in the recorded tab's trace.
func assertNoSecret(t *testing.T, tab string) {
	t.Helper()
	profile := harness.ManagedProfile(buaHome)
	_ = filepath.WalkDir(buaHome, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && p == profile {
				return filepath.SkipDir
			}
			return nil
		}
		if data, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(data), recordSecret) {
			t.Errorf("the password is in %s", p)
		}
		return nil
	})
	r := (harness.Cmd{Bin: buaBin, Env: buaEnv}).Run(context.Background(), "--json", "trace", "--tab", tab)
	if r.Code != 0 || strings.Contains(r.Output(), recordSecret) {
		t.Errorf("trace of tab %s: exit %d, holds the password: %v", tab, r.Code, strings.Contains(r.Output(), recordSecret))
	}
}

// replayFresh runs the flow in a fresh browser: a home of its own, so a
// daemon, profile and headless managed browser of its own.
func replayFresh(t *testing.T, flow string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "fresh")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	env := harness.FreshEnv(home)
	fresh := harness.Cmd{Bin: buaBin, Env: append(env, "BUA_PASSWORD="+recordSecret)}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		harness.Cmd{Bin: buaBin, Env: env}.Run(ctx, "stop")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	r := fresh.Run(ctx, "run", flow)
	if r.Code != 0 {
		harness.DumpLogs(home)
		t.Fatalf("the replay in a fresh browser: exit %d\n%s", r.Code, r.Output())
	}
	t.Logf("the replay in a fresh browser:\n%s", r.Output())
	unset := harness.Cmd{Bin: buaBin, Env: env}.Run(ctx, "run", flow)
	if unset.Code == 0 || !strings.Contains(unset.Output(), "BUA_PASSWORD is not set") {
		t.Errorf("the replay without BUA_PASSWORD: exit %d, want a failure naming it\n%s", unset.Code, unset.Output())
	}
}

// TestRecordTypedURLAndTabClosed: a URL the person types in the address
// bar is a navigate step (the test's hand navigates as the omnibox does:
// transition typed), and closing the recorded tab ends the recording: the
// flow is written and bua record exits 0 by itself.
func TestRecordTypedURLAndTabClosed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "typed.yaml")
	// A query of its own: TestRecordSignIn leaves a terms.html tab open.
	rec, _ := startRecording(t, siteURL("record/terms.html?typed"), "-o", out, "--name", "Terms, then news")
	c := devtoolsHand(t)
	p := newHand(t, c, "page", "record/terms.html?typed")
	p.click("#accept")
	signed := filepath.Join(t.TempDir(), "signed.pdf")
	if err := os.WriteFile(signed, []byte("%PDF-1.4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.chooseFiles("#signed", signed)
	rec.waitOutput("upload")
	p.press("Escape")
	rec.waitOutput("Escape")
	if _, err := c.Call(p.session, "Page.navigate", map[string]any{"url": siteURL("record/welcome.html"), "transitionType": "typed"}); err != nil {
		t.Fatal(err)
	}
	p.waitFor(`location.pathname.endsWith("/welcome.html") && document.readyState === "complete"`)
	p.click("#news")
	rec.waitOutput(`click checkbox "Send me news"`)
	if _, err := c.Call("", "Target.closeTarget", map[string]any{"targetId": p.target}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rec.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("bua record did not end when its tab closed:\n%s", rec.output())
	}
	if err := rec.cmd.Wait(); err != nil {
		t.Fatalf("bua record: %v\n%s", err, rec.output())
	}
	if !strings.Contains(rec.output(), "ended (its tab closed)") {
		t.Errorf("stderr does not say the tab closed:\n%s", rec.output())
	}
	raw, _ := os.ReadFile(out)
	flow := string(raw)
	t.Logf("the recorded flow:\n%s", flow)
	if r := (harness.Cmd{Bin: buaBin, Env: buaEnv}).Run(context.Background(), "lint", out); r.Code != 0 {
		t.Errorf("bua lint: exit %d\n%s", r.Code, r.Output())
	}
	for _, want := range []string{
		"name: Terms, then news",
		"- click: {role: button, name: Accept the terms}\n",
		"  # the person chose signed.pdf: put that file beside this flow, or write its path here\n  - upload: {role: button, name: Signed copy, files: [signed.pdf]}\n  - press_key: Escape\n",
		"  - navigate: \"${{ vars.base }}/record/welcome.html\"\n  - wait_for: {url: \"${{ vars.base }}/record/welcome.html\"}",
		"- click: {role: checkbox, name: Send me news}",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q:\n%s", want, flow)
		}
	}
}

// quickClick clicks the middle of sel with nothing between the press and
// the release, as Playwright's and agent-browser's clicks do: both are
// sent before either is answered, so the page handles the click before
// any lookup the recorder's worker starts on the press can reach it.
func (h *hand) quickClick(sel string) {
	h.t.Helper()
	x, y := h.center(sel)
	var cmds []harness.CDPCmd
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": x, "y": y}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		cmds = append(cmds, harness.CDPCmd{Method: "Input.dispatchMouseEvent", Params: p})
	}
	if _, err := h.c.CallAll(h.session, cmds); err != nil {
		h.t.Fatalf("click %s: %v", sel, err)
	}
}

// TestRecordSubmitNavigates: a submit button clicked by
// trusted input, whose form renames it ("Signing in…") and navigates at
// once, is recorded by the name it had when the pointer went down, as a
// role target, not as a CSS selector or by its new name.
func TestRecordSubmitNavigates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "login.yaml")
	rec, _ := startRecording(t, siteURL("record/login.html"), "-o", out)
	p := newHand(t, devtoolsHand(t), "page", "record/login.html")
	p.click("#user")
	p.keys("ada")
	p.quickClick("button")
	p.waitFor(`location.pathname.endsWith("/welcome.html") && document.readyState === "complete"`)
	rec.waitOutput("the page went to")
	if code := rec.interrupt(); code != 0 {
		t.Fatalf("Ctrl-C: exit %d, want 0\n%s", code, rec.output())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, rec.output())
	}
	flow := string(raw)
	t.Logf("bua record said:\n%s\nthe recorded flow:\n%s", rec.output(), flow)
	if !strings.Contains(rec.output(), `click button "Sign in"`) {
		t.Errorf("bua record did not show the click on button \"Sign in\":\n%s", rec.output())
	}
	for _, want := range []string{
		"- type: {role: textbox, name: User, text: ada, clear: true}",
		"- click: {role: button, name: Sign in}\n  - wait_for: {url: \"${{ vars.base }}/record/welcome.html?**\"}",
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q", want)
		}
	}
	if strings.Contains(flow, "Signing in") {
		t.Error("the flow names the button by the name the page gave it after the click")
	}
}

// pauseWorker pauses the extension's service worker (Debugger.pause
// through the test-only DevTools port: it stops at its next statement) and
// returns the function that lets it run again. While it is paused the
// worker can start nothing: a busy machine at its busiest, made certain.
func pauseWorker(t *testing.T, c *harness.CDP) func() {
	t.Helper()
	targets, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type != "service_worker" || !strings.HasSuffix(tg.URL, "/src/generated/worker.js") {
			continue
		}
		s, err := c.Attach(tg.TargetID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CallAll(s, []harness.CDPCmd{{Method: "Debugger.enable"}, {Method: "Debugger.pause"}}); err != nil {
			t.Fatal(err)
		}
		resumed := false
		resume := func() {
			if resumed {
				return
			}
			resumed = true
			if _, err := c.CallAll(s, []harness.CDPCmd{{Method: "Debugger.resume"}, {Method: "Debugger.disable"}}); err != nil {
				t.Errorf("resuming the worker: %v", err)
			}
			_, _ = c.Call("", "Target.detachFromTarget", map[string]any{"sessionId": s})
		}
		t.Cleanup(resume)
		return resume
	}
	t.Fatalf("no service worker of the extension among %+v", targets)
	return nil
}

// TestRecordNewTabFirstInput: the person clicks in a
// tab that a recorded click opened before the recorder's worker has done
// anything there (the worker is paused from before the first click until
// after the second): the click is still recorded, on its tab, by its name.
func TestRecordNewTabFirstInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "newtab.yaml")
	rec, _ := startRecording(t, siteURL("record/opener.html"), "-o", out)
	c := devtoolsHand(t)
	p := newHand(t, c, "page", "record/opener.html")
	resume := pauseWorker(t, c)
	p.click("a[target=_blank]")
	n := newHand(t, c, "page", "record/terms.html?first")
	n.waitFor(`document.readyState !== "loading"`)
	n.click("#accept")
	n.waitFor(`document.querySelector("#done").textContent === "Terms accepted"`)
	resume()
	rec.waitOutput(`click button "Accept the terms"`)
	if code := rec.interrupt(); code != 0 {
		t.Fatalf("Ctrl-C: exit %d, want 0\n%s", code, rec.output())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, rec.output())
	}
	flow := string(raw)
	t.Logf("bua record said:\n%s\nthe recorded flow:\n%s", rec.output(), flow)
	for _, want := range []string{
		"- click: {role: link, name: Read the terms}\n    as: tab_1",
		`- click: {role: button, name: Accept the terms, tabId: "${{ tab_1.newTabId }}"}`,
	} {
		if !strings.Contains(flow, want) {
			t.Errorf("the flow lacks %q", want)
		}
	}
	if strings.Count(flow, "Accept the terms") != 1 {
		t.Errorf("the click in the new tab is in the flow %d times, want once", strings.Count(flow, "Accept the terms"))
	}
}
