package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// traceDialogs returns the dialog events of tab's trace that record an
// answer, as "level text: answer by action".
func traceDialogs(t *testing.T, tab string) []string {
	t.Helper()
	var tr struct {
		Events []struct {
			Kind, Level, Text, Answer, Action string
		} `json:"events"`
	}
	out := mustCLI(t, "trace", "--tab", tab, "--json").Stdout
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("bua trace --json: %v\n%s", err, out)
	}
	var got []string
	for _, ev := range tr.Events {
		if ev.Kind == "dialog" && ev.Answer != "" {
			got = append(got, fmt.Sprintf("%s %s: %s by %s", ev.Level, ev.Text, ev.Answer, ev.Action))
		}
	}
	return got
}

// wantDialogHint checks the failure of an action that met a dialog under
// the default --dialogs leave: it names the dialog, and its hint names
// --dialogs as the way out.
func wantDialogHint(t *testing.T, r cliRun, reason string, args ...string) {
	t.Helper()
	wantCLIError(t, r, 1, "invalid_action", args...)
	if !strings.Contains(r.Stderr, `an alert "Welcome to the old site" is open on tab`) {
		t.Errorf("bua %s: the error does not name the alert:\n%s", strings.Join(args, " "), r.Stderr)
	}
	if !strings.Contains(r.Stderr, "hint: ") || !strings.Contains(r.Stderr[strings.Index(r.Stderr, "hint: "):], "--dialogs dismiss") {
		t.Errorf("bua %s: the hint does not name --dialogs:\n%s", strings.Join(args, " "), r.Stderr)
	}
	body := wantCLIJSONError(t, cliCmd(t, append([]string{"--json"}, args...)...), 1, "invalid_action", args...)
	if body.Reason != "dialog_open" || !strings.Contains(body.Hint, "--dialogs") {
		t.Errorf("bua --json %s: %+v, want reason dialog_open and a hint naming --dialogs", strings.Join(args, " "), body)
	}
	_ = reason
}

// TestDialogsCLI_AlertOnLoad: a page that greets with an alert traps its
// tab under the default --dialogs leave (navigate fails at once, its hint
// naming --dialogs); --dialogs accept answers the alert and leaves the
// page, says so on stderr, and the trace records the answer.
//
// The page opens in a spare tab: an open before it makes the managed
// browser ready one, attached ahead of need (docs/extension.md
// §Dispatcher rules), and the alert must be seen there as in a new tab.
func TestDialogsCLI_AlertOnLoad(t *testing.T) {
	cliOpen(t, "blank.html")
	start := time.Now()
	tab := cliOpen(t, "nav/alert-on-load.html")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("bua open of a page with an alert took %v: open_tab waited for a load the alert holds back", took)
	}
	target := siteURL("nav/target.html")
	args := []string{"navigate", "--tab", tab, target}
	wantDialogHint(t, cliCmd(t, args...), "dialog_open", args...)

	r := mustCLI(t, "--dialogs", "accept", "navigate", "--tab", tab, target)
	if want := `bua: accepted alert "Welcome to the old site" (--dialogs accept)`; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q, want it to say %q", r.Stderr, want)
	}
	if got := cliEval(t, tab, "return location.pathname"); got != "/nav/target.html" {
		t.Errorf("after navigate --dialogs accept the tab shows %s", got)
	}
	if got, want := traceDialogs(t, tab), []string{"alert Welcome to the old site: accepted by navigate"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("trace's answers = %q, want %q", got, want)
	}
	if out := mustCLI(t, "trace", "--tab", tab).Stdout; !strings.Contains(out, "Welcome to the old site: accepted by navigate") {
		t.Errorf("bua trace does not show the answer:\n%s", out)
	}
}

// TestDialogsCLI_AlertWhileLoading: navigating to the alert page under
// --dialogs dismiss answers the alert as it opens and still waits for the
// page's load; under leave the navigate fails at once (dialog_opened).
func TestDialogsCLI_AlertWhileLoading(t *testing.T) {
	tab := cliOpen(t, "blank.html")
	page := siteURL("nav/alert-on-load.html")
	args := []string{"navigate", "--tab", tab, page}
	start := time.Now()
	r := cliCmd(t, args...)
	wantCLIError(t, r, 1, "invalid_action", args...)
	if !strings.Contains(r.Stderr, "(it opened during navigate)") || !strings.Contains(r.Stderr, "--dialogs") || time.Since(start) > 5*time.Second {
		t.Errorf("navigate to a page that opens an alert: %q after %v", r.Stderr, time.Since(start))
	}
	mustCLI(t, "dialog", "accept", "--tab", tab)

	r = mustCLI(t, "--dialogs", "dismiss", "navigate", "--tab", tab, page)
	if !strings.Contains(r.Stderr, `dismissed alert "Welcome to the old site"`) {
		t.Errorf("stderr %q, want the dismissed alert", r.Stderr)
	}
	if got := cliEval(t, tab, "return document.readyState + ' ' + document.body.innerText.includes('Read on after the alert.')"); got != "complete true" {
		t.Errorf("after navigate --dialogs dismiss: %s, want the page loaded past its alert", got)
	}
}

// TestDialogsCLI_BeforeUnload: a page with unsaved changes asks
// beforeunload. Under --dialogs dismiss, navigate, reload and back still
// leave it (the beforeunload is accepted, as dismissing it would cancel
// the very navigation); close under leave fails at once rather than hang,
// naming --dialogs, and --dialogs accept then closes the tab.
func TestDialogsCLI_BeforeUnload(t *testing.T) {
	tab := cliOpen(t, "blank.html")
	page := siteURL("nav/beforeunload.html")
	dirty := func() {
		t.Helper()
		mustCLI(t, "navigate", "--tab", tab, page)
		mustCLI(t, "type", "--tab", tab, "#draft", "unsaved words")
	}
	left := func(what, want string) {
		t.Helper()
		if got := cliEval(t, tab, "return location.pathname + ' [' + (document.querySelector('#draft') ? document.querySelector('#draft').value : '-') + ']'"); got != want {
			t.Errorf("after %s the tab shows %q, want %q", what, got, want)
		}
	}
	accepted := `accepted beforeunload`

	dirty()
	r := mustCLI(t, "--dialogs", "dismiss", "navigate", "--tab", tab, siteURL("nav/target.html"))
	if !strings.Contains(r.Stderr, accepted) {
		t.Errorf("navigate --dialogs dismiss: stderr %q, want %q", r.Stderr, accepted)
	}
	left("navigate --dialogs dismiss", "/nav/target.html [-]")

	dirty()
	if r = mustCLI(t, "--dialogs", "dismiss", "reload", "--tab", tab); !strings.Contains(r.Stderr, accepted) {
		t.Errorf("reload --dialogs dismiss: stderr %q, want %q", r.Stderr, accepted)
	}
	left("reload --dialogs dismiss", "/nav/beforeunload.html []")

	mustCLI(t, "type", "--tab", tab, "#draft", "more words")
	if r = mustCLI(t, "--dialogs", "dismiss", "back", "--tab", tab); !strings.Contains(r.Stderr, accepted) || !strings.Contains(r.Stdout, "/nav/target.html") {
		t.Errorf("back --dialogs dismiss: %q %q", r.Stdout, r.Stderr)
	}
	left("back --dialogs dismiss", "/nav/target.html [-]")
	if got := traceDialogs(t, tab); len(got) != 3 || !strings.HasSuffix(got[0], "accepted by navigate") || !strings.HasSuffix(got[1], "accepted by reload") || !strings.HasSuffix(got[2], "accepted by go_back") {
		t.Errorf("trace's answers = %q", got)
	}

	dirty()
	handle := cliHandle(t, tab)
	args := []string{"close", tab}
	start := time.Now()
	r = cliCmd(t, args...)
	wantCLIError(t, r, 1, "invalid_action", args...)
	if !strings.Contains(r.Stderr, "a beforeunload") || !strings.Contains(r.Stderr, "--dialogs") || time.Since(start) > 5*time.Second {
		t.Errorf("close of a page that asks beforeunload: %q after %v, want a fast dialog_opened naming --dialogs", r.Stderr, time.Since(start))
	}
	if r = mustCLI(t, "--dialogs", "accept", "close", tab); !strings.Contains(r.Stdout, "closed ("+handle+")") || !strings.Contains(r.Stderr, accepted) {
		t.Errorf("close --dialogs accept: %q %q", r.Stdout, r.Stderr)
	}
	id, _ := strconv.Atoi(tab)
	if _, ok := hasTab(getTabs(t), id); ok {
		t.Errorf("tab %s is still open after close --dialogs accept", tab)
	}
}

// TestDialogsCLI_Batch: a batch of navigations over pages, one of which
// greets with an alert, keeps working under --dialogs accept, where under
// the default every navigation after that page failed.
func TestDialogsCLI_Batch(t *testing.T) {
	tab := cliOpen(t, "blank.html")
	pages := []string{"nav/target.html", "nav/alert-on-load.html", "form.html", "index.html", "nav/newtab.html"}
	var failed []string
	for _, p := range pages {
		if r := cliCmd(t, "navigate", "--tab", tab, siteURL(p)); r.Code != 0 {
			failed = append(failed, p)
		}
	}
	if want := pages[1:]; fmt.Sprint(failed) != fmt.Sprint(want) {
		t.Errorf("under --dialogs leave the navigations that failed are %q, want every one from the alert page on: %q", failed, want)
	}
	mustCLI(t, "dialog", "dismiss", "--tab", tab)
	for _, p := range pages {
		mustCLI(t, "--dialogs", "accept", "navigate", "--tab", tab, siteURL(p))
		if got := cliEval(t, tab, "return location.pathname"); got != "/"+strings.TrimSuffix(p, "index.html") {
			t.Errorf("after navigating to %s the tab shows %s", p, got)
		}
	}
}

// TestDialogsFlow: a flow's dialogs: dismiss rides on navigate (its
// dialogs param): the alert a page greets with is answered while it loads
// and the beforeunload of an edited page is accepted, each recorded in the
// step's report.
func TestDialogsFlow(t *testing.T) {
	data := runSiteFlow(t, `name: Leave pages with dialogs
dialogs: dismiss
steps:
  - open_tab: ${{ vars.base_url }}/blank.html
  - navigate: ${{ vars.base_url }}/nav/alert-on-load.html
  - wait_for: { text: "Read on after the alert." }
  - navigate: ${{ vars.base_url }}/nav/beforeunload.html
  - type: { selector: "#draft", text: "unsaved" }
  - navigate: ${{ vars.base_url }}/nav/target.html
  - evaluate: "return location.pathname"
  - assert: last.value == "/nav/target.html"
`)
	var rep struct {
		Flows []struct {
			Steps []struct {
				Kind    string         `json:"kind"`
				Params  map[string]any `json:"params"`
				Dialogs []struct{ Type, Message, How string }
			} `json:"steps"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range rep.Flows[0].Steps {
		for _, d := range st.Dialogs {
			got = append(got, fmt.Sprintf("%s: %s %q %s", st.Kind, d.Type, d.Message, d.How))
		}
	}
	want := []string{`navigate: alert "Welcome to the old site" dismissed`, `navigate: beforeunload "" accepted`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dialogs in the report: %q, want %q", got, want)
	}
}

// runSiteFlow runs the flow src with `bua run --serve testdata/sites`
// (vars.base_url) and returns its JSON report; the flow must pass.
func runSiteFlow(t *testing.T, src string) []byte {
	t.Helper()
	dir := t.TempDir()
	sites, err := filepath.Abs("../testdata/sites")
	if err != nil {
		t.Fatal(err)
	}
	flow, report := filepath.Join(dir, "flow.yaml"), filepath.Join(dir, "report.json")
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cliCmd(t, "run", flow, "--serve", sites, "--report", "json="+report); r.Code != 0 {
		t.Fatalf("bua run: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
