package e2e

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"
)

func TestMeasureSettleCost(t *testing.T) {
	if os.Getenv("BUA_MEASURE") == "" {
		t.Skip("set BUA_MEASURE=1")
	}
	q := "settle/actions.html?m=cost"
	openTab(t, q)
	c, sess := rawSession(t, q)
	call := func(method string, params map[string]any) json.RawMessage {
		r, err := c.call(sess, method, params)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	call("Runtime.enable", map[string]any{})
	res := call("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": "(() => { const r = document.querySelector('#nothing').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"})
	var pt struct{ Result struct{ Value [2]float64 } }
	json.Unmarshal(res, &pt)
	x, y := pt.Result.Value[0], pt.Result.Value[1]
	variants := map[string]string{
		"plain":       "0",
		"timeout0":    "new Promise(r => setTimeout(r, 0))",
		"message":     "new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); })",
		"postTaskUB":  "scheduler.postTask(() => 0, {priority: 'user-blocking'})",
		"postTaskUV":  "scheduler.postTask(() => 0, {priority: 'user-visible'})",
		"raf":         "new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))",
	}
	names := []string{"plain", "timeout0", "message", "postTaskUB", "postTaskUV", "raf"}
	samples := map[string][]time.Duration{}
	for i := 0; i < 30; i++ {
		for _, n := range names {
			call("Input.dispatchMouseEvent", map[string]any{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1})
			call("Input.dispatchMouseEvent", map[string]any{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1})
			t0 := time.Now()
			call("Runtime.evaluate", map[string]any{"expression": variants[n], "awaitPromise": true})
			samples[n] = append(samples[n], time.Since(t0))
		}
	}
	for _, n := range names {
		s := samples[n]
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		t.Logf("%-11s median %v p90 %v", n, s[len(s)/2], s[len(s)*9/10])
	}
}
