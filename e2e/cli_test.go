package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// These tests run every one-shot command through the built bua binary, the
// way a person or a script does, and check what it prints (text and
// --json) and how it exits. The protocol itself is proven by
// actions_test.go through `bua request`; here the subject is the CLI layer:
// argument parsing, rendering and the exit-code contract.

// cliRun is one finished bua process.
type cliRun = harness.Result

// cliOpts are the rarer knobs of one run.
type cliOpts struct {
	stdin string   // fed to the process when non-empty
	dir   string   // working directory (screenshot's default file lands here)
	env   []string // appended to buaEnv
}

func runCLI(t testing.TB, o cliOpts, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := harness.Cmd{Bin: buaBin, Env: append(append([]string{}, buaEnv...), o.env...), Dir: o.dir, Stdin: o.stdin}.Run(ctx, args...)
	return cliRun(r)
}

// cliCmd runs bua with args.
func cliCmd(t testing.TB, args ...string) cliRun {
	t.Helper()
	return runCLI(t, cliOpts{}, args...)
}

// mustCLI runs bua with args and fails the test unless it exits 0.
func mustCLI(t testing.TB, args ...string) cliRun {
	t.Helper()
	return mustCLIRun(t, cliOpts{}, args...)
}

func mustCLIRun(t testing.TB, o cliOpts, args ...string) cliRun {
	t.Helper()
	r := runCLI(t, o, args...)
	if r.Code != 0 {
		t.Fatalf("bua %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// wantCLIError checks the text error form: exit code, "error[CODE]:" and a
// hint line on stderr, nothing on stdout.
func wantCLIError(t *testing.T, r cliRun, exit int, code string, args ...string) {
	t.Helper()
	what := "bua " + strings.Join(args, " ")
	if r.Code != exit {
		t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.Code, exit, r.Stdout, r.Stderr)
	}
	m := stderrError.FindStringSubmatch(r.Stderr)
	if m == nil || m[1] != code {
		t.Errorf("%s: stderr %q, want error[%s]", what, r.Stderr, code)
	}
	if !regexp.MustCompile(`(?m)^hint: \S`).MatchString(r.Stderr) {
		t.Errorf("%s: stderr %q has no hint line", what, r.Stderr)
	}
	if strings.TrimSpace(r.Stdout) != "" {
		t.Errorf("%s: an error printed on stdout: %q", what, r.Stdout)
	}
}

// wantCLIJSONError checks the --json error form: exit code and
// {"error": {code, message, hint}} on stdout.
func wantCLIJSONError(t *testing.T, r cliRun, exit int, code string, args ...string) errorBody {
	t.Helper()
	what := "bua " + strings.Join(args, " ")
	if r.Code != exit {
		t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.Code, exit, r.Stdout, r.Stderr)
	}
	var body struct {
		Error *errorBody `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &body); err != nil || body.Error == nil {
		t.Fatalf("%s: stdout is not {\"error\": ...}: %v\n%s", what, err, r.Stdout)
	}
	if body.Error.Code != code || body.Error.Message == "" || body.Error.Hint == "" {
		t.Errorf("%s: error body %+v, want code %s with a message and a hint", what, *body.Error, code)
	}
	return *body.Error
}

// wantCLIUsage checks a command-line mistake: exit 2 with a "bua: ..." line
// on stderr and nothing on stdout, before anything reached the browser.
func wantCLIUsage(t *testing.T, r cliRun, args ...string) {
	t.Helper()
	what := "bua " + strings.Join(args, " ")
	if r.Code != 2 || !strings.HasPrefix(r.Stderr, "bua: ") || strings.TrimSpace(r.Stdout) != "" {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with \"bua: ...\" on stderr", what, r.Code, r.Stdout, r.Stderr)
	}
}

// cliOpen opens path with `bua open`, checks it printed only a tab id, and
// closes the tab when the test ends.
func cliOpen(t *testing.T, path string) string {
	t.Helper()
	r := mustCLI(t, "open", siteURL(path))
	id, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil || id <= 0 {
		t.Fatalf("bua open printed %q, want a tab id alone", r.Stdout)
	}
	closeLater(t, id)
	return strconv.Itoa(id)
}

// cliHandle is the handle `bua tabs` shows for the tab with id tab (t1,
// t2, …): what the action commands print for it.
func cliHandle(t *testing.T, tab string) string {
	t.Helper()
	var rows []struct {
		TabID  int    `json:"tabId"`
		Handle string `json:"handle"`
	}
	out := mustCLI(t, "tabs", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("tabs --json: %v\n%s", err, out)
	}
	for _, r := range rows {
		if strconv.Itoa(r.TabID) == tab && r.Handle != "" {
			return r.Handle
		}
	}
	t.Fatalf("tabs --json has no handle for tab %s:\n%s", tab, out)
	return ""
}

// cliEval returns `bua eval`'s text output, trimmed.
func cliEval(t *testing.T, tab, expr string) string {
	t.Helper()
	return strings.TrimSpace(mustCLI(t, "eval", "--tab", tab, expr).Stdout)
}

// cliWaitEval polls expr on tab until it prints want: page effects of a
// trusted event (a submit handler, a hover) may land a tick after the
// action returns.
func cliWaitEval(t *testing.T, tab, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := cliEval(t, tab, expr)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("eval %q = %q, want %q", expr, got, want)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type cliElement struct {
	UID  string `json:"uid"`
	Role string `json:"role"`
	Name string `json:"name"`
}

type cliExtract struct {
	Markdown string       `json:"markdown"`
	Text     string       `json:"text"`
	Elements []cliElement `json:"elements"`
	TabID    int          `json:"tabId"`
	Obstacle *struct {
		Type       string `json:"type"`
		Confidence string `json:"confidence"`
	} `json:"obstacle"`
}

// cliUID extracts tab through the CLI and returns the uid of role/name.
func cliUID(t *testing.T, tab, role, name string) string {
	t.Helper()
	var r cliExtract
	out := mustCLI(t, "extract", "--tab", tab, "--format", "json").Stdout
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("extract --format json: %v\n%s", err, out)
	}
	for _, e := range r.Elements {
		if e.Role == role && e.Name == name {
			return e.UID
		}
	}
	t.Fatalf("extract lists no %s %q: %+v", role, name, r.Elements)
	return ""
}

// TestCLI_OpenNavigateTabsClose: open prints a bare tab id, navigate and
// close print "ok/closed (tN)" with the tab's handle, tabs lists the tab
// in both forms, handle first, and a second close is tab_not_found (exit
// 1) in both error forms.
func TestCLI_OpenNavigateTabsClose(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	handle := cliHandle(t, tab)

	var opened struct {
		TabID    int    `json:"tabId"`
		WindowID int    `json:"windowId"`
		Domain   string `json:"domain"`
	}
	out := mustCLI(t, "open", "--json", siteURL("")).Stdout
	if err := json.Unmarshal([]byte(out), &opened); err != nil || opened.TabID <= 0 || opened.WindowID <= 0 || opened.Domain != "127.0.0.1" {
		t.Fatalf("open --json = %s (%v), want tabId, windowId and domain", out, err)
	}
	closeLater(t, opened.TabID)

	if got := mustCLI(t, "navigate", "--tab", tab, siteURL("form.html")).Stdout; got != "ok ("+handle+")\n" {
		t.Errorf("navigate printed %q, want \"ok (%s)\"", got, handle)
	}
	if got := cliEval(t, tab, "return document.title"); got != "Form" {
		t.Errorf("after navigate the title is %q, want Form", got)
	}
	var ok struct {
		OK    bool `json:"ok"`
		TabID int  `json:"tabId"`
	}
	out = mustCLI(t, "navigate", siteURL("cli/cli.html"), "--tab", tab, "--json").Stdout
	if err := json.Unmarshal([]byte(out), &ok); err != nil || !ok.OK || strconv.Itoa(ok.TabID) != tab {
		t.Errorf("navigate --json = %s, want {ok: true, tabId: %s}", out, tab)
	}

	// Piped, the table is tab-separated rows with full values and no
	// header, so grep and cut work on it.
	table := mustCLI(t, "tabs").Stdout
	if wantRow := handle + "\t" + tab + "\t127.0.0.1\tCLI fixture\t" + siteURL("cli/cli.html") + "\n"; !strings.Contains(table, wantRow) {
		t.Errorf("piped tabs has no row %q:\n%s", wantRow, table)
	}
	if strings.Contains(table, "URL") || strings.Contains(table, "  ") {
		t.Errorf("piped tabs has a header or padded columns:\n%s", table)
	}
	if ids := mustCLI(t, "tabs", "--quiet").Stdout; !regexp.MustCompile(`(?m)^`+tab+`$`).MatchString(ids) || strings.Contains(ids, "\t") {
		t.Errorf("tabs --quiet is not tab ids one a line:\n%s", ids)
	}
	var tabs []tabInfo
	out = mustCLI(t, "tabs", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &tabs); err != nil {
		t.Fatalf("tabs --json is not an array: %v\n%s", err, out)
	}
	id, _ := strconv.Atoi(tab)
	if tb, found := hasTab(tabs, id); !found || tb.URL != siteURL("cli/cli.html") || tb.Title != "CLI fixture" {
		t.Errorf("tabs --json entry for %s = %+v (found %v)", tab, tb, found)
	}

	second := strconv.Itoa(opened.TabID)
	secondHandle := cliHandle(t, second)
	if got := mustCLI(t, "close", second).Stdout; got != "closed ("+secondHandle+")\n" {
		t.Errorf("close printed %q", got)
	}
	if _, found := hasTab(getTabs(t), opened.TabID); found {
		t.Errorf("tab %s is still listed after close", second)
	}
	wantCLIError(t, cliCmd(t, "close", second), 1, "tab_not_found", "close", second)
	wantCLIJSONError(t, cliCmd(t, "close", second, "--json"), 1, "tab_not_found", "close", second, "--json")
	wantCLIUsage(t, cliCmd(t, "close", "abc"), "close", "abc")
}

// TestCLI_Extract: the default output is markdown, then the element
// lines, then (on an obstacle page) the verdict line; each --format prints
// only its part; --selector narrows the page.
func TestCLI_Extract(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")

	def := mustCLI(t, "extract", "--tab", tab).Stdout
	iMD := strings.Index(def, "# CLI fixture")
	row := regexp.MustCompile(`(?m)^e[0-9]+ button "Count\b`).FindStringIndex(def)
	if iMD != 0 || row == nil || row[0] < iMD {
		t.Errorf("default extract is not markdown then the element lines with the Count button (md@%d, row@%v):\n%s", iMD, row, def)
	}
	if strings.Contains(def, "obstacle:") {
		t.Errorf("default extract on a plain page prints an obstacle line:\n%s", def)
	}

	md := mustCLI(t, "extract", "--tab", tab, "--format", "markdown").Stdout
	elementLine := regexp.MustCompile(`(?m)^e[0-9]+ [a-z]+ "`)
	if !strings.HasPrefix(md, "# CLI fixture") || elementLine.MatchString(md) {
		t.Errorf("--format markdown is not markdown alone:\n%s", md)
	}
	text := mustCLI(t, "extract", "--tab", tab, "--format", "text").Stdout
	if !strings.Contains(text, "CLI fixture") || strings.Contains(text, "# CLI fixture") || elementLine.MatchString(text) {
		t.Errorf("--format text is not plain text alone:\n%s", text)
	}
	els := mustCLI(t, "extract", "--tab", tab, "--format", "elements").Stdout
	if strings.Contains(els, "# CLI fixture") || !regexp.MustCompile(`(?m)^e[0-9]+ button "Count\b`).MatchString(els) {
		t.Errorf("--format elements is not the element lines alone with the Count button:\n%s", els)
	}

	var full cliExtract
	js := mustCLI(t, "extract", "--tab", tab, "--format", "json").Stdout
	if err := json.Unmarshal([]byte(js), &full); err != nil || strconv.Itoa(full.TabID) != tab || len(full.Elements) == 0 || !strings.HasPrefix(full.Markdown, "# CLI fixture") {
		t.Errorf("--format json = %.300s (%v), want markdown, elements and tabId %s", js, err, tab)
	}
	// The raw text only when --text asks for it.
	if strings.Contains(js, `"text":`) || !strings.Contains(mustCLI(t, "extract", "--tab", tab, "--format", "json", "--text").Stdout, `"text": "CLI fixture`) {
		t.Errorf("--format json keeps the text, or --text does not:\n%.300s", js)
	}
	// --json is the same result.
	var viaJSON cliExtract
	if err := json.Unmarshal([]byte(mustCLI(t, "extract", "--json", "--tab", tab).Stdout), &viaJSON); err != nil || len(viaJSON.Elements) != len(full.Elements) {
		t.Errorf("extract --json: %v, %d elements, want %d", err, len(viaJSON.Elements), len(full.Elements))
	}

	// --selector form: the form's input and button, not the h1 or Count.
	sel := mustCLI(t, "extract", "--tab", tab, "--selector", "#f").Stdout
	if strings.Contains(sel, "CLI fixture") || strings.Contains(sel, "Count") || !strings.Contains(sel, "Send") {
		t.Errorf("extract --selector #f is not just the form:\n%s", sel)
	}

	wantCLIUsage(t, cliCmd(t, "extract", "--tab", tab, "--format", "yaml"), "extract", "--format", "yaml")
}

// TestCLI_ExtractObstacle: on a login wall the verdict line comes last,
// and --fail-on-obstacle turns the high verdict into exit 3.
func TestCLI_ExtractObstacle(t *testing.T) {
	tab := cliOpen(t, "obstacles/login.html")
	def := mustCLI(t, "extract", "--tab", tab).Stdout
	row := regexp.MustCompile(`(?m)^e[0-9]+ [a-z]+ `).FindStringIndex(def)
	iObs := strings.Index(def, "\nobstacle: auth_wall (high)")
	if row == nil || iObs < row[0] {
		t.Errorf("default extract on a login wall lacks the element lines then \"obstacle: auth_wall (high)\" (rows@%v, obstacle@%d):\n%s", row, iObs, def)
	}
	r := cliCmd(t, "extract", "--tab", tab, "--fail-on-obstacle")
	if r.Code != 3 || !strings.Contains(r.Stderr, "auth_wall") {
		t.Errorf("extract --fail-on-obstacle: exit %d, stderr %q; want 3 naming auth_wall", r.Code, r.Stderr)
	}
}

// TestCLI_Click: a uid from a real extract and a CSS selector both click;
// flags work on either side of TARGET; --selector reaches a tag named like
// a uid; --uid and --selector together are a usage error; --quiet prints
// nothing.
func TestCLI_Click(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	uid := cliUID(t, tab, "button", "Count")

	handle := cliHandle(t, tab)
	if got := mustCLI(t, "click", uid, "--tab", tab).Stdout; got != "ok ("+handle+")\n" {
		t.Errorf("click %s --tab %s printed %q", uid, tab, got)
	}
	mustCLI(t, "click", "--tab", tab, uid)
	cliWaitEval(t, tab, "return document.getElementById('clicks').textContent", "2")

	// A CSS selector, and --uid forcing a selector-looking word to be a uid.
	if got := mustCLI(t, "click", "#count", "--tab", handle).Stdout; got != "ok ("+handle+")\n" {
		t.Errorf("click #count printed %q", got)
	}
	cliWaitEval(t, tab, "return document.getElementById('clicks').textContent", "3")

	// --quiet: success prints nothing at all.
	if r := mustCLI(t, "click", "--quiet", uid, "--tab", tab); r.Stdout != "" || r.Stderr != "" {
		t.Errorf("click --quiet printed stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	cliWaitEval(t, tab, "return document.getElementById('clicks').textContent", "4")

	// The <e1> tag: a bare e1 reads as a uid; --selector e1 reaches the tag.
	mustCLI(t, "click", "--selector", "e1", "--tab", tab)
	cliWaitEval(t, tab, "return document.getElementById('tag-out').textContent", "tag clicked")
	// --uid forces a uid even for a word that would be a selector: as a uid
	// "count" breaks the schema's e<N> pattern and is refused before
	// sending (exit 2); read as a selector it would be element_not_found (1).
	forced := []string{"click", "--uid", "count", "--tab", tab}
	wantCLIError(t, cliCmd(t, forced...), 2, "invalid_action", forced...)
	wantCLIUsage(t, cliCmd(t, "click", "--uid", "--selector", "x", "--tab", tab), "click", "--uid", "--selector")
	wantCLIUsage(t, cliCmd(t, "click", "--tab", tab), "click") // no TARGET
}

// TestCLI_TypeHoverPress: type from an argument, from stdin and from an
// environment variable; hover fires a trusted mouseenter; Enter submits
// the form; Control+a selects the field's text.
func TestCLI_TypeHoverPress(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	value := "return document.getElementById('name').value"

	mustCLI(t, "type", "--tab", tab, "#name", "Ada")
	cliWaitEval(t, tab, value, "Ada")

	// "-" reads stdin; one trailing newline (from echo) is dropped.
	mustCLIRun(t, cliOpts{stdin: " Lovelace\n"}, "type", "#name", "-", "--tab", tab)
	cliWaitEval(t, tab, value, "Ada Lovelace")

	// --text-env: the secret lives only in the environment (never in
	// argv, where ps shows it); it still reaches the page.
	cliEval(t, tab, "document.getElementById('name').value = ''; return 0")
	mustCLIRun(t, cliOpts{env: []string{"BUA_TEST_SECRET=s3cr3t-pa55"}}, "type", "--text-env", "BUA_TEST_SECRET", "#name", "--tab", tab)
	cliWaitEval(t, tab, value, "s3cr3t-pa55")
	wantCLIUsage(t, cliCmd(t, "type", "--text-env", "BUA_TEST_UNSET_VAR", "#name", "--tab", tab), "type", "--text-env", "UNSET")
	wantCLIUsage(t, cliCmd(t, "type", "#name", "--tab", tab), "type", "#name") // no TEXT

	if got := mustCLI(t, "hover", "#hover", "--tab", tab).Stdout; got != "ok ("+cliHandle(t, tab)+")\n" {
		t.Errorf("hover printed %q", got)
	}
	cliWaitEval(t, tab, "return document.getElementById('hover-out').textContent", "hovered trusted=true")

	// Control+a selects all of the focused field; typing then replaces it.
	mustCLI(t, "press", "--tab", tab, "Control+a")
	cliWaitEval(t, tab, "const f = document.getElementById('name'); return f.selectionStart + '-' + f.selectionEnd", "0-11")
	mustCLI(t, "type", "--tab", tab, "#name", "Grace")
	cliWaitEval(t, tab, value, "Grace")

	mustCLI(t, "press", "Enter", "--tab", tab)
	cliWaitEval(t, tab, "return document.getElementById('result').textContent", "submitted Grace")
}

// TestCLI_Scroll: --amount scrolls exactly that many pixels each way; an
// unknown direction is refused before sending (exit 2), its hint blaming
// no page script.
func TestCLI_Scroll(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	mustCLI(t, "scroll", "down", "--amount", "500", "--tab", tab)
	cliWaitEval(t, tab, "return String(window.scrollY)", "500")
	mustCLI(t, "scroll", "--tab", tab, "--amount", "200", "up")
	cliWaitEval(t, tab, "return String(window.scrollY)", "300")

	r := cliCmd(t, "scroll", "sideways", "--tab", tab)
	wantCLIError(t, r, 2, "invalid_action", "scroll", "sideways")
	e := wantCLIJSONError(t, cliCmd(t, "scroll", "sideways", "--tab", tab, "--json"), 2, "invalid_action", "scroll", "sideways", "--json")
	if e.Reason == "script_threw" || strings.Contains(e.Hint, "script") {
		t.Errorf("scroll sideways ran no page script, yet reason %q, hint %q", e.Reason, e.Hint)
	}
}

// cliJPEGSize checks data is a JPEG (FF D8) and decodes its dimensions.
func cliJPEGSize(t *testing.T, what string, data []byte) (int, int) {
	t.Helper()
	if len(data) < 2 || data[0] != 0xFF || data[1] != 0xD8 {
		t.Fatalf("%s does not start with FF D8: % x", what, data[:min(len(data), 8)])
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width == 0 || cfg.Height == 0 {
		t.Fatalf("%s: jpeg.DecodeConfig = %+v, %v", what, cfg, err)
	}
	return cfg.Width, cfg.Height
}

// TestCLI_Screenshot: -o writes a real JPEG and prints its path; without
// -o the file lands in the working directory under the printed name;
// --full-page is taller than the viewport.
func TestCLI_Screenshot(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	dir := t.TempDir()

	file := filepath.Join(dir, "shot.jpg")
	if got := mustCLI(t, "screenshot", "-o", file, "--tab", tab).Stdout; got != file+"\n" {
		t.Errorf("screenshot -o printed %q, want the path", got)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w, h := cliJPEGSize(t, "screenshot -o", data)

	r := mustCLIRun(t, cliOpts{dir: dir}, "screenshot", "--tab", tab, "--full-page")
	name := strings.TrimSpace(r.Stdout)
	if !regexp.MustCompile(`^screenshot-[0-9-]+\.[0-9]+\.jpg$`).MatchString(name) {
		t.Errorf("screenshot without -o printed %q, want screenshot-TIME.jpg", name)
	}
	full, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("screenshot printed %q but wrote no such file in its working directory: %v", name, err)
	}
	fw, fh := cliJPEGSize(t, "screenshot --full-page", full)
	// The full page is the document's width (the viewport less its
	// scrollbar) and taller than the 3000px spacer.
	if fw > w || fw < w-20 || fh <= h+2000 {
		t.Errorf("--full-page is %dx%d, viewport %dx%d: want about the same width and the 3000px page's height", fw, fh, w, h)
	}

	var res struct {
		DataURL string `json:"dataUrl"`
		TabID   int    `json:"tabId"`
	}
	out := mustCLIRun(t, cliOpts{dir: dir}, "screenshot", "--json", "--tab", tab).Stdout
	if err := json.Unmarshal([]byte(out), &res); err != nil || !strings.HasPrefix(res.DataURL, "data:image/jpeg;base64,") || strconv.Itoa(res.TabID) != tab {
		t.Errorf("screenshot --json = %.120s (%v), want a JPEG data URL and tabId", out, err)
	}
}

// TestCLI_Eval: a string prints bare, --json prints the typed result, "-"
// reads the body from stdin, and a throw is invalid_action (exit 1), reason
// script_threw, whose hint blames the page script.
func TestCLI_Eval(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	if got := mustCLI(t, "eval", "--tab", tab, "return document.title").Stdout; got != "CLI fixture\n" {
		t.Errorf("eval printed %q, want the bare string", got)
	}
	if got := mustCLI(t, "eval", "return {a: [1, 2]}", "--tab", tab).Stdout; got != "{\"a\":[1,2]}\n" {
		t.Errorf("eval of an object printed %q, want compact JSON", got)
	}
	if got := mustCLI(t, "eval", "--tab", tab, "document.title").Stdout; !strings.Contains(got, "undefined") || !strings.Contains(got, "return") {
		t.Errorf("eval without return printed %q, want the undefined/return reminder", got)
	}

	var res struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
		TabID int    `json:"tabId"`
	}
	out := mustCLI(t, "eval", "--json", "--tab", tab, "return 6 * 7").Stdout
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Type != "number" || res.Value != float64(42) || strconv.Itoa(res.TabID) != tab {
		t.Errorf("eval --json = %s (%v), want {type: number, value: 42, tabId: %s}", out, err, tab)
	}

	r := mustCLIRun(t, cliOpts{stdin: "const n = document.querySelectorAll('p').length;\nreturn 'paragraphs ' + n;\n"}, "eval", "-", "--tab", tab)
	if !regexp.MustCompile(`^paragraphs [0-9]+\n$`).MatchString(r.Stdout) {
		t.Errorf("eval - printed %q", r.Stdout)
	}

	boom := []string{"eval", "--tab", tab, "throw new Error('boom-42')"}
	r = cliCmd(t, boom...)
	wantCLIError(t, r, 1, "invalid_action", boom...)
	wantContains(t, "eval throw stderr", r.Stderr, "boom-42")
	e := wantCLIJSONError(t, cliCmd(t, append(boom, "--json")...), 1, "invalid_action", boom...)
	if e.Reason != "script_threw" || !strings.Contains(e.Hint, "the page script threw") {
		t.Errorf("a page script that threw: reason %q, hint %q; want script_threw, and a hint that says so", e.Reason, e.Hint)
	}
}

// TestCLI_WaitFor: a present selector prints "found"; a missing one with
// --timeout 1s is timeout, exit 5, in about a second.
func TestCLI_WaitFor(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	if got := mustCLI(t, "wait-for", "#bottom", "--tab", tab).Stdout; got != "found ("+cliHandle(t, tab)+")\n" {
		t.Errorf("wait-for printed %q", got)
	}
	start := time.Now()
	args := []string{"wait-for", "#never-there", "--timeout", "1s", "--tab", tab}
	wantCLIError(t, cliCmd(t, args...), 5, "timeout", args...)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("wait-for --timeout 1s took %s", d)
	}
	wantCLIJSONError(t, cliCmd(t, append(args, "--json")...), 5, "timeout", args...)
}

// TestCLI_ExitCodes reaches each remaining error code through the CLI.
func TestCLI_ExitCodes(t *testing.T) {
	tab := cliOpen(t, "stale.html")

	// element_stale: a uid from before a navigation.
	uid := cliUID(t, tab, "button", "Press")
	mustCLI(t, "navigate", "--tab", tab, siteURL("stale.html?again=1"))
	stale := []string{"click", uid, "--tab", tab}
	r := cliCmd(t, stale...)
	wantCLIError(t, r, 1, "element_stale", stale...)
	wantContains(t, "stale uid", r.Stderr, "the page changed")

	// element_stale too for a uid never handed out on the tab, which says
	// so and does not blame the page.
	never := []string{"click", "e9999", "--tab", tab}
	r = cliCmd(t, never...)
	wantCLIError(t, r, 1, "element_stale", never...)
	wantContains(t, "uid never handed out", r.Stderr, "error[element_stale]: uid e9999 was never handed out on this page\nhint: no extract on this tab listed that uid")
	j := wantCLIJSONError(t, cliCmd(t, append(never, "--json")...), 1, "element_stale", never...)
	if j.Reason != "uid_unknown" {
		t.Errorf("bua click e9999 --json: reason %q, want uid_unknown", j.Reason)
	}

	notFound := []string{"click", "#no-such-element", "--tab", tab}
	wantCLIError(t, cliCmd(t, notFound...), 1, "element_not_found", notFound...)
	wantCLIJSONError(t, cliCmd(t, append(notFound, "--json")...), 1, "element_not_found", notFound...)

	blocked := []string{"navigate", hostURL(BlockedDomain, ""), "--tab", tab}
	wantCLIError(t, cliCmd(t, blocked...), 3, "domain_blocked", blocked...)
	wantCLIJSONError(t, cliCmd(t, append(blocked, "--json")...), 3, "domain_blocked", blocked...)

	// Refused before sending: exit 2 and the tab never moved.
	js := []string{"navigate", "javascript:alert(1)", "--tab", tab}
	wantCLIError(t, cliCmd(t, js...), 2, "invalid_action", js...)
	if got := cliEval(t, tab, "return location.search"); got != "?again=1" {
		t.Errorf("after refused navigates the tab is at %q, want ?again=1", got)
	}

	// --browser user with no user pairing connected: bridge_unavailable.
	user := []string{"eval", "return 1", "--browser", "user", "--tab", tab}
	wantCLIError(t, cliCmd(t, user...), 4, "bridge_unavailable", user...)

	wantCLIUsage(t, cliCmd(t, "eval", "return 1", "--browser", "nope", "--tab", tab), "--browser", "nope")
}

// TestCLI_BadFlagIsUsage: an unknown flag exits 2 and, like every error,
// says so on stderr only: stdout is for results (`--json` output must
// stay parseable), so the help text must not land there.
func TestCLI_BadFlagIsUsage(t *testing.T) {
	wantCLIUsage(t, cliCmd(t, "click", "--no-such-flag", "#x"), "click", "--no-such-flag")
}

// TestCLI_UnknownCommandIsUsage: a mistyped command is a usage error, exit
// 2. Exit 3 would tell a script the action was blocked by policy.
func TestCLI_UnknownCommandIsUsage(t *testing.T) {
	r := cliCmd(t, "clik", "e3")
	if r.Code != 2 {
		t.Errorf("bua clik e3 exits %d, want 2 (usage); stderr %q", r.Code, r.Stderr)
	}
}

// TestCLI_QuietKeepsData: --quiet drops chatter ("ok (t1)") but not
// the data a script captures: TAB=$(bua open -q URL) needs the id, and
// V=$(bua eval -q ...) the value.
func TestCLI_QuietKeepsData(t *testing.T) {
	r := mustCLI(t, "open", "--quiet", siteURL("cli/cli.html"))
	id, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		// Find the tab it opened anyway, so the shared browser stays clean.
		for _, tb := range getTabs(t) {
			if tb.URL == siteURL("cli/cli.html") {
				closeLater(t, tb.TabID)
			}
		}
		t.Fatalf("open --quiet printed %q, want the tab id", r.Stdout)
	}
	closeLater(t, id)
	if got := mustCLI(t, "eval", "-q", "--tab", strconv.Itoa(id), "return document.title").Stdout; got != "CLI fixture\n" {
		t.Errorf("eval -q printed %q, want the value", got)
	}
}

// TestCLI_DaemonCommands: status, events, doctor with the shared managed
// browser connected.
func TestCLI_DaemonCommands(t *testing.T) {
	tab := cliOpen(t, "cli/cli.html")
	cliEval(t, tab, "return 1") // an action, so the tab has a session

	st := mustCLI(t, "status").Stdout
	for _, want := range []string{"daemon:     up (pid", "managed:    running", "managed"} {
		wantContains(t, "status", st, want)
	}
	var js struct {
		PID         int `json:"pid"`
		Connections []struct {
			Kind string `json:"kind"`
		} `json:"connections"`
		Managed struct {
			Running bool `json:"running"`
		} `json:"managed"`
	}
	out := mustCLI(t, "status", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.PID <= 0 || !js.Managed.Running || len(js.Connections) == 0 || js.Connections[0].Kind != "managed" {
		t.Errorf("status --json = %s (%v), want pid, a running managed browser and its connection", out, err)
	}

	ev := mustCLI(t, "events").Stdout
	if !regexp.MustCompile(`(?m)\bsession_started\b.*"tabId":` + tab + `\b`).MatchString(ev) {
		t.Errorf("events lacks session_started for tab %s:\n%s", tab, ev)
	}
	evJSON := strings.Split(strings.TrimSpace(mustCLI(t, "events", "--json").Stdout), "\n")
	for _, line := range evJSON {
		if !json.Valid([]byte(line)) {
			t.Errorf("events --json line is not JSON: %q", line)
		}
	}

	doc := mustCLI(t, "doctor").Stdout
	wantContains(t, "doctor", doc, "managed browser connected")
	wantContains(t, "doctor", doc, "bua can serve actions now.")
	var rep struct {
		Ready  bool `json:"ready"`
		Checks []struct {
			Name, Level string
		} `json:"checks"`
	}
	out = mustCLI(t, "doctor", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !rep.Ready || len(rep.Checks) == 0 {
		t.Errorf("doctor --json = %s (%v), want ready: true and checks", out, err)
	}
}

// TestCLI_Offline: the commands that need no browser.
func TestCLI_Offline(t *testing.T) {
	var schema map[string]any
	out := mustCLI(t, "schema").Stdout
	if err := json.Unmarshal([]byte(out), &schema); err != nil || schema["$defs"] == nil {
		t.Errorf("schema is not JSON with $defs: %v", err)
	}

	if got := mustCLI(t, "extension", "id", "--quiet").Stdout; got != "hfknkhfjieglpckamkjeghfifjpncaoi\n" {
		t.Errorf("extension id --quiet = %q", got)
	}
	dir := strings.TrimSpace(mustCLI(t, "extension", "path").Stdout)
	var manifest struct {
		ManifestVersion int `json:"manifest_version"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil || json.Unmarshal(raw, &manifest) != nil || manifest.ManifestVersion != 3 {
		t.Errorf("extension path %q: manifest.json %v, manifest_version %d; want an MV3 manifest", dir, err, manifest.ManifestVersion)
	}

	help := mustCLI(t, "help", "exit-codes").Stdout
	for _, re := range []string{`(?m)^\s*3\s+blocked`, `(?m)^\s*5\s+timeout`, `(?m)^\s*element_stale\s+1\s+\S`, `(?m)^\s*domain_blocked\s+3\s+\S`, `(?m)^\s*bridge_unavailable\s+4\s+\S`} {
		if !regexp.MustCompile(re).MatchString(help) {
			t.Errorf("help exit-codes does not match %s:\n%s", re, help)
		}
	}
}

// TestCLI_TakenPort: when another program holds the daemon's port, a
// command that needs the daemon says so within seconds (not at the 10 s
// start timeout), naming the port, the process that holds it and the fix.
func TestCLI_TakenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	home := t.TempDir()
	start := time.Now()
	r := runCLI(t, cliOpts{env: []string{"BUA_HOME=" + home, "BUA_LISTEN=" + addr, "CI=true"}}, "tabs")
	took := time.Since(start)
	if r.Code != 4 {
		t.Fatalf("exit %d, want 4 (bridge unavailable)\nstderr: %s", r.Code, r.Stderr)
	}
	if took > 5*time.Second {
		t.Fatalf("took %s to report a taken port, want well under the 10 s start timeout", took)
	}
	wantContains(t, "stderr", r.Stderr, "cannot listen on "+addr)
	wantContains(t, "stderr", r.Stderr, fmt.Sprintf("pid %d", os.Getpid()))
	wantContains(t, "stderr", r.Stderr, "BUA_LISTEN")
}
