//go:build linux

package faults

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wrongHello dials the daemon's extension WebSocket as the extension would
// (its Origin, a v4 hello) with a wrong pairing token, and returns the
// close code the daemon ended it with.
func wrongHello(listen string) (int, error) {
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+listen+"/ws/browser", http.Header{"Origin": {extensionOrigin}})
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := ws.WriteJSON(map[string]any{"type": "hello", "protocolVersion": 4, "clientVersion": "flood", "pairingToken": strings.Repeat("0", 64)}); err != nil {
		return 0, err
	}
	return closeCode(ws)
}

// closeCode reads ws until the daemon closes it and returns the close
// code (a reject message may come first).
func closeCode(ws *websocket.Conn) (int, error) {
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, nil
			}
			return 0, err
		}
	}
}

// TestWrongTokenFlood: while goroutines flood the daemon with wrong-token
// hellos and wrong /pair/claim codes, the extension's worker is stopped
// and started again (stopWorker, startWorker) so it must hello in the
// middle of the flood. The
// daemon checks the token before its failure budget (handshake.go), so
// the flood, closed with 4029 once the budget is spent, never locks out
// the right token: the extension is back within 10 s of the flood ending
// (in practice during it), and the next action works.
func TestWrongTokenFlood(t *testing.T) {
	exclusive(t)
	cdp := sharedCDP(t)
	st := status(t, shared)
	url := siteURL("form.html?flood")
	tab := openTab(t, shared, url)
	strayBefore := strays(t, sharedHome)

	var (
		stop     atomic.Bool
		wg       sync.WaitGroup
		mu       sync.Mutex
		codes    = map[int]int{} // hello close code -> count
		claims   = map[int]int{} // /pair/claim status -> count
		dialErrs int
	)
	// Two hello and two claim loops, 5 ms apart: about 250 wrong hellos
	// and 250 wrong codes a second. A tighter loop on a 2-core machine
	// starves the browser of CPU (its worker then restarts only after the
	// flood), which would measure the machine, not the lockout.
	for range 2 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				time.Sleep(5 * time.Millisecond)
				code, err := wrongHello(st.Listen)
				mu.Lock()
				if err != nil {
					dialErrs++
				} else {
					codes[code]++
				}
				mu.Unlock()
			}
		}()
		go func() {
			defer wg.Done()
			for !stop.Load() {
				time.Sleep(5 * time.Millisecond)
				req, _ := http.NewRequest(http.MethodPost, "http://"+st.Listen+"/pair/claim", strings.NewReader(`{"code":"WRNG-CODE"}`))
				req.Header.Set("Origin", extensionOrigin)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				res.Body.Close()
				mu.Lock()
				claims[res.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // the failure budget is spent by now
	stopWorker(t, cdp)
	stopped := time.Now()
	startWorker(t, cdp, url) // the next event Chrome delivers: see startWorker
	// The flood goes on for 5 s after the worker restarted: the
	// extension's hello races it all that time.
	time.Sleep(5 * time.Second)
	stop.Store(true)
	wg.Wait()
	floodEnded := time.Now()

	back, ok := reconnectedAfter(t, shared, stopped, 10*time.Second+time.Since(stopped))
	mu.Lock()
	t.Logf("flood: hello close codes %v, dial errors %d, /pair/claim statuses %v", codes, dialErrs, claims)
	mu.Unlock()
	if codes[4029] == 0 || claims[http.StatusTooManyRequests] == 0 {
		t.Errorf("the flood never spent the failure budgets (hellos %v, claims %v): it proved nothing", codes, claims)
	}
	if !ok {
		t.Fatalf("the extension was not back within 10 s of the flood ending")
	}
	when := "during the flood"
	if at := stopped.Add(back); at.After(floodEnded) {
		when = at.Sub(floodEnded).Round(time.Millisecond).String() + " after the flood ended"
	}
	t.Logf("the extension was back %s after its worker restarted (%s)", back.Round(time.Millisecond), when)
	mustOK(t, "extract after the flood", run(t, shared, 30*time.Second, "extract", "--tab", tab))
	everyAnswered(t, shared, sharedHome, strayBefore)
}
