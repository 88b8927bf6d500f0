package userflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The page scripts of the steps a flow runs as an evaluate: a wait that
// polls a condition (waitForExpression, and a waitForElement no wait_for
// can say), a scroll to a position. Each is a function body for evaluate (use return).

// pollEvery is how often a wait's page script checks its condition,
// @puppeteer/replay's own pace (waitForFunction polls every 100 ms).
const pollEvery = 100 * time.Millisecond

// maxPoll is the longest a wait's page script polls: an evaluate ends
// after 10 s (docs/protocol.md#evaluate), and the answer needs the
// rest.
const maxPoll = 9 * time.Second

// pageAlt is the alternative a page script queries for a step: its first
// plain CSS selector, else its first alternative a script can query
// (pierce/, XPath, a path through shadow roots); nil when none.
func pageAlt(alts [][]string) []string {
	for _, a := range alts {
		if k, _ := selectorKind(a[0]); len(a) == 1 && k == kindCSS {
			return a
		}
	}
	if len(alts) > 0 {
		return alts[0]
	}
	return nil
}

// elementJS is a JS expression for the first element path finds
// (elementsJS), or undefined.
func elementJS(path []string) string {
	if k, _ := selectorKind(path[0]); len(path) == 1 && k == kindCSS {
		return "document.querySelector(" + jsValue(path[0]) + ")"
	}
	return elementsJS(path) + "[0]"
}

// elementsJS is a JS expression for the elements path finds, as
// @puppeteer/replay reads a selector: each part of a path is looked up in
// the shadow root of the element before (when it has one, else inside
// it); a part is CSS, pierce/ (CSS that also looks inside every open
// shadow root) or xpath/.
func elementsJS(path []string) string {
	if len(path) == 1 {
		if k, rest := selectorKind(path[0]); k == kindCSS {
			return "[...document.querySelectorAll(" + jsValue(path[0]) + ")]"
		} else if k == kindXPath {
			return "(() => { const r = document.evaluate(" + jsValue(rest) + ", document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null); return Array.from({ length: r.snapshotLength }, (_, i) => r.snapshotItem(i)); })()"
		}
	}
	// Only the branches the path needs: most are CSS through shadow roots.
	query := "[...root.querySelectorAll(sel)]"
	var xpath, pierce bool
	for _, part := range path {
		k, _ := selectorKind(part)
		xpath, pierce = xpath || k == kindXPath, pierce || k == kindPierce
	}
	if pierce {
		query = `(() => {
    if (!sel.startsWith("pierce/")) return ` + query + `;
    const out = [];
    const walk = (r) => {
      out.push(...r.querySelectorAll(sel.slice(7)));
      r.querySelectorAll("*").forEach((el) => el.shadowRoot && walk(el.shadowRoot));
    };
    walk(root);
    return out;
  })()`
	}
	if xpath {
		query = `sel.startsWith("xpath/") ? (() => {
    const r = document.evaluate(sel.slice(6), root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    return Array.from({ length: r.snapshotLength }, (_, i) => r.snapshotItem(i));
  })() : ` + query
	}
	js := jsValue(path)
	if !xpath && !pierce {
		return js + ".reduce((found, sel) => found.flatMap((el) => [...(el.shadowRoot || el).querySelectorAll(sel)]), [document])"
	}
	return js + ".reduce((found, sel) => found.flatMap((el) => {\n  const root = el.shadowRoot || el;\n  return " + query + ";\n}), [document])"
}

// pollJS is a page script that checks cond (a JS expression, awaited)
// every pollEvery until it is true, for at most d, and returns whether it
// became true.
func pollJS(prelude, cond string, d time.Duration) string {
	return prelude + fmt.Sprintf(`const until = Date.now() + %d;
for (;;) {
  if (%s) return true;
  if (Date.now() > until) return false;
  await new Promise((r) => setTimeout(r, %d));
}`, d.Milliseconds(), cond, pollEvery.Milliseconds())
}

// waitExpressionJS polls a waitForExpression's expression until it is
// truthy.
func waitExpressionJS(expr string, d time.Duration) string {
	return pollJS("", "await ("+strings.TrimSpace(expr)+")", d)
}

// waitElementJS polls a waitForElement's condition, as @puppeteer/replay
// checks it: the count of matches compared by operator (>=, == or <=),
// and every match with the attributes and properties given (a property
// matches when each of its own keys does, deeply); visible false waits
// for that to be false instead.
func waitElementJS(path []string, op string, count int, attrs map[string]string, props json.RawMessage, visible bool, d time.Duration) string {
	if op == "" {
		op = ">="
	}
	if op == "==" {
		op = "==="
	}
	var b strings.Builder
	cond := fmt.Sprintf("els.length %s %d", op, count)
	if len(attrs) > 0 {
		fmt.Fprintf(&b, "const attrs = %s;\n", jsValue(attrs))
		cond += " && els.every((el) => Object.entries(attrs).every(([k, v]) => el.getAttribute(k) === v))"
	}
	if len(props) > 0 {
		var compact bytes.Buffer
		_ = json.Compact(&compact, props)
		fmt.Fprintf(&b, "const props = %s;\n", compact.String())
		b.WriteString("const like = (want, got) => want === got || (want instanceof Object && got instanceof Object && Object.entries(want).every(([k, v]) => like(v, got[k])));\n")
		cond += " && els.every((el) => like(props, el))"
	}
	fmt.Fprintf(&b, "const holds = () => {\n  const els = %s;\n  return %s;\n};\n", elementsJS(path), cond)
	want := "holds()"
	if !visible {
		want = "!holds()"
	}
	return pollJS(b.String(), want, d)
}

// scrollJS scrolls the page, or the first element path finds, to x, y
// (absolute CSS pixels, as the Recorder records a scroll).
func scrollJS(path []string, x, y float64) string {
	if path == nil {
		return fmt.Sprintf("window.scroll(%s, %s);", num(x), num(y))
	}
	return fmt.Sprintf(`const el = %s;
if (!el) throw new Error("no element to scroll: nothing matches the recording's selectors");
el.scrollTop = %s;
el.scrollLeft = %s;`, elementJS(path), num(y), num(x))
}

// num is a JS number literal for f.
func num(f float64) string { return fmt.Sprint(f) }

// pollWindow is how long a wait polls: the step's timeout (ms; 0 for the
// Recorder's default of 5 s), at most maxPoll.
func pollWindow(ms int) time.Duration {
	d := 5 * time.Second
	if ms > 0 {
		d = time.Duration(ms) * time.Millisecond
	}
	return min(d, maxPoll)
}

// jsValue is v as a JavaScript literal (JSON, with <, > and & as they
// are: the script is no HTML).
func jsValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
