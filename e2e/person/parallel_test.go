//go:build linux

package person

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestParallelWindows: `bua run --parallel 2 --browser user` in the
// person's Chrome gives each worker a window of its own (open_tab's window
// key, feature own_windows): the two flows' tabs are in two windows, apart
// from each other and from the person's, each minimized and unfocused, and
// the person's tab keeps the focus. Typing and clicking work in both (each
// window has an active tab for input), each flow seeing its own worker's
// index.
func TestParallelWindows(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	mine := newPage(t, c, siteURL("person/mine.html?parallel"), nil)
	mine.front()
	mine.waitTrue(10*time.Second, `document.hasFocus()`)
	probe := extProbe(t, c)

	dir, out := t.TempDir(), t.TempDir()
	for _, n := range []string{"p1", "p2"} {
		src := fmt.Sprintf(`name: %s
steps:
  - navigate: %s
  - type: { selector: "#name", text: "W${{ env.BUA_WORKER_INDEX }}" }
  - click: "#go"
  - evaluate: "return document.getElementById('result').textContent"
`, n, siteURL("person/card.html?delay=1s&par="+n))
		if err := os.WriteFile(filepath.Join(dir, n+".yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	report := filepath.Join(out, "report.json")
	r := bua(t, "run", "--parallel", "2", "--report", "json="+report, dir)
	mustOK(t, "bua run --parallel 2 --browser user", r)
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Flows []struct {
			Name   string
			Worker *int
			Steps  []struct {
				Result struct {
					TabID int `json:"tabId"`
					Value any
				}
			}
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	windows := map[int]string{}
	for _, f := range rep.Flows {
		if f.Worker == nil || len(f.Steps) != 4 {
			t.Fatalf("%s: worker %v, %d steps", f.Name, f.Worker, len(f.Steps))
		}
		if got, want := f.Steps[3].Result.Value, "Hello, W"+strconv.Itoa(*f.Worker); got != want {
			t.Errorf("%s on worker %d: the page says %v, want %q", f.Name, *f.Worker, got, want)
		}
		tab := f.Steps[0].Result.TabID
		v := probe.eval(fmt.Sprintf(`(async () => {
			const tab = await chrome.tabs.get(%d);
			const w = await chrome.windows.get(tab.windowId);
			return { id: w.id, state: w.state, focused: w.focused };
		})()`, tab))
		raw, _ := json.Marshal(v)
		var w windowInfo
		if err := json.Unmarshal(raw, &w); err != nil || w.ID == 0 {
			t.Fatalf("%s's tab %d: no window (%v)", f.Name, tab, v)
		}
		if w.State != "minimized" || w.Focused {
			t.Errorf("%s's window %+v: want minimized and unfocused", f.Name, w)
		}
		if other, ok := windows[w.ID]; ok {
			t.Errorf("%s and %s share window %d: want a window per worker", f.Name, other, w.ID)
		}
		windows[w.ID] = f.Name
	}
	if f := mine.eval(`document.hasFocus()`); f != true {
		t.Errorf("after the parallel run the person's tab has the focus: %v, want true", f)
	}
}
