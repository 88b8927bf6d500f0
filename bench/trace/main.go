// Command trace names where one in-process evaluate's time goes, step by
// step, for any build of bua (BENCHMARKS.md §Where an action's time goes).
//
//	go run ./bench/trace -bua ./bua -n 200
//
// It starts the build's daemon and headless managed Chromium in a fresh
// BUA_HOME (under $TMPDIR), opens a page, and wraps, from outside, the
// extension's service worker through a DevTools session of its own (the
// browser gets --remote-debugging-port=0 through $BUA_CHROME, as the e2e
// harness does): JSON.parse of a request message (the worker has it),
// chrome.storage.session.set (the replay cache's writes) and its answer,
// chrome.debugger.sendCommand and its answer (CDP), and WebSocket.send of
// the response. Nothing in the extension changes, so a build from before
// the replay cache is traced the same way as today's. The Go side times
// the link's checks and dial (home.Dirs.CheckLink, the dial, CheckServer)
// and each request from send to answer; both sides read the wall clock
// (the worker's performance.timeOrigin + performance.now()), so the hops
// between them (daemon + WebSocket) come out of the difference.
//
// It prints the median time of each step, in order, with how many of the
// requests had it: a step that is a storage write on every request in
// one build and missing in another shows up as such.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
)

// instrument wraps the worker's entry and exit points. Each mark is
// [wall ms, what]. Installed once per worker; a restarted worker would
// lose it (the trace checks that the marks keep coming).
const instrument = `(() => {
  if (globalThis.__buaTrace) return "kept";
  const T = (globalThis.__buaTrace = []);
  const now = () => performance.timeOrigin + performance.now();
  const parse = JSON.parse;
  JSON.parse = function (text, ...rest) {
    if (typeof text === "string" && text.length < 4096 && text.includes('"type":"request"')) T.push([now(), "worker: request parsed"]);
    return parse.call(this, text, ...rest);
  };
  const area = chrome.storage.session;
  const set = area.set.bind(area);
  area.set = (items, ...rest) => {
    const key = Object.keys(items).some((k) => k.startsWith("replay:")) ? "replay" : Object.keys(items).join(",");
    T.push([now(), "storage.session.set(" + key + ") >"]);
    const p = set(items, ...rest);
    T.push([now(), "storage.session.set(" + key + ") returned"]);
    if (p && p.then) p.then(() => T.push([now(), "storage.session.set(" + key + ") <"]), () => {});
    return p;
  };
  const dbg = chrome.debugger;
  const send = dbg.sendCommand.bind(dbg);
  dbg.sendCommand = (target, method, ...rest) => {
    T.push([now(), "CDP " + method + " >"]);
    const p = send(target, method, ...rest);
    T.push([now(), "CDP " + method + " returned"]);
    if (p && p.then) p.then(() => T.push([now(), "CDP " + method + " <"]), () => T.push([now(), "CDP " + method + " failed"]));
    return p;
  };
  const wsSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === "string" && data.includes('"type":"response"')) T.push([now(), "worker: response sent"]);
    return wsSend.call(this, data);
  };
  return "installed";
})()`

// drain returns the marks since the last drain and empties the list.
const drain = `(() => { const t = globalThis.__buaTrace || []; return t.splice(0, t.length); })()`

func main() {
	bua := flag.String("bua", "bua", "the bua binary to trace (its daemon and embedded extension)")
	n := flag.Int("n", 200, "evaluates to trace")
	dials := flag.Int("dials", 200, "fresh dials to time (the link's checks and connect)")
	flag.StringVar(&probe, "probe", "", "also evaluate this expression in the worker (awaited) and print its value: a micro-benchmark of an API call there")
	flag.Parse()
	if err := run(*bua, *n, *dials); err != nil {
		fmt.Fprintln(os.Stderr, "trace:", err)
		os.Exit(1)
	}
}

var probe string

func run(bua string, n, dials int) error {
	bua, err := filepath.Abs(bua)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bua-trace-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	homeDir := filepath.Join(dir, "home")
	if err := os.Mkdir(homeDir, 0o700); err != nil {
		return err
	}
	env := map[string]string{
		"BUA_HOME": homeDir, "BUA_LISTEN": "127.0.0.1:0", "CI": "true",
		"BUA_CHROME": harness.DevToolsChrome(dir),
	}
	cli := command(bua, env)
	defer cli("stop")

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>trace</title><p>one evaluate</p>")
	}))
	defer page.Close()
	tabID, err := openTab(cli, page.URL)
	if err != nil {
		return err
	}

	cdp, worker, err := dialWorker(homeDir)
	if err != nil {
		return err
	}
	defer cdp.Close()
	if _, err := eval(cdp, worker, instrument); err != nil {
		return fmt.Errorf("instrument the worker: %v", err)
	}

	if probe != "" {
		v, err := eval(cdp, worker, probe)
		if err != nil {
			return err
		}
		fmt.Printf("probe: %s\n", v)
	}
	dirs, err := home.Resolve(func(k string) string { return env[k] })
	if err != nil {
		return err
	}
	t := &timings{steps: map[string][]float64{}}
	if err := t.dials(dirs, dials); err != nil {
		return err
	}

	cl, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: dirs})
	if perr != nil {
		return perr
	}
	defer cl.Close()
	action := json.RawMessage(fmt.Sprintf(`{"type":"evaluate","expression":"return 1","tabId":%d}`, tabID))
	for range 20 { // warm: the attach, the JIT
		if _, perr := cl.RequestRaw(context.Background(), action, false); perr != nil {
			return perr
		}
	}
	if _, err := eval(cdp, worker, drain); err != nil {
		return err
	}
	totals, seqs, err := t.requests(cl, cdp, worker, action, n)
	if err != nil {
		return err
	}
	t.print(bua, n, dials, totals, seqs)
	return nil
}

// command is a runner of the build bua's commands with env on top of
// this process's environment: their output, or an error with their
// stderr.
func command(bua string, env map[string]string) func(args ...string) (string, error) {
	environ := os.Environ()
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bua, args...)
		cmd.Env = environ
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("bua %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return string(out), err
	}
}

// openTab opens url with `bua open`, which starts the daemon and its
// managed browser, and returns the tab's id.
func openTab(cli func(args ...string) (string, error), url string) (int, error) {
	out, err := cli("--json", "open", url)
	if err != nil {
		return 0, err
	}
	var opened struct {
		TabID int `json:"tabId"`
	}
	if err := json.Unmarshal([]byte(out), &opened); err != nil || opened.TabID == 0 {
		return 0, fmt.Errorf("open: %v: %s", err, out)
	}
	return opened.TabID, nil
}

// timings are the steps' times, in ms, by step, with the steps in the
// order first seen.
type timings struct {
	steps map[string][]float64
	order []string
}

// add records one time of the step name.
func (t *timings) add(name string, ms float64) {
	if _, ok := t.steps[name]; !ok {
		t.order = append(t.order, name)
	}
	t.steps[name] = append(t.steps[name], ms)
}

// dials times n fresh dials step by step (dialTimed), then n whole
// bridge.Dial calls.
func (t *timings) dials(dirs home.Dirs, n int) error {
	for range n {
		if err := dialTimed(dirs, t.add); err != nil {
			return err
		}
	}
	for range n {
		t0 := time.Now()
		cl, perr := bridge.Dial(context.Background(), bridge.ClientOptions{Dirs: dirs})
		if perr != nil {
			return perr
		}
		t.add("client: bridge.Dial, all of it", ms(time.Since(t0)))
		cl.Close()
	}
	return nil
}

// requests sends action n times through cl, timing each whole request
// (totals) and, from the worker's marks, each step; seqs counts each
// sequence of marks.
func (t *timings) requests(cl *bridge.Client, cdp *harness.CDP, worker string, action json.RawMessage, n int) (totals []float64, seqs map[string]int, err error) {
	seqs = map[string]int{}
	for range n {
		t0 := time.Now()
		if _, perr := cl.RequestRaw(context.Background(), action, false); perr != nil {
			return nil, nil, perr
		}
		t1 := time.Now()
		totals = append(totals, ms(t1.Sub(t0)))
		raw, err := eval(cdp, worker, drain)
		if err != nil {
			return nil, nil, err
		}
		var marks [][2]any
		if err := json.Unmarshal(raw, &marks); err != nil {
			return nil, nil, err
		}
		if len(marks) == 0 {
			return nil, nil, fmt.Errorf("the worker recorded nothing for a request: was it restarted (the instrument is lost)?")
		}
		seqs[strings.Join(t.marks(marks, t0, t1), " | ")]++
	}
	return totals, seqs, nil
}

// marks records the steps between a request's worker marks, sent at t0
// and answered at t1, and returns the sequence of their names. Marks after
// the answer reached the client (a write the worker did not wait for) are
// steps "after the answer".
func (t *timings) marks(marks [][2]any, t0, t1 time.Time) []string {
	prev, prevName := float64(t0.UnixNano())/1e6, "client: request sent"
	end := float64(t1.UnixNano()) / 1e6
	var names []string
	answered := false
	for _, m := range marks {
		at, _ := m[0].(float64)
		what, _ := m[1].(string)
		if !answered && at > end {
			t.add(prevName+" → client: answer read", end-prev)
			names = append(names, "client: answer read")
			answered = true
		}
		label := prevName + " → " + what
		if answered {
			label = "(after the answer) " + label
		}
		t.add(label, at-prev)
		prev, prevName = at, what
		names = append(names, what)
	}
	if !answered {
		t.add(prevName+" → client: answer read", end-prev)
		names = append(names, "client: answer read")
	}
	return names
}

// print writes the report: the whole request's median, each step's
// median and count, and the sequences of marks by count.
func (t *timings) print(bua string, n, dials int, totals []float64, seqs map[string]int) {
	fmt.Printf("bua %s: %d evaluates of `return 1` through one bridge.Client, %d fresh dials\n", bua, n, dials)
	fmt.Printf("whole request (client send → answer read): median %.3f ms\n\n", median(totals))
	fmt.Printf("%-110s %9s %6s\n", "step", "median ms", "count")
	for _, name := range t.order {
		fmt.Printf("%-110s %9.3f %6d\n", name, median(t.steps[name]), len(t.steps[name]))
	}
	fmt.Println("\nsequences of marks (count):")
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range seqs {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v > list[j].v })
	for _, e := range list {
		fmt.Printf("%5d  %s\n", e.v, e.k)
	}
}

// dialWorker connects to the managed browser's DevTools and attaches a
// session to the extension's service worker.
func dialWorker(homeDir string) (*harness.CDP, string, error) {
	var url string
	var err error
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if url, err = harness.DevToolsURL(harness.ManagedProfile(homeDir)); err == nil {
			break
		}
	}
	if err != nil {
		return nil, "", err
	}
	cdp, err := harness.DialCDP(url)
	if err != nil {
		return nil, "", err
	}
	ts, err := cdp.Targets()
	if err != nil {
		return nil, "", err
	}
	for _, tg := range ts {
		if tg.Type == "service_worker" && strings.HasPrefix(tg.URL, "chrome-extension://") {
			s, err := cdp.Attach(tg.TargetID)
			return cdp, s, err
		}
	}
	return nil, "", fmt.Errorf("no service worker target in the managed browser")
}

// eval runs expr in the worker and returns its value's JSON.
func eval(cdp *harness.CDP, session, expr string) (json.RawMessage, error) {
	res, err := cdp.Call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		return nil, fmt.Errorf("worker threw: %s", r.ExceptionDetails.Text)
	}
	return r.Result.Value, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
