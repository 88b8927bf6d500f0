// Package parallel runs `bua run --parallel` in real headless Chromium with
// the real extension: three workers, each with a managed browser of its
// own (managed, managed-1, managed-2), on one daemon.
//
// TestMain builds bua, starts the three browsers once (`bua browser start
// --count 3`) and a fixture server whose /barrier answers only once N
// requests of one key wait on it: flows that navigate there can only pass
// if the workers run them at once, so the tests assert overlap, not speed.
// The tests run one after another on those browsers; the one that kills a
// worker's browser leaves the daemon's relaunch in its place. One test,
// TestParallel_StopsLaunchedBrowsers, runs on a home of its own, where
// each of its three runs launches two browsers and stops them: at most
// five browsers run at any time.
//
// Budget: about 60 s on a quiet 2-core machine (134 s measured at load
// 30), 180 s at most: the three browsers' start, a suite of six short
// flows, one of six with a browser killed and relaunched, one interrupted,
// and three runs of two flows that each launch and stop two browsers (30 s
// of it at load 2, 69 s at load 30).
package parallel

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

var (
	buaBin   string      // the binary built by TestMain
	home     string      // the workers' BUA_HOME
	bua      harness.Cmd // runs bua there
	base     string      // the fixture server's URL
	holds    = make(chan string, 8)
	barriers = &barrier{arrived: map[string]int{}, open: map[string]chan struct{}{}}
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	harness.RequireBrowser("parallel")
	tmp := harness.TempDir("buapar")
	defer os.RemoveAll(tmp)
	buaBin = harness.BuildBua("../..", tmp)
	stop := serve()
	defer stop()

	home = filepath.Join(tmp, "home")
	bua = harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(home)}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	r := bua.Run(ctx, "browser", "start", "--headless", "--count", "3")
	cancel()
	if r.Code != 0 {
		harness.DumpLogs(home)
		log.Fatalf("parallel: bua browser start --count 3 exited %d:\n%s", r.Code, r.Output())
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		bua.Run(ctx, "browser", "stop")
		bua.Run(ctx, "stop")
	}()
	code := m.Run()
	if code != 0 {
		harness.DumpLogs(home)
	}
	return code
}

// serve starts the fixture server:
//
//   - /barrier?key=K&n=N answers each request once N requests of key K
//     have arrived (within 60 s, else 504), with a page titled K;
//   - /hold?worker=I tells holds that worker I is there, then answers only
//     when the request goes away (its browser died) or after 60 s;
//   - /page?delay=D answers a small page after D (at most 10 s).
func serve() (stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/barrier", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		key := r.URL.Query().Get("key")
		select {
		case <-barriers.arrive(key, n):
		case <-time.After(60 * time.Second):
			http.Error(w, "the others never came", http.StatusGatewayTimeout)
			return
		case <-r.Context().Done():
			return
		}
		page(w, key)
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		holds <- r.URL.Query().Get("worker")
		select {
		case <-r.Context().Done():
		case <-time.After(60 * time.Second):
			page(w, "held")
		}
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		if d, err := time.ParseDuration(r.URL.Query().Get("delay")); err == nil && d > 0 && d <= 10*time.Second {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		page(w, "page")
	})
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	base = srv.URL
	return srv.Close
}

func page(w http.ResponseWriter, title string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><p>%s</p>", title, title)
}

// barrier counts arrivals per key.
type barrier struct {
	mu      sync.Mutex
	arrived map[string]int
	open    map[string]chan struct{}
}

// arrive counts one arrival at key and returns the channel closed once n
// have arrived.
func (b *barrier) arrive(key string, n int) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := b.open[key]
	if ch == nil {
		ch = make(chan struct{})
		b.open[key] = ch
	}
	if b.arrived[key]++; b.arrived[key] == n {
		close(ch)
	}
	return ch
}
