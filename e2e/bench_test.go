package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

// The two benchmarks click the same button on the same fixture: once
// through the whole bridge (Go client -> daemon -> extension ->
// chrome.debugger -> page) and once as the bare Input.dispatchMouseEvent
// pair on Chromium's own DevTools socket. The difference is what the
// bridge costs per action. Both report the median as well as Go's mean.

// timeMedian runs step b.N times, timing each run, and reports the median
// beside Go's mean; setup done before it stays outside the timing.
func timeMedian(b *testing.B, step func()) {
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		step()
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	reportMedian(b, samples)
}

func reportMedian(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "median-ms")
}

func benchClient(b testing.TB) *bridge.Client {
	b.Helper()
	d, err := home.Resolve(func(k string) string {
		if k == "BUA_HOME" {
			return buaHome
		}
		return os.Getenv(k)
	})
	if err != nil {
		b.Fatal(err)
	}
	cl, berr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: d})
	if berr != nil {
		b.Fatal(berr)
	}
	b.Cleanup(func() { cl.Close() })
	return cl
}

func benchRequest(b testing.TB, cl *bridge.Client, action string) json.RawMessage {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cl.RequestRaw(ctx, json.RawMessage(action), false)
	if err != nil {
		b.Fatalf("%s: %v", action, err)
	}
	return res
}

// benchTab opens stale.html (one button) with a click counter in
// window.clicks, and returns its tab id; the tab closes when the benchmark
// ends.
func benchTab(b *testing.B, cl *bridge.Client, query string) int {
	b.Helper()
	tab := benchTabAt(b, cl, "stale.html?"+query)
	benchRequest(b, cl, fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"window.clicks = 0; document.getElementById('btn').addEventListener('click', () => window.clicks++); return 0"}`, tab))
	return tab
}

func clicksOn(b *testing.B, cl *bridge.Client, tab int) int {
	var r struct {
		Value int `json:"value"`
	}
	res := benchRequest(b, cl, fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"return window.clicks"}`, tab))
	if err := json.Unmarshal(res, &r); err != nil {
		b.Fatal(err)
	}
	return r.Value
}

func BenchmarkClickRoundTrip(b *testing.B) {
	cl := benchClient(b)
	tab := benchTab(b, cl, "bench=bridge")
	click := fmt.Sprintf(`{"type":"click","tabId":%d,"selector":"#btn"}`, tab)
	benchRequest(b, cl, click) // attach and warm up outside the timing
	timeMedian(b, func() { benchRequest(b, cl, click) })
	if got := clicksOn(b, cl, tab); got != b.N+1 {
		b.Fatalf("page saw %d clicks, want %d", got, b.N+1)
	}
}

func devToolsURL(b testing.TB) string {
	b.Helper()
	u, err := harness.DevToolsURL(harness.ManagedProfile(buaHome))
	if err != nil {
		b.Fatalf("managed browser: %v", err)
	}
	return u
}

// rawSession attaches a DevTools session to the page whose URL ends in
// suffix, straight on Chromium's own socket.
func rawSession(b testing.TB, suffix string) (*harness.CDP, string) {
	return attachTarget(b, func(ti harness.Target) bool { return ti.Type == "page" && strings.HasSuffix(ti.URL, suffix) })
}

// attachTarget attaches a DevTools session, on the managed browser's own
// socket, to the last target match picks.
func attachTarget(b testing.TB, match func(harness.Target) bool) (*harness.CDP, string) {
	b.Helper()
	c, err := harness.DialCDP(devToolsURL(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	targets, err := c.Targets()
	if err != nil {
		b.Fatal(err)
	}
	var targetID string
	for _, ti := range targets {
		if match(ti) {
			targetID = ti.TargetID
		}
	}
	if targetID == "" {
		b.Fatalf("no matching target among %+v", targets)
	}
	sess, err := c.Attach(targetID)
	if err != nil {
		b.Fatal(err)
	}
	return c, sess
}

// BenchmarkClickRawCDP is the bare floor: only the mousePressed and
// mouseReleased pair, with the point computed once up front.
func BenchmarkClickRawCDP(b *testing.B) {
	cl := benchClient(b)
	tab := benchTab(b, cl, "bench=raw")
	c, sess := rawSession(b, "stale.html?bench=raw")
	att := struct{ SessionID string }{sess}
	res, err := c.Call(att.SessionID, "Runtime.evaluate", map[string]any{
		"expression":    "(() => { const r = document.getElementById('btn').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
		"returnByValue": true,
	})
	if err != nil {
		b.Fatal(err)
	}
	var pt struct {
		Result struct {
			Value [2]float64 `json:"value"`
		} `json:"result"`
	}
	json.Unmarshal(res, &pt)
	x, y := pt.Result.Value[0], pt.Result.Value[1]
	press := map[string]any{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}
	release := map[string]any{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1}

	timeMedian(b, func() {
		if _, err := c.Call(att.SessionID, "Input.dispatchMouseEvent", press); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Call(att.SessionID, "Input.dispatchMouseEvent", release); err != nil {
			b.Fatal(err)
		}
	})
	if got := clicksOn(b, cl, tab); got != b.N {
		b.Fatalf("page saw %d clicks, want %d", got, b.N)
	}
}

// BenchmarkClickRawCDPSequence sends, straight to Chromium, the same CDP
// commands the extension sends for a selector click, batched the same way:
// find the node; describe, resolve and scroll it into view, take its box
// and the page's scroll offset in one go; check it is still in the page
// while hit-testing the centre; then move, press and release back to back.
// BenchmarkClickRoundTrip minus this is what bua itself adds to a click.
func BenchmarkClickRawCDPSequence(b *testing.B) { benchRawSequence(b, true) }

// BenchmarkClickRawCDPSerial sends the same commands one at a time, each
// after the previous answer: the floor for a client that cannot overlap
// commands, which is what chrome.debugger appears to do (see BENCHMARKS.md).
func BenchmarkClickRawCDPSerial(b *testing.B) { benchRawSequence(b, false) }

func benchRawSequence(b *testing.B, overlap bool) {
	cl := benchClient(b)
	query := fmt.Sprintf("bench=rawseq-%v", overlap)
	tab := benchTab(b, cl, query)
	c, sess := rawSession(b, "stale.html?"+query)
	call := func(method string, params map[string]any, out any) {
		res, err := c.Call(sess, method, params)
		if err != nil {
			b.Fatal(err)
		}
		if out != nil {
			if err := json.Unmarshal(res, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	call("DOM.enable", map[string]any{}, nil)
	call("Runtime.enable", map[string]any{}, nil)
	all := func(cmds ...harness.CDPCmd) []json.RawMessage {
		if !overlap {
			out := make([]json.RawMessage, len(cmds))
			for i, cmd := range cmds {
				res, err := c.Call(sess, cmd.Method, cmd.Params)
				if err != nil {
					b.Fatal(err)
				}
				out[i] = res
			}
			return out
		}
		res, err := c.CallAll(sess, cmds)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	click := func() {
		var doc struct{ Root struct{ NodeID int } }
		call("DOM.getDocument", map[string]any{"depth": 0}, &doc)
		var q struct{ NodeID int }
		call("DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": "#btn"}, &q)
		found := all(
			harness.CDPCmd{Method: "DOM.describeNode", Params: map[string]any{"nodeId": q.NodeID}},
			harness.CDPCmd{Method: "DOM.resolveNode", Params: map[string]any{"nodeId": q.NodeID, "objectGroup": "bench"}},
			harness.CDPCmd{Method: "DOM.scrollIntoViewIfNeeded", Params: map[string]any{"nodeId": q.NodeID}},
			harness.CDPCmd{Method: "DOM.getBoxModel", Params: map[string]any{"nodeId": q.NodeID}},
			harness.CDPCmd{Method: "Page.getLayoutMetrics", Params: map[string]any{}},
		)
		var obj struct{ Object struct{ ObjectID string } }
		var box struct{ Model struct{ Border []float64 } }
		var lm struct {
			CSSVisualViewport struct{ PageX, PageY float64 }
		}
		if json.Unmarshal(found[1], &obj) != nil || json.Unmarshal(found[3], &box) != nil || json.Unmarshal(found[4], &lm) != nil {
			b.Fatal("resolveNode, box model or layout metrics did not decode")
		}
		q8 := box.Model.Border
		x, y := (q8[0]+q8[2]+q8[4]+q8[6])/4, (q8[1]+q8[3]+q8[5]+q8[7])/4
		all(
			harness.CDPCmd{Method: "Runtime.callFunctionOn", Params: map[string]any{"objectId": obj.Object.ObjectID, "functionDeclaration": "function () { return this.isConnected === true; }", "returnByValue": true}},
			harness.CDPCmd{Method: "DOM.getNodeForLocation", Params: map[string]any{"x": int(x + lm.CSSVisualViewport.PageX), "y": int(y + lm.CSSVisualViewport.PageY), "includeUserAgentShadowDOM": true}},
		)
		all(
			harness.CDPCmd{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mouseMoved", "x": x, "y": y}},
			harness.CDPCmd{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}},
			harness.CDPCmd{Method: "Input.dispatchMouseEvent", Params: map[string]any{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1}},
		)
	}
	click() // warm up outside the timing, as the bridge benchmark does
	timeMedian(b, click)
	if got := clicksOn(b, cl, tab); got != b.N+1 {
		b.Fatalf("page saw %d clicks, want %d", got, b.N+1)
	}
}

// BenchmarkClickNothing clicks a button with no handler on
// settle/actions.html: the settle after input costs its one page task and
// nothing more. Run it against the raw CDP floor (BenchmarkClickRawCDP).
func BenchmarkClickNothing(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "settle/actions.html?bench=nothing")
	click := fmt.Sprintf(`{"type":"click","tabId":%d,"selector":"#nothing"}`, tab)
	benchRequest(b, cl, click)
	timeMedian(b, func() { benchRequest(b, cl, click) })
}

// BenchmarkClickNavigate clicks a same-origin link to a fast page and goes
// back with history.back() outside the timing. With the settle, the click
// returns once the new page reached DOMContentLoaded; before it, at once.
func BenchmarkClickNavigate(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "settle/actions.html?bench=navigate")
	click := fmt.Sprintf(`{"type":"click","tabId":%d,"selector":"#fast"}`, tab)
	back := fmt.Sprintf(`{"type":"navigate","tabId":%d,"url":%q}`, tab, siteURL("settle/actions.html?bench=navigate"))
	title := fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"return document.title"}`, tab)
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchRequest(b, cl, back)
		b.StartTimer()
		start := time.Now()
		benchRequest(b, cl, click)
		samples = append(samples, time.Since(start))
		b.StopTimer()
		if i == 0 {
			// Only the first: the title check is what the settle is for.
			if got := string(benchRequest(b, cl, title)); !strings.Contains(got, "Settle target") {
				b.Logf("title right after the click: %s", got)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	reportMedian(b, samples)
}

// benchTabAt opens path and returns its tab id; the tab closes when the
// benchmark ends.
func benchTabAt(b testing.TB, cl *bridge.Client, path string) int {
	b.Helper()
	var r struct {
		TabID int `json:"tabId"`
	}
	res := benchRequest(b, cl, fmt.Sprintf(`{"type":"open_tab","url":%q}`, siteURL(path)))
	if err := json.Unmarshal(res, &r); err != nil || r.TabID == 0 {
		b.Fatalf("open_tab: %s", res)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cl.RequestRaw(ctx, json.RawMessage(fmt.Sprintf(`{"type":"close_tab","tabId":%d}`, r.TabID)), false)
	})
	return r.TabID
}

// BenchmarkExtract100, 1000 and 5000 extract bench/buttons.html with that
// many buttons: the default 200 elements listed, elementsTotal counting
// them all. Compare with Playwright's ariaSnapshot on the same page
// (BENCHMARKS.md "Extract").
func BenchmarkExtract100(b *testing.B)  { benchExtract(b, 100) }
func BenchmarkExtract1000(b *testing.B) { benchExtract(b, 1000) }
func BenchmarkExtract5000(b *testing.B) { benchExtract(b, 5000) }

func benchExtract(b *testing.B, n int) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, fmt.Sprintf("bench/buttons.html?n=%d", n))
	extract := fmt.Sprintf(`{"type":"extract","tabId":%d}`, tab)
	check := func(res json.RawMessage) {
		var r struct {
			Elements      []json.RawMessage `json:"elements"`
			ElementsTotal int               `json:"elementsTotal"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.ElementsTotal != n || len(r.Elements) != min(n, 200) {
			b.Fatalf("extract listed %d of %d elements (%v), want %d of %d", len(r.Elements), r.ElementsTotal, err, min(n, 200), n)
		}
	}
	check(benchRequest(b, cl, extract)) // attach and warm up outside the timing
	timeMedian(b, func() { benchRequest(b, cl, extract) })
	check(benchRequest(b, cl, extract))
}

// BenchmarkExtractSteps extracts the 5,000-button page and logs where the
// time goes: each CDP command the extension sent, timed in the worker
// (through chrome.debugger), and the parts of the page script, timed in
// the page. The extension keeps the last extract's timings in its
// worker's globalThis.buaProfile, read here over the DevTools port.
func BenchmarkExtractSteps(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "bench/buttons.html?n=5000")
	extract := fmt.Sprintf(`{"type":"extract","tabId":%d}`, tab)
	benchRequest(b, cl, extract)
	c, sess := attachTarget(b, func(ti harness.Target) bool { return ti.Type == "service_worker" })
	type profile struct {
		Steps   [][2]any           `json:"steps"`
		Page    map[string]float64 `json:"page"`
		TotalMs float64            `json:"totalMs"`
	}
	var runs []profile
	timeMedian(b, func() {
		benchRequest(b, cl, extract)
		b.StopTimer()
		res, err := c.Call(sess, "Runtime.evaluate", map[string]any{"expression": "JSON.stringify(globalThis.buaProfile.extract)", "returnByValue": true})
		if err != nil {
			b.Fatal(err)
		}
		var v struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		var p profile
		if json.Unmarshal(res, &v) != nil || json.Unmarshal([]byte(v.Result.Value), &p) != nil || len(p.Steps) == 0 {
			b.Fatalf("no extract profile in the worker: %s", res)
		}
		runs = append(runs, p)
		b.StartTimer()
	})
	// The median of each step over the runs, in the order sent.
	med := func(xs []float64) float64 {
		sort.Float64s(xs)
		return xs[len(xs)/2]
	}
	var lines []string
	for i := range runs[0].Steps {
		var xs []float64
		for _, r := range runs {
			if i < len(r.Steps) && r.Steps[i][0] == runs[0].Steps[i][0] {
				xs = append(xs, r.Steps[i][1].(float64))
			}
		}
		lines = append(lines, fmt.Sprintf("%s %.1f ms", runs[0].Steps[i][0], med(xs)))
	}
	for _, k := range []string{"domToTree", "toMarkdown", "frames", "elements"} {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, r.Page[k])
		}
		lines = append(lines, fmt.Sprintf("page %s %.1f ms", k, med(xs)))
	}
	var tot []float64
	for _, r := range runs {
		tot = append(tot, r.TotalMs)
	}
	b.Logf("extract of 5,000 buttons, medians over %d runs: %s; in the worker %.1f ms", len(runs), strings.Join(lines, "; "), med(tot))
}

// BenchmarkFlowSteps runs the steps of bench/peers' 50-step flow on
// form.html, through the whole bridge as `bua run` sends them: type into
// #name, type into #email, click #terms, evaluate. It reports each kind's
// median (type-median-ms, click-median-ms, evaluate-median-ms; Go's ns/op
// is the four together) and fails unless the page saw every keystroke and
// click.
func BenchmarkFlowSteps(b *testing.B) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, "form.html?bench=steps")
	steps := []struct{ kind, action string }{
		{"type", fmt.Sprintf(`{"type":"type","tabId":%d,"selector":"#name","text":"Ada"}`, tab)},
		{"type", fmt.Sprintf(`{"type":"type","tabId":%d,"selector":"#email","text":"a@b.c"}`, tab)},
		{"click", fmt.Sprintf(`{"type":"click","tabId":%d,"selector":"#terms"}`, tab)},
		{"evaluate", fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"return document.getElementById('name').value.length"}`, tab)},
	}
	run := func(samples map[string][]time.Duration) {
		for _, s := range steps {
			start := time.Now()
			benchRequest(b, cl, s.action)
			if samples != nil {
				samples[s.kind] = append(samples[s.kind], time.Since(start))
			}
		}
	}
	run(nil) // attach and warm up outside the timing
	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(samples)
	}
	b.StopTimer()
	for _, kind := range []string{"type", "click", "evaluate"} {
		s := samples[kind]
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, kind+"-median-ms")
	}
	var got struct {
		Value string `json:"value"`
	}
	res := benchRequest(b, cl, fmt.Sprintf(`{"type":"evaluate","tabId":%d,"expression":"const v = (id) => document.getElementById(id); return [v('name').value.length, v('email').value.length, v('terms').checked].join()"}`, tab))
	if err := json.Unmarshal(res, &got); err != nil {
		b.Fatal(err)
	}
	n := b.N + 1
	if want := fmt.Sprintf("%d,%d,%v", 3*n, 5*n, n%2 == 1); got.Value != want {
		b.Fatalf("page has name, email lengths and terms %q, want %q", got.Value, want)
	}
}
