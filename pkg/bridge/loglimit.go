package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// What anyone may make the daemon log is bounded
// (docs/decisions/daemon-limits.md): any local
// process can forge the extension's Origin and send junk, and each junk
// hello used to be logged in full (10,000 of them grew daemon.log by
// 78 MiB in 10 s). So input echoed into the log is clipped (clipInput),
// and lines that repeat go through a logLimiter: per key, the first
// logBurst lines of a logWindow are written, the rest only counted, and
// when the window ends one summary line gives the count.
const (
	logWindow = 10 * time.Second
	logBurst  = 5
	// maxLogKeys bounds the keys with an open window; past it every new
	// key shares otherLogKey, so no input can make the map grow.
	maxLogKeys  = 64
	otherLogKey = "other repeated log lines"
	// maxLoggedInput bounds each piece of input a log line echoes.
	maxLoggedInput = 200
)

// logLimiter writes repeated log lines at a bounded rate, summarising the
// rest. Safe for concurrent use.
type logLimiter struct {
	log    *slog.Logger
	window time.Duration
	burst  int

	mu   sync.Mutex
	runs map[string]*logRun
}

// logRun is one key's open window.
type logRun struct {
	n     int
	level slog.Level
	timer *time.Timer
}

func newLogLimiter(log *slog.Logger) *logLimiter {
	return &logLimiter{log: log, window: logWindow, burst: logBurst, runs: map[string]*logRun{}}
}

// Log writes msg and args at level unless key has written its burst in
// the current window, in which case it only counts it. key names the
// repeated event as a plural noun phrase ("rejected hellos from Origin
// chrome-extension://…"): it is the summary's subject.
func (l *logLimiter) Log(level slog.Level, key, msg string, args ...any) {
	l.mu.Lock()
	r := l.runs[key]
	if r == nil && len(l.runs) >= maxLogKeys {
		key = otherLogKey
		r = l.runs[key]
	}
	if r == nil {
		r = &logRun{level: level}
		l.runs[key] = r
		r.timer = time.AfterFunc(l.window, func() { l.end(key) })
	}
	r.n++
	write := r.n <= l.burst
	l.mu.Unlock()
	if write {
		l.log.Log(context.Background(), level, msg, args...)
	}
}

// Info is Log at slog.LevelInfo.
func (l *logLimiter) Info(key, msg string, args ...any) { l.Log(slog.LevelInfo, key, msg, args...) }

// Warn is Log at slog.LevelWarn.
func (l *logLimiter) Warn(key, msg string, args ...any) { l.Log(slog.LevelWarn, key, msg, args...) }

// end closes key's window: when lines were held back, one summary line
// says how many there were in all.
func (l *logLimiter) end(key string) {
	l.mu.Lock()
	r := l.runs[key]
	delete(l.runs, key)
	l.mu.Unlock()
	if r == nil || r.n <= l.burst {
		return
	}
	l.log.Log(context.Background(), r.level,
		fmt.Sprintf("%s %s in %s", commas(r.n), key, l.window),
		"repeats", r.n, "logged", l.burst)
}

// flush ends every open window now, so a stopping daemon writes its
// summaries instead of losing them.
func (l *logLimiter) flush() {
	l.mu.Lock()
	keys := make([]string, 0, len(l.runs))
	for k, r := range l.runs {
		r.timer.Stop()
		keys = append(keys, k)
	}
	l.mu.Unlock()
	for _, k := range keys {
		l.end(k)
	}
}

// limitedWriter lets the limiter stand behind a log.Logger (net/http's
// Server.ErrorLog): each line written is one repeat of key.
type limitedWriter struct {
	l   *logLimiter
	key string
}

func (w limitedWriter) Write(p []byte) (int, error) {
	w.l.Warn(w.key, w.key, "err", clipInput(strings.TrimSpace(string(p))))
	return len(p), nil
}

// clipInput bounds a piece of peer input for the log: at most
// maxLoggedInput bytes (cut at a rune boundary), with how much was cut.
// The log's text handler quotes and escapes it, so it cannot forge lines.
func clipInput(s string) string {
	if len(s) <= maxLoggedInput {
		return s
	}
	cut := maxLoggedInput
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// commas writes n with thousands separators: 1500 -> "1,500".
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
