package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// navFlow is a flow that navigates to https://example.test/<name>/w<worker index>.
func navFlow(name string) string {
	return "name: " + name + "\nsteps:\n  - navigate: https://example.test/" + name + "/w${{ env.BUA_WORKER_INDEX }}\n"
}

// flowFiles writes name -> content flows and returns their paths in the
// order of names.
func flowFiles(t *testing.T, flows map[string]string, names ...string) []string {
	dir := writeFlows(t, flows)
	var files []string
	for _, n := range names {
		files = append(files, filepath.Join(dir, n))
	}
	return files
}

// gate is a navigate handler that holds each request until release is
// closed, after telling started which URL it holds.
func gate(started chan<- string, release <-chan struct{}) runnertest.Handler {
	return func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		started <- a.URL
		select {
		case <-release:
			return protocol.OKResult{OK: true}, nil
		case <-ctx.Done():
			return nil, protocol.Errorf(protocol.CodeTimeout, "released never")
		}
	}
}

// TestRunParallel_QueueWorkersOrder: two workers each take a flow from the
// sorted queue, both flows in flight at once (neither is answered until
// the other has started), each on its own Requester with its own
// BUA_WORKER_INDEX; the rest of the queue goes to whichever worker is free;
// the report lists the flows in sorted order though the first finished
// last, each naming its worker, and every flow's progress block is whole.
func TestRunParallel_QueueWorkersOrder(t *testing.T) {
	flows := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		flows[n+".yaml"] = navFlow(n)
	}
	// Given out of order: the queue is sorted.
	files := flowFiles(t, flows, "e.yaml", "c.yaml", "a.yaml", "d.yaml", "b.yaml")

	started := make(chan string, 10)
	releaseA, releaseRest := make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		if strings.Contains(a.URL, "/a/") {
			return gate(started, releaseA)(ctx, a)
		}
		return gate(started, releaseRest)(ctx, a)
	}
	fakes := []*runnertest.Fake{runnertest.New().On(protocol.ActionNavigate, handler), runnertest.New().On(protocol.ActionNavigate, handler)}
	workers := []Worker{{Index: 0, Requester: fakes[0]}, {Index: 1, Requester: fakes[1]}}

	var progress bytes.Buffer
	blocks := 0
	out := writerFunc(func(p []byte) { // under RunParallel's print lock
		progress.Write(p)
		if blocks++; blocks == 4 { // b, c, d and e are done: a may finish
			close(releaseA)
		}
	})
	r := &Runner{Events: printer(out), Getenv: func(k string) string {
		if k == WorkerIndexEnv {
			return "99" // the environment's value never reaches a flow
		}
		return ""
	}}
	done := make(chan *report.SuiteReport)
	go func() { done <- r.RunParallel(context.Background(), files, workers) }()

	// a and b run at once: both are in flight before either is answered.
	timeout := time.After(10 * time.Second)
	var first []string
	for len(first) < 2 {
		select {
		case u := <-started:
			first = append(first, u)
		case <-timeout:
			t.Fatalf("only %v started: the two workers did not run two flows at once", first)
		}
	}
	slices.Sort(first)
	if !strings.Contains(first[0], "/a/") || !strings.Contains(first[1], "/b/") {
		t.Fatalf("first two flows started: %v, want a and b (the sorted queue's head)", first)
	}
	// b, c, d, e finish while a still runs; then a.
	close(releaseRest)
	s := <-done

	var names []string
	for _, f := range s.Flows {
		names = append(names, f.Name)
		if f.Status != report.StatusPassed {
			t.Errorf("%s: %s %s", f.Name, f.Status, f.Error)
		}
		if f.Worker == nil {
			t.Fatalf("%s: no worker in its report", f.Name)
		}
	}
	if !slices.Equal(names, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("report order %v, want sorted", names)
	}
	// Every request reached its worker's own Requester, with its index.
	seen := map[string]int{}
	for w, fake := range fakes {
		for _, a := range fake.Requests() {
			name := strings.Split(strings.TrimPrefix(a.URL, "https://example.test/"), "/")[0]
			if want := "/w" + string(rune('0'+w)); !strings.HasSuffix(a.URL, want) {
				t.Errorf("worker %d sent %s: env.BUA_WORKER_INDEX is not its index", w, a.URL)
			}
			seen[name] = w
		}
	}
	for _, f := range s.Flows {
		if w, ok := seen[f.Name]; !ok || w != *f.Worker {
			t.Errorf("%s: report says worker %d, requests went to worker %d (%v)", f.Name, *f.Worker, w, ok)
		}
	}
	if seen["a"] == seen["b"] {
		t.Errorf("a and b ran on the same worker %d", seen["a"])
	}
	// Each flow's lines are printed together: its flow line, its step,
	// its result, with nothing of another flow's between them.
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 15 {
		t.Fatalf("progress has %d lines, want 3 per flow:\n%s", len(lines), progress.String())
	}
	for i := 0; i < len(lines); i += 3 {
		name := strings.Fields(lines[i])[1]
		if !strings.HasPrefix(lines[i], "flow "+name+" (") || !strings.Contains(lines[i], ", worker ") ||
			!strings.Contains(lines[i+1], "ok 1 navigate") || !strings.HasPrefix(lines[i+2], "ok "+name+" passed") {
			t.Errorf("flow %s's block is not whole:\n%s", name, strings.Join(lines[i:i+3], "\n"))
		}
	}
	if !strings.HasPrefix(lines[len(lines)-3], "flow a (") {
		t.Errorf("a finished last but its block is not last:\n%s", progress.String())
	}
}

// TestRunParallel_RetryGoesNext: a flow that fails and may be rerun
// (--retries) goes back to the head of the queue: the worker free next
// runs it before the flows behind it. Its report keeps the failed run.
func TestRunParallel_RetryGoesNext(t *testing.T) {
	files := flowFiles(t, map[string]string{"a.yaml": navFlow("a"), "b.yaml": navFlow("b"), "c.yaml": navFlow("c"), "d.yaml": navFlow("d")},
		"a.yaml", "b.yaml", "c.yaml", "d.yaml")
	var mu sync.Mutex
	var order []string // flow names in the order their navigate arrived
	bTries := 0
	releaseA := make(chan struct{})
	handler := func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		name := strings.Split(strings.TrimPrefix(a.URL, "https://example.test/"), "/")[0]
		mu.Lock()
		order = append(order, name)
		fail := name == "b" && bTries == 0
		if name == "b" {
			bTries++
		}
		mu.Unlock()
		switch {
		case fail:
			return nil, protocol.Errorf(protocol.CodeElementNotFound, "not yet")
		case name == "a":
			select { // a holds its worker until c runs: b's rerun cannot wait for it
			case <-releaseA:
			case <-ctx.Done():
			}
		case name == "c":
			close(releaseA)
		}
		return protocol.OKResult{OK: true}, nil
	}
	workers := []Worker{{0, runnertest.New().On(protocol.ActionNavigate, handler)}, {1, runnertest.New().On(protocol.ActionNavigate, handler)}}
	s := (&Runner{Retries: 1}).RunParallel(context.Background(), files, workers)
	mu.Lock()
	defer mu.Unlock()
	// b's rerun comes before c, which was queued behind it.
	rerun := slices.Index(order[slices.Index(order, "b")+1:], "b") + slices.Index(order, "b") + 1
	if len(order) != 5 || rerun <= 0 || rerun > slices.Index(order, "c") {
		t.Fatalf("navigates in order %v: want b's rerun before c", order)
	}
	b := s.Flows[1]
	if b.Name != "b" || b.Status != report.StatusPassed || b.Attempts != 2 || len(b.FailedAttempts) != 1 || !b.Flaky {
		t.Errorf("b: %s, %d attempts, %d failed, flaky %v; want passed on its rerun, flaky", b.Status, b.Attempts, len(b.FailedAttempts), b.Flaky)
	}
	for _, f := range s.Flows {
		if f.Status != report.StatusPassed {
			t.Errorf("%s: %s %s", f.Name, f.Status, f.Error)
		}
	}
}

// TestRunParallel_StopAndInterrupt: under FailFast a failed flow keeps any
// more flows from starting (the one running finishes, the rest are
// skipped); a cancelled context interrupts the running flows and skips the
// rest, and the suite is interrupted.
func TestRunParallel_StopAndInterrupt(t *testing.T) {
	files := flowFiles(t, map[string]string{
		"a.yaml": navFlow("a") + "  - fail: no\n", "b.yaml": navFlow("b"), "c.yaml": navFlow("c"), "d.yaml": navFlow("d"),
	}, "a.yaml", "b.yaml", "c.yaml", "d.yaml")
	bStarted, aFailed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hold := func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		switch {
		case strings.Contains(a.URL, "/a/"): // a fails once b runs
			<-bStarted
		case strings.Contains(a.URL, "/b/"): // b runs until a has failed
			close(bStarted)
			<-aFailed
		}
		return protocol.OKResult{OK: true}, nil
	}
	fake := runnertest.New().On(protocol.ActionNavigate, hold)
	r := &Runner{FailFast: true, Events: printer(writerFunc(func(p []byte) {
		if bytes.Contains(p, []byte("FAIL a ")) {
			once.Do(func() { close(aFailed) })
		}
	}))}
	s := r.RunParallel(context.Background(), files, []Worker{{0, fake}, {1, fake}})
	got := []report.Status{}
	for _, f := range s.Flows {
		got = append(got, f.Status)
	}
	if want := []report.Status{report.StatusFailed, report.StatusPassed, report.StatusSkipped, report.StatusSkipped}; !slices.Equal(got, want) {
		t.Errorf("fail-fast: statuses %v, want %v", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	inFlight := make(chan struct{}, 2)
	hang := runnertest.New().On(protocol.ActionNavigate, func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		inFlight <- struct{}{}
		<-ctx.Done()
		return nil, protocol.Errorf(protocol.CodeInternalError, "aborted by caller")
	})
	files = flowFiles(t, map[string]string{"b.yaml": navFlow("b"), "c.yaml": navFlow("c"), "d.yaml": navFlow("d")}, "b.yaml", "c.yaml", "d.yaml")
	go func() {
		<-inFlight
		<-inFlight
		cancel()
	}()
	s = (&Runner{}).RunParallel(ctx, files, []Worker{{0, hang}, {1, hang}})
	got = got[:0]
	for _, f := range s.Flows {
		got = append(got, f.Status)
	}
	if want := []report.Status{report.StatusInterrupted, report.StatusInterrupted, report.StatusSkipped}; !slices.Equal(got, want) || !s.Interrupted {
		t.Errorf("interrupt: statuses %v (suite interrupted %v), want %v", got, s.Interrupted, want)
	}
}

// TestWorkerIndex_Serial: a serial run is worker 0, whatever the
// environment's BUA_WORKER_INDEX.
func TestWorkerIndex_Serial(t *testing.T) {
	files := flowFiles(t, map[string]string{"a.yaml": navFlow("a")}, "a.yaml")
	fake := runnertest.New()
	s := (&Runner{Requester: fake, Getenv: func(string) string { return "7" }}).RunSuite(context.Background(), files)
	if s.Flows[0].Status != report.StatusPassed || s.Flows[0].Worker != nil {
		t.Fatalf("a: %s %s, worker %v", s.Flows[0].Status, s.Flows[0].Error, s.Flows[0].Worker)
	}
	if u := fake.Requests()[0].URL; u != "https://example.test/a/w0" {
		t.Errorf("serial navigate %s, want worker index 0", u)
	}
}

// writerFunc is an io.Writer calling f with each write.
type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
}

// TestWorkerIndex_NotMasked: text typed from the environment is masked as
// a credential, but not the worker's index, bua's own ("0" masked would
// hide every zero of the report).
func TestWorkerIndex_NotMasked(t *testing.T) {
	rec, _ := runFlow(t, runnertest.New(), "name: m\nsteps:\n  - type: { selector: \"#a\", text: \"user-${{ env.BUA_WORKER_INDEX }}\" }\n  - type: { selector: \"#b\", text: \"${{ env.BUA_PASS }}\" }\n")
	wantStatus(t, rec, report.StatusPassed)
	if got := rec.MaskValue(rec.Steps[0].Params["text"]); got != "user-0" {
		t.Errorf("the worker's index typed reads %v in the report, want user-0", got)
	}
	if got := rec.MaskValue(rec.Steps[1].Params["text"]); got == "hunter2" {
		t.Errorf("a password typed from the environment reads %v in the report: not masked", got)
	}
}
