package e2e

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests prove that reads are complete (docs/commands.md#what-extract-reads): extract waits
// for content a script reveals, flags a page that stays blank, never cuts
// its element list silently, and a page that cannot load says so.

type readResult struct {
	Markdown      string            `json:"markdown"`
	Elements      []json.RawMessage `json:"elements"`
	ElementsTotal int               `json:"elementsTotal"`
	Empty         bool              `json:"empty"`
}

// TestExtract_RevealedBody: a body hidden until script reveals it (after
// 800 ms) is read with its content.
func TestExtract_RevealedBody(t *testing.T) {
	tab := openTab(t, "reveal.html")
	var r readResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	wantContains(t, "markdown", r.Markdown, "Revealed headline")
	if r.Empty {
		t.Error("a revealed page is flagged empty")
	}
}

// TestExtract_ShadowPage: a page drawn in an open shadow root (its body
// holds only the custom element's host, so innerText is empty) is read
// with its content, is not empty, and is read without the empty-page
// wait (extract.js CONTENT_WAIT_MS, 2.5 s). The bound includes the CLI's
// own start; before the fix the read took 2.55 s and said empty.
func TestExtract_ShadowPage(t *testing.T) {
	tab := openTab(t, "shadow-app.html")
	var r frameExtract
	start := time.Now()
	res, e, _ := request(t, map[string]any{"type": "extract", "tabId": tab})
	took := time.Since(start)
	if e != nil {
		t.Fatalf("extract: %s: %s", e.Code, e.Message)
	}
	var flags readResult
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(res, &flags); err != nil {
		t.Fatal(err)
	}
	if flags.Empty {
		t.Errorf("a page drawn in a shadow root is flagged empty: %s", res)
	}
	wantContains(t, "markdown", r.Markdown, "# Shadow app\n\nEverything here lives in the shadow root.")
	r.find(t, "button", "Continue")
	if took >= time.Second {
		t.Errorf("extract took %v, want well under the 2.5 s empty-page wait", took)
	}
}

// TestExtract_SelectorReadsEveryMatch: --selector reads every match in
// document order, not the first: one markdown block per match, their
// elements in turn (an option's parent uid shifted with its select) within
// one cap, a match inside another read with it, and what is outside the
// matches (the page's headline, the footer's button) left out.
func TestExtract_SelectorReadsEveryMatch(t *testing.T) {
	tab := openTab(t, "cards.html")
	type element struct {
		UID    string `json:"uid"`
		Role   string `json:"role"`
		Name   string `json:"name"`
		Parent string `json:"parent"`
	}
	var r struct {
		Markdown      string    `json:"markdown"`
		Text          string    `json:"text"`
		Elements      []element `json:"elements"`
		ElementsTotal int       `json:"elementsTotal"`
		Matches       int       `json:"matches"`
	}
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "selector": ".card"}, &r)
	want := "## Free\n\nFor one person.\n\nChoose Free\n\n## Team\n\nFor a small team.\n\nSeats Choose Team\n\nMost teams pick this one.\n\n## Company\n\nFor everyone.\n\n[Contact sales](/contact)"
	if strings.TrimSpace(r.Markdown) != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", r.Markdown, want)
	}
	if r.Matches != 3 {
		t.Errorf("matches %d, want 3 (the card inside a card is read with it)", r.Matches)
	}
	if strings.Count(r.Text, "Most teams pick this one.") != 1 || !strings.Contains(r.Text, "Choose Free") || !strings.Contains(r.Text, "Contact sales") {
		t.Errorf("text %q, want every card's once", r.Text)
	}
	var got []string
	for _, e := range r.Elements {
		got = append(got, e.UID+" "+e.Role+" "+e.Name+" "+e.Parent)
	}
	wantEls := []string{"e0 button Choose Free ", "e1 combobox Seats ", "e2 option 5 e1", "e3 option 10 e1", "e4 button Choose Team ", "e5 link Contact sales "}
	if strings.Join(got, "|") != strings.Join(wantEls, "|") || r.ElementsTotal != 6 {
		t.Errorf("elements %q (total %d), want %q (total 6)", got, r.ElementsTotal, wantEls)
	}

	var capped readResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "selector": ".card", "maxElements": 3}, &capped)
	if len(capped.Elements) != 3 || capped.ElementsTotal != 6 {
		t.Errorf("maxElements 3: %d of %d elements, want 3 of 6", len(capped.Elements), capped.ElementsTotal)
	}

	out := mustCLI(t, "extract", "--tab", strconv.Itoa(tab), "--selector", ".card").Stdout
	if !strings.HasPrefix(out, "matches: 3, read in document order\n\n## Free\n") {
		t.Errorf("bua extract --selector .card printed:\n%s", out)
	}
	one := mustCLI(t, "extract", "--tab", strconv.Itoa(tab), "--selector", "h1").Stdout
	if !strings.HasPrefix(one, "# Plans\n") {
		t.Errorf("bua extract --selector h1 printed:\n%s", one)
	}
}

// TestExtract_BlankPage: a page still blank after the wait is read and
// flagged empty, and the CLI says so on one line.
func TestExtract_BlankPage(t *testing.T) {
	tab := openTab(t, "blank.html")
	var r readResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	if !r.Empty {
		t.Errorf("a blank page is not flagged empty: %+v", r)
	}
	out := mustCLI(t, "extract", "--tab", strconv.Itoa(tab)).Stdout
	wantContains(t, "bua extract on a blank page", out, "empty: the page showed no text")
}

// TestExtract_ElementCap: 1,000 buttons are counted; the default list stops
// at 200 and the CLI says so; --max-elements 1000 lists them all.
func TestExtract_ElementCap(t *testing.T) {
	tab := openTab(t, "buttons.html")
	var r readResult
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	if len(r.Elements) != 200 || r.ElementsTotal != 1000 {
		t.Errorf("extract lists %d of %d elements, want 200 of 1000", len(r.Elements), r.ElementsTotal)
	}
	id := strconv.Itoa(tab)
	out := mustCLI(t, "extract", "--tab", id).Stdout
	wantContains(t, "bua extract on 1000 buttons", out, "elements: 200 of 1000 listed; narrow with --selector or widen with --max-elements 1000")

	var all readResult
	js := mustCLI(t, "extract", "--tab", id, "--max-elements", "1000", "--format", "json").Stdout
	if err := json.Unmarshal([]byte(js), &all); err != nil {
		t.Fatalf("extract --format json: %v", err)
	}
	if len(all.Elements) != 1000 || all.ElementsTotal != 1000 {
		t.Errorf("--max-elements 1000 lists %d of %d elements, want 1000 of 1000", len(all.Elements), all.ElementsTotal)
	}
	if out := mustCLI(t, "extract", "--tab", id, "--max-elements", "1000").Stdout; strings.Contains(out, " listed; narrow") {
		t.Errorf("an uncut list still prints the cut line")
	}
}

// TestNavigate_SlowLoad: a page that takes 30 s to load loads under
// --timeout 50s. The one long test; it runs in parallel with the others.
func TestNavigate_SlowLoad(t *testing.T) {
	t.Parallel()
	tab := strconv.Itoa(openTab(t, "cli/cli.html"))
	r := runCLI(t, cliOpts{}, "navigate", "--tab", tab, "--timeout", "50s", siteURL("slow-load?ms=30000"))
	if r.Code != 0 {
		t.Fatalf("navigate to a 30 s page with --timeout 50s: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestNavigate_RefusedPort: a refused connection is internal_error with
// reason net::ERR_CONNECTION_REFUSED and the URL in the message, and the
// CLI's hint blames the page, not bua.
func TestNavigate_RefusedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	ln.Close()
	tab := openTab(t, "cli/cli.html")

	e := wantError(t, map[string]any{"type": "navigate", "tabId": tab, "url": url}, "internal_error")
	if e.Reason != "net::ERR_CONNECTION_REFUSED" {
		t.Errorf("reason = %q, want net::ERR_CONNECTION_REFUSED", e.Reason)
	}
	wantContains(t, "message", e.Message, url)

	id := strconv.Itoa(tab)
	r := cliCmd(t, "navigate", "--tab", id, url)
	wantCLIError(t, r, r.Code, "internal_error", "navigate", url)
	wantContains(t, "stderr", r.Stderr, "hint: the page could not be loaded")
	body := wantCLIJSONError(t, cliCmd(t, "navigate", "--tab", id, "--json", url), r.Code, "internal_error", "navigate", "--json", url)
	if body.Reason != "net::ERR_CONNECTION_REFUSED" {
		t.Errorf("--json reason = %q, want net::ERR_CONNECTION_REFUSED", body.Reason)
	}
}
