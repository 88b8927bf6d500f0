package bridge_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// BenchmarkRoundTrip measures one small action's full round trip as a CLI
// command sees it: client -> unix socket -> daemon -> pool -> WebSocket ->
// fake extension and back, over real sockets. It reports p50 and p99.
func BenchmarkRoundTrip(b *testing.B) {
	h := bridgetest.StartDaemon(b, bridge.Config{})
	h.Connect(b)
	c := h.Client(b)
	measure(b, func(ctx context.Context, a protocol.Action) *protocol.Error {
		_, err := c.Request(ctx, a)
		return err
	})
}

// BenchmarkPoolRoundTrip is the same without the CLI hop: pool -> WebSocket
// -> fake extension, the daemon's own share.
func BenchmarkPoolRoundTrip(b *testing.B) {
	h := bridgetest.StartDaemon(b, bridge.Config{})
	h.Connect(b)
	pool := h.Daemon.Pool()
	conn := pool.Conn(bridge.SelectAuto)
	measure(b, func(ctx context.Context, a protocol.Action) *protocol.Error {
		_, err := pool.Send(ctx, conn, bridgetest.MustJSON(a))
		return err
	})
}

// measure times b.N small actions through send, one at a time, and
// reports p50 and p99.
func measure(b *testing.B, send func(context.Context, protocol.Action) *protocol.Error) {
	ctx := context.Background()
	a := protocol.Click(protocol.Target{UID: "e3"})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := send(ctx, a); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkThroughput32 runs 32 concurrent callers through one client and
// reports actions per second.
func BenchmarkThroughput32(b *testing.B) {
	h := bridgetest.StartDaemon(b, bridge.Config{})
	h.Connect(b)
	c := h.Client(b)
	ctx := context.Background()
	a := protocol.Click(protocol.Target{UID: "e3"})
	const callers = 32
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	per := b.N/callers + 1
	for w := 0; w < callers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := c.Request(ctx, a); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(per*callers)/time.Since(start).Seconds(), "actions/s")
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
