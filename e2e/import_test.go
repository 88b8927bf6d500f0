package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// replayChecks are the checks of puppeteer/replay's own tests
// (test/runner.test.ts, test/spec.test.ts at the commit
// testdata/replay/README.md names) for the recordings vendored from them
// that convert with no problem: after `bua run` replays the converted
// recording, the page must answer the check (a function body) with want.
// A test that only asserts the recording runs checks where the page is
// (the viewport test's 800x600 is not replayed: a flow keeps the
// browser's viewport). wantErr is the error the replay must fail with
// instead, for the test that expects one.
var replayChecks = map[string]struct{ check, want, wantErr string }{
	"runner_navigate":                    {check: "return location.pathname", want: "/empty.html"},
	"runner_click_buttons":               {check: "return JSON.stringify(window.buttonClicks)", want: "[0,1,2,3,4]"},
	"runner_svg":                         {check: "return location.pathname", want: "/svg.html"},
	"runner_invisible_parent":            {check: "return location.pathname", want: "/invisible-parent.html"},
	"runner_not_found":                   {wantErr: `element_not_found: no element matches selector ".not-found"`},
	"runner_checkbox":                    {check: "return String(document.querySelector('input').checked)", want: "true"},
	"runner_keyboard":                    {check: "return document.querySelector('#log').innerText.trim()", want: "one:1\ntwo:2"},
	"runner_color":                       {check: "return document.querySelector('#color').value", want: "#333333"},
	"runner_prefilled":                   {check: "return document.querySelector('#prefilled').value", want: "cba"},
	"runner_partially_prefilled":         {check: "return document.querySelector('#partially-prefilled').value", want: "abcdef"},
	"runner_viewport":                    {check: "return location.pathname", want: "/select.html"},
	"runner_scroll":                      {check: "return [scrollX, scrollY, overflow.scrollTop, overflow.scrollLeft].join()", want: "40,40,40,0"},
	"runner_scroll_into_view":            {check: "return document.querySelector('button').innerText", want: "clicked"},
	"runner_wait_for_element":            {check: "return location.pathname", want: "/shadow-dynamic.html"},
	"runner_wait_for_element_hidden":     {check: "return location.pathname", want: "/shadow-dynamic.html"},
	"runner_wait_for_element_properties": {check: "return location.pathname", want: "/shadow-dynamic.html"},
	"runner_popup":                       {check: "return location.pathname", want: "/main.html"},
	"runner_oopif":                       {check: "return document.querySelector('iframe').contentWindow.location.pathname", want: "/iframe2.html"},
	"runner_hover":                       {check: "return document.getElementById('hover-button').textContent", want: "Hovered"},
	"spec":                               {check: "return log.innerText.split('\\n').slice(1).join('\\n')"},
}

// failedAt finds the flow's file:line in `bua run`'s failure line.
var failedAt = regexp.MustCompile(`\.yaml:(\d+): step `)

// TestImportReplaysRecorderSamples converts every recording vendored from
// puppeteer/replay (testdata/replay) with `bua import`, and replays those
// that come with their test pages with `bua run` in the managed Chromium,
// against the pages served here (--var base=...), each in a fresh tab.
// A recording whose conversion reports no problem must replay as the
// original test asserts (replayChecks); one with a reported problem may
// fail, but only at a step its flow marks "bua: edit this". The spec
// recording (the former everything.json) must leave its page's event log
// as @puppeteer/replay's does, but for the first line, the viewport's size,
// which a flow keeps as the browser's.
func TestImportReplaysRecorderSamples(t *testing.T) {
	port, stop := harness.ServeSites("../testdata/replay/pages")
	defer stop()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	expected, err := os.ReadFile("../testdata/replay/spec.expected.txt")
	if err != nil {
		t.Fatal(err)
	}
	spec := replayChecks["spec"]
	spec.want = strings.Join(strings.Split(strings.TrimSpace(string(expected)), "\n")[1:], "\n")
	replayChecks["spec"] = spec

	recordings, _ := filepath.Glob("../testdata/replay/*.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var steps, mapped, replayed, green int
	mappedOf := regexp.MustCompile(`: (\d+) of (\d+) steps replay as recorded`)
	for _, rec := range recordings {
		name := strings.TrimSuffix(filepath.Base(rec), ".json")
		flow := filepath.Join(dir, name+".yaml")
		r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "import", rec, "-o", flow)
		m := mappedOf.FindStringSubmatch(r.Stderr)
		if r.Code != 0 || m == nil {
			t.Errorf("bua import %s: exit %d:\n%s", name, r.Code, r.Output())
			continue
		}
		n, total := atoi(m[1]), atoi(m[2])
		steps, mapped = steps+total, mapped+n
		check, listed := replayChecks[name]
		if src, _ := os.ReadFile(rec); !strings.Contains(string(src), "http://localhost:8907/") {
			continue // no test page of its own: converted only
		}
		if listed != (n == total) {
			t.Errorf("%s: %d of %d steps convert as recorded; replayChecks lists it: %v", name, n, total, listed)
		}
		replayed++
		t.Run(name, func(t *testing.T) {
			tab := openTab(t, "blank.html")
			run := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "run", flow, "--var", "base="+base)
			text, _ := os.ReadFile(flow)
			switch {
			case !listed:
				// A reported problem: a failure must be at a step the
				// flow marks for a hand edit.
				if run.Code == 0 {
					green++
					return
				}
				at := failedAt.FindStringSubmatch(run.Output())
				if at == nil || !markedAt(string(text), atoi(at[1])) {
					t.Errorf("the replay failed, not at a step marked \"bua: edit this\":\n%s\n%s", run.Output(), text)
				}
			case check.wantErr != "":
				if run.Code != 1 || !strings.Contains(run.Output(), check.wantErr) {
					t.Errorf("bua run: exit %d, want 1 with %q:\n%s", run.Code, check.wantErr, run.Output())
					return
				}
				green++
			case run.Code != 0:
				t.Errorf("bua run: exit %d:\n%s\n%s", run.Code, run.Output(), text)
			default:
				if got := evalString(t, tab, check.check); got != check.want {
					t.Errorf("after the replay the page answers %q, want %q (%s)", got, check.want, check.check)
					return
				}
				for _, tb := range getTabs(t) {
					if strings.HasSuffix(tb.URL, "/popup.html") {
						t.Errorf("the popup the recording closed is open: %+v", tb)
						return
					}
				}
				green++
			}
		})
	}
	if steps < 100 || replayed < 25 {
		t.Errorf("converted %d steps and replayed %d recordings: the vendored set has more", steps, replayed)
	}
	t.Logf("puppeteer/replay recordings: %d of %d steps convert as recorded; %d of %d replays green", mapped, steps, green, replayed)
}

// markedAt reports whether the step at line (1-based) of a flow has a
// "bua: edit this" comment above it.
func markedAt(flow string, line int) bool {
	lines := strings.Split(flow, "\n")
	for i := line - 2; i >= 0 && i < len(lines); i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "#") {
			return false
		}
		if strings.Contains(l, "bua: edit this") {
			return true
		}
	}
	return false
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("not a number: %q", s))
	}
	return n
}

// TestImportSignInReplays converts docs/record.md's Recorder sign-in of the
// demo app with `bua import`: the password typed in the recording is not
// in the flow, which replays green in a fresh tab with BUA_PASSWORD set,
// against this server (--var base=...), and lands signed in.
func TestImportSignInReplays(t *testing.T) {
	doc, err := os.ReadFile("../docs/record.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## Importing a Chrome DevTools Recorder flow\n")
	_, rest, _ := strings.Cut(section, "```json\n")
	recording, _, ok := strings.Cut(rest, "```\n")
	const password = "Corr3ct-Horse"
	if !ok || !strings.Contains(recording, password) {
		t.Fatalf("docs/record.md's import section has no recording typing %q", password)
	}
	dir := t.TempDir()
	rec, flow := filepath.Join(dir, "signin.json"), filepath.Join(dir, "signin.yaml")
	if err := os.WriteFile(rec, []byte(recording), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, code := bua(ctx, "import", "--strict", rec, "-o", flow); code != 0 {
		t.Fatalf("bua import: exit %d:\n%s", code, out)
	}
	text, _ := os.ReadFile(flow)
	if strings.Contains(string(text), password) {
		t.Fatalf("the flow holds the password:\n%s", text)
	}
	tab := openTab(t, "blank.html")
	base := strings.TrimSuffix(siteURL(""), "/")
	r := harness.Cmd{Bin: buaBin, Env: append(withoutEnv(buaEnv, "BUA_PASSWORD"), "BUA_PASSWORD="+password)}.Run(ctx, "run", flow, "--var", "base="+base)
	if r.Code != 0 {
		t.Fatalf("bua run: exit %d:\n%s\n%s", r.Code, r.Output(), text)
	}
	if strings.Contains(r.Output(), password) {
		t.Errorf("bua run printed the password:\n%s", r.Output())
	}
	if got := evalString(t, tab, "return document.getElementById('user').textContent"); got != "ada@example.com" {
		t.Errorf("the replay signed in as %q, want ada@example.com", got)
	}
}
