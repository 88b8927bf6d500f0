package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// BenchmarkCLIClick measures what the one-shot CLI costs on top of the
// daemon: each iteration clicks the same uid twice on a warm daemon and
// browser, once as a whole `bua click eN --tab T` process (fork/exec, Go
// runtime start, argument parsing, socket dial, request, render, exit) and
// once as the same click.Request on an already-dialled bridge.Client. The
// two are interleaved so both see the same browser load; the difference of
// the medians is the CLI's own overhead (target: under 10 ms).
//
//	go test ./e2e -run '^$' -bench CLIClick -benchtime 200x
func BenchmarkCLIClick(b *testing.B) {
	cl := benchClient(b)
	tab := benchTab(b, cl, "bench=cli")
	uid := cliBenchUID(b, cl, tab, "button", "Press")
	click := protocol.Click(protocol.Target{UID: uid}).OnTab(tab)
	args := []string{"click", uid, "--tab", strconv.Itoa(tab)}

	goClick := func() time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		if _, err := cl.Request(ctx, click); err != nil {
			b.Fatalf("client click %s: %v", uid, err)
		}
		return time.Since(start)
	}
	cliClick := func() time.Duration {
		start := time.Now()
		r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(context.Background(), args...)
		d := time.Since(start)
		if r.Code != 0 {
			b.Fatalf("bua %v: exit %d\n%s", args, r.Code, r.Output())
		}
		return d
	}
	// Warm up outside the timing: the debugger attach, the page cache of
	// the bua binary, the daemon's first request on a new connection.
	goClick()
	cliClick()

	cliTimes := make([]time.Duration, 0, b.N)
	goTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cliTimes = append(cliTimes, cliClick())
		goTimes = append(goTimes, goClick())
	}
	b.StopTimer()

	cliMed, goMed := cliMedianMS(cliTimes), cliMedianMS(goTimes)
	b.ReportMetric(cliMed, "cli-median-ms")
	b.ReportMetric(goMed, "client-median-ms")
	b.ReportMetric(cliMed-goMed, "overhead-median-ms")
	// The two clicks of an iteration run back to back, so their difference
	// cancels most of the page's own jitter: its median is the steadier
	// figure.
	diffs := make([]time.Duration, len(cliTimes))
	for i := range cliTimes {
		diffs[i] = cliTimes[i] - goTimes[i]
	}
	b.ReportMetric(cliMedianMS(diffs), "paired-overhead-ms")
	b.ReportMetric(0, "ns/op") // ns/op would be the sum of both; the medians are the result

	// Every click must have landed: 2 warm-up + 2 per iteration.
	if got := clicksOn(b, cl, tab); got != 2*b.N+2 {
		b.Fatalf("page saw %d clicks, want %d", got, 2*b.N+2)
	}
}

// cliMedianMS is the median of ds in milliseconds.
func cliMedianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// cliBenchUID extracts tab and returns the uid of the element role/name.
func cliBenchUID(b *testing.B, cl *bridge.Client, tab int, role, name string) string {
	b.Helper()
	res := benchRequest(b, cl, fmt.Sprintf(`{"type":"extract","tabId":%d}`, tab))
	var r protocol.ExtractResult
	if err := json.Unmarshal(res, &r); err != nil {
		b.Fatal(err)
	}
	for _, e := range r.Elements {
		if e.Role == role && e.Name == name {
			return e.UID
		}
	}
	b.Fatalf("extract of tab %d lists no %s %q: %+v", tab, role, name, r.Elements)
	return ""
}
