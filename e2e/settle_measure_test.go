package e2e

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// TestMeasureSettle prints when navigation events arrive after a click's
// input is acknowledged, straight on Chromium's DevTools socket. It is how
// the settle window in docs/extension.md §Settle was chosen; set
// BUA_MEASURE=1 to run it.
func TestMeasureSettle(t *testing.T) {
	if os.Getenv("BUA_MEASURE") == "" {
		t.Skip("set BUA_MEASURE=1")
	}
	for _, link := range []string{"#fast", "#slow", "#nothing"} {
		for round := 0; round < 3; round++ {
			q := "settle/actions.html?m=" + link[1:] + string(rune('0'+round))
			openTab(t, q)
			c, sess := rawSession(t, q)
			var start time.Time
			var events []string
			raw := func(method string, params map[string]any) json.RawMessage {
				id := c.seq.Add(1)
				c.ws.WriteJSON(map[string]any{"id": id, "method": method, "params": params, "sessionId": sess})
				for {
					var m struct {
						ID     int64           `json:"id"`
						Method string          `json:"method"`
						Params json.RawMessage `json:"params"`
						Result json.RawMessage `json:"result"`
					}
					if err := c.ws.ReadJSON(&m); err != nil {
						t.Fatal(err)
					}
					if m.ID == id {
						return m.Result
					}
					if m.Method != "" && m.Method != "Page.frameResized" && !start.IsZero() {
						p := string(m.Params)
						if len(p) > 110 {
							p = p[:110]
						}
						events = append(events, time.Since(start).Round(100*time.Microsecond).String()+" "+m.Method+" "+p)
					}
				}
			}
			raw("Page.enable", map[string]any{})
			raw("Page.setLifecycleEventsEnabled", map[string]any{"enabled": true})
			res := raw("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": "(() => { const r = document.querySelector('" + link + "').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"})
			var pt struct{ Result struct{ Value [2]float64 } }
			json.Unmarshal(res, &pt)
			x, y := pt.Result.Value[0], pt.Result.Value[1]
			for i := 0; i < 3; i++ {
				t0 := time.Now()
				raw("Runtime.evaluate", map[string]any{"expression": "1"})
				plain := time.Since(t0)
				t0 = time.Now()
				raw("Runtime.evaluate", map[string]any{"expression": "new Promise(r => setTimeout(r, 0))", "awaitPromise": true})
				task := time.Since(t0)
				t0 = time.Now()
				raw("Runtime.evaluate", map[string]any{"expression": "new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))", "awaitPromise": true})
				t.Logf("warm: plain %v task %v raf+task %v", plain, task, time.Since(t0))
			}
			start = time.Now()
			raw("Input.dispatchMouseEvent", map[string]any{"type": "mousePressed", "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1})
			raw("Input.dispatchMouseEvent", map[string]any{"type": "mouseReleased", "x": x, "y": y, "button": "left", "buttons": 0, "clickCount": 1})
			acked := time.Since(start)
			t0 := time.Now()
			raw("Runtime.evaluate", map[string]any{"expression": "new Promise(r => setTimeout(r, 0))", "awaitPromise": true})
			task := time.Since(t0)
			t0 = time.Now()
			raw("Runtime.evaluate", map[string]any{"expression": "new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))", "awaitPromise": true})
			raf := time.Since(t0)
			t.Logf("%s: input acked %v; task settle %v; raf+task settle %v", link, acked, task, raf)
			for _, e := range events {
				t.Logf("  +%s", e)
			}
			deadline := time.Now().Add(3 * time.Second)
			c.ws.SetReadDeadline(deadline)
			for time.Now().Before(deadline) {
				var m struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				}
				if err := c.ws.ReadJSON(&m); err != nil {
					break
				}
				if m.Method == "" {
					continue
				}
				p := string(m.Params)
				if len(p) > 90 {
					p = p[:90]
				}
				t.Logf("  +%v %s %s", time.Since(start).Round(100*time.Microsecond), m.Method, p)
			}
			c.ws.Close()
		}
	}
}
