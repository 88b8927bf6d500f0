package bridge

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
)

// logLines is what a limiter wrote through a text handler, one entry per
// line.
func logLines(buf *syncbuf.Buffer) []string {
	s := strings.TrimSpace(buf.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestLogLimiter(t *testing.T) {
	tests := []struct {
		name   string
		events []string // one key per event, in order
		// wantLines is how many event lines are written; wantSummaries
		// the summary lines (their msg), in any order.
		wantLines     int
		wantSummaries []string
	}{
		{"UnderBurst", repeat("a", logBurst), logBurst, nil},
		{"OverBurst", repeat("rejected hellos", 1500), logBurst, []string{"1,500 rejected hellos in 10s"}},
		{"KeysApart", append(repeat("a", 7), repeat("b", 3)...), logBurst + 3, []string{"7 a in 10s"}},
		{
			// Past maxLogKeys, new keys share one: input that varies a
			// key cannot grow the log or the map.
			"KeyCap", distinct(maxLogKeys + 2*logBurst),
			maxLogKeys + logBurst, []string{fmt.Sprintf("%d %s in 10s", 2*logBurst, otherLogKey)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf syncbuf.Buffer
			l := newLogLimiter(slog.New(slog.NewTextHandler(&buf, nil)))
			for _, k := range tt.events {
				l.Info(k, "event", "key", k)
			}
			if got := len(logLines(&buf)); got != tt.wantLines {
				t.Errorf("%d lines before the windows end, want %d:\n%s", got, tt.wantLines, buf.String())
			}
			l.flush()
			lines := logLines(&buf)
			summaries := lines[tt.wantLines:]
			if len(summaries) != len(tt.wantSummaries) {
				t.Fatalf("summaries:\n%s\nwant %q", strings.Join(summaries, "\n"), tt.wantSummaries)
			}
			for _, want := range tt.wantSummaries {
				if !strings.Contains(strings.Join(summaries, "\n"), fmt.Sprintf("msg=%q", want)) {
					t.Errorf("no summary %q in:\n%s", want, strings.Join(summaries, "\n"))
				}
			}
			if len(l.runs) != 0 {
				t.Errorf("%d windows still open after flush", len(l.runs))
			}
		})
	}
}

// TestLogLimiterWindowEnds: a window ends by itself, writing its summary,
// and the next event opens a new window that logs again.
func TestLogLimiterWindowEnds(t *testing.T) {
	var buf syncbuf.Buffer
	l := newLogLimiter(slog.New(slog.NewTextHandler(&buf, nil)))
	l.window = 50 * time.Millisecond
	for range 3 * logBurst {
		l.Warn("accept errors", "accept failed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(buf.String(), "15 accept errors in 50ms") {
		if time.Now().After(deadline) {
			t.Fatalf("no summary after the window:\n%s", buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := logLines(&buf)[logBurst]; !strings.Contains(s, "level=WARN") || !strings.Contains(s, "repeats=15 logged=5") {
		t.Errorf("summary %q: want the events' level and its counts", s)
	}
	l.Warn("accept errors", "accept failed")
	if got := strings.Count(buf.String(), `msg="accept failed"`); got != logBurst+1 {
		t.Errorf("%d event lines, want %d: a new window logs again", got, logBurst+1)
	}
}

func TestClipInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"Short", "chrome-extension://x", "chrome-extension://x"},
		{"AtLimit", strings.Repeat("a", maxLoggedInput), strings.Repeat("a", maxLoggedInput)},
		{"Long", strings.Repeat("a", 10000), strings.Repeat("a", maxLoggedInput) + "…(9800 more bytes)"},
		// 199 ASCII bytes then a 3-byte rune: the cut keeps runes whole.
		{"RuneBoundary", strings.Repeat("a", 199) + "€€", strings.Repeat("a", 199) + "…(6 more bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clipInput(tt.in); got != tt.want {
				t.Errorf("clipInput = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1500: "1,500", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func distinct(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("key %d", i)
	}
	return out
}
