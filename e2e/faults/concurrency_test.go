//go:build linux

package faults

import (
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestConcurrentEvals: 32 `bua eval` processes at once on one tab, each
// returning its own index after a random pause of up to 30 ms in the page.
// They reach the daemon in any order, the tab runs them one at a time (the
// dispatcher's per-tab queue), and the pool matches each response by its
// request id: every call succeeds with its own index, none gets another's
// answer, and nothing is left in flight or answered twice.
func TestConcurrentEvals(t *testing.T) {
	exclusive(t)
	tab := openTab(t, shared, siteURL("form.html"))
	strayBefore := strays(t, sharedHome)
	const n = 32
	results := make([]timed, n)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			expr := "return new Promise(r => setTimeout(() => r(" + strconv.Itoa(i) + "), Math.random() * 30))"
			results[i] = <-start(shared, 60*time.Second, "--json", "eval", "--tab", tab, expr)
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	for i, r := range results {
		var res struct {
			Value *int `json:"value"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &res) != nil || res.Value == nil {
			t.Errorf("eval %d: exit %d\n%s", i, r.Code, r.Output())
			continue
		}
		if *res.Value != i {
			t.Errorf("eval %d answered %d: a crossed response", i, *res.Value)
		}
	}
	t.Logf("%d concurrent evals on one tab took %s in all", n, took.Round(time.Millisecond))
	everyAnswered(t, shared, sharedHome, strayBefore)
}
