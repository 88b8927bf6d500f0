//go:build linux

package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/bridge"
)

// The daemon's limits under floods (docs/decisions/daemon-limits.md): each scenario
// runs `bua serve` in a home of its own (ownDaemon), so its flood reaches
// no other test's daemon.

// ownDaemon is a `bua serve` the test started itself, in a home of its own
// with BUA_LISTEN=127.0.0.1:0.
type ownDaemon struct {
	cmd    harness.Cmd
	home   string
	pid    int
	listen string
	exited chan struct{}
}

// serveOwn starts `bua serve` in a fresh home; with nofile > 0 under
// `prlimit --nofile=N:N`, both limits, since Go raises its soft limit to
// the hard one at start. extra is run in the home before the daemon starts
// (to plant a file). It stops the daemon, its browser and the home when t
// ends.
func serveOwn(t *testing.T, nofile int, extra func(home string)) *ownDaemon {
	t.Helper()
	dir := harness.TempDir("bualim") // short: the socket path must fit sun_path
	d := &ownDaemon{home: filepath.Join(dir, "h"), exited: make(chan struct{})}
	d.cmd = harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(d.home)}
	if err := os.MkdirAll(d.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		extra(d.home)
	}
	argv := []string{buaBin, "serve"}
	if nofile > 0 {
		argv = append([]string{"prlimit", fmt.Sprintf("--nofile=%d:%d", nofile, nofile)}, argv...)
	}
	p := exec.Command(argv[0], argv[1:]...)
	p.Env = d.cmd.Env
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d.cmd.Run(ctx, "browser", "stop")
		d.cmd.Run(ctx, "stop")
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-d.exited
		}
		if t.Failed() {
			harness.DumpLogs(d.home)
		}
		os.RemoveAll(dir)
	})
	var st daemonStatus
	if !waitFor(10*time.Second, func() bool {
		r := run(t, d.cmd, 5*time.Second, "status", "--json")
		return r.Code == 0 && jsonInto(r.Stdout, &st) == nil && st.PID != 0
	}) {
		t.Fatal("bua serve did not answer bua status within 10 s")
	}
	// prlimit execs bua: the daemon is the process started.
	if st.PID != p.Process.Pid {
		t.Fatalf("status answered by pid %d, want the started %d", st.PID, p.Process.Pid)
	}
	d.pid, d.listen = st.PID, st.Listen
	return d
}

// fds counts the daemon's open descriptors.
func (d *ownDaemon) fds(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", d.pid))
	select {
	case <-d.exited:
		t.Fatalf("the daemon exited:\n%s", tailLines(d.log(t), 20))
	default:
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// log is the daemon's log so far.
func (d *ownDaemon) log(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(d.home, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// conns holds the flood's connections, to close them all at its end.
type conns struct {
	mu sync.Mutex
	cs []io.Closer
}

func (c *conns) add(x io.Closer) {
	c.mu.Lock()
	c.cs = append(c.cs, x)
	c.mu.Unlock()
}

func (c *conns) closeAll() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.cs {
		x.Close()
	}
	n := len(c.cs)
	c.cs = nil
	return n
}

// TestDescriptorFlood exhausts the daemon's descriptors, against a
// daemon under `prlimit --nofile=256:256` with a real managed browser.
//
// First a flood of unauthenticated connections to the extension port,
// opened without pause and never closed by the flooder: idle TCP
// connections, kept-alive ones that sent one request, and WebSocket
// upgrades that never say hello. The daemon sheds the oldest past 64, so
// it never nears its limit, and the managed browser, started in the
// middle of the flood, is acked with the right token.
//
// Then idle CLI connections (which the same user may open without limit)
// take every descriptor the daemon has left, so both its accept loops
// fail with EMFILE; a CLI call made then may fail, but only cleanly. When
// the flood closes, the next `bua status` is served within 1 s of the
// flood's end, and a real action in the managed browser works.
func TestDescriptorFlood(t *testing.T) {
	exclusive(t)
	const nofile = 256
	d := serveOwn(t, nofile, nil)
	base := d.fds(t)

	var (
		flood              conns
		stop               atomic.Bool
		wg                 sync.WaitGroup
		tcpIdle, keepAlive atomic.Int64
		wsHalfOpen         atomic.Int64
		dialErrs           atomic.Int64
	)
	request := "GET / HTTP/1.1\r\nHost: " + d.listen + "\r\nOrigin: " + extensionOrigin + "\r\n\r\n"
	wg.Add(2)
	go func() { // idle TCP connections, every other one kept alive after a request
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			time.Sleep(5 * time.Millisecond) // about 200 a second: see flood_test.go
			c, err := net.Dial("tcp", d.listen)
			if err != nil {
				dialErrs.Add(1)
				continue
			}
			flood.add(c)
			if i%2 == 0 {
				tcpIdle.Add(1)
				continue
			}
			_, _ = io.WriteString(c, request) // answered 400 (not an upgrade), then kept alive
			keepAlive.Add(1)
		}
	}()
	go func() { // WebSocket upgrades that never say hello
		defer wg.Done()
		dialer := websocket.Dialer{HandshakeTimeout: 2 * time.Second}
		for !stop.Load() {
			time.Sleep(5 * time.Millisecond)
			ws, _, err := dialer.Dial("ws://"+d.listen+"/ws/browser", http.Header{"Origin": {extensionOrigin}})
			if err != nil {
				dialErrs.Add(1)
				continue
			}
			flood.add(ws.NetConn())
			wsHalfOpen.Add(1)
		}
	}()
	t.Cleanup(func() { stop.Store(true); wg.Wait(); flood.closeAll() })

	// Phase 1: the flood of unauthenticated connections, and in its
	// middle the managed browser's hello with the right token. The waits
	// are on the flood's count, not the clock, so a slow machine floods
	// as much as a fast one.
	opened := func() int64 { return tcpIdle.Load() + keepAlive.Load() + wsHalfOpen.Load() }
	if !waitFor(30*time.Second, func() bool { return opened() >= 2*bridge.MaxUnauthenticated }) {
		t.Fatalf("the flood opened only %d connections in 30 s", opened())
	}
	t0 := time.Now()
	mustOK(t, "browser start during the flood", run(t, d.cmd, 60*time.Second, "browser", "start", "--headless"))
	acked := time.Since(t0)
	if status(t, d.cmd).managedSince().IsZero() {
		t.Fatal("the managed extension is not connected after browser start")
	}
	// Past the daemon's limit: by now it would have run out, uncapped.
	peak := 0
	if !waitFor(60*time.Second, func() bool { peak = max(peak, d.fds(t)); return opened() >= 2*nofile }) {
		t.Fatalf("the flood opened only %d connections in 60 s", opened())
	}
	// 64 unauthenticated connections, the browser's, the log, the lock,
	// the listeners and the runtime's own: far from the limit however
	// many the flood opens.
	if limit := base + bridge.MaxUnauthenticated + 40; peak > limit {
		t.Fatalf("daemon holds %d descriptors (base %d) after %d flood connections: want at most %d", peak, base, opened(), limit)
	}

	// Phase 2: idle CLI connections take every descriptor left.
	tab := openTab(t, d.cmd, siteURL("form.html?fdflood"))
	sock := filepath.Join(d.home, "bua.sock")
	var cli int
	for ; cli < nofile+64; cli++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			break // the backlog is full too
		}
		flood.add(c)
	}
	if !waitFor(10*time.Second, func() bool { return d.fds(t) >= nofile-2 }) {
		t.Fatalf("the daemon holds %d descriptors after %d idle CLI connections: the flood never exhausted %d", d.fds(t), cli, nofile)
	}
	during := run(t, d.cmd, 3*time.Second, "--timeout", "2s", "status")
	duringWhat := "served"
	if during.Code != 0 {
		duringWhat = fmt.Sprintf("failed, exit %d: %s", during.Code, strings.TrimSpace(during.Stderr))
	}

	stop.Store(true)
	wg.Wait()
	total := flood.closeAll()
	floodEnded := time.Now()
	after := run(t, d.cmd, 10*time.Second, "status")
	served := time.Since(floodEnded)
	mustOK(t, "status after the flood", after)
	t.Logf("flood: %d idle TCP, %d kept-alive TCP, %d WebSocket upgrades without hello, %d idle CLI connections (%d in all, %d dial errors); daemon descriptors: base %d, peak %d in phase 1, limit %d",
		tcpIdle.Load(), keepAlive.Load(), wsHalfOpen.Load(), cli, total, dialErrs.Load(), base, peak, nofile)
	t.Logf("the managed browser was started and acked in %s during the flood; a status call with every descriptor taken: %s; the next status was served %s after the flood ended",
		acked.Round(time.Millisecond), duringWhat, served.Round(time.Millisecond))
	if served > time.Second {
		t.Errorf("status served %s after the flood ended, want within 1 s", served.Round(time.Millisecond))
	}
	log := d.log(t)
	if !strings.Contains(log, "accept failed: retrying") || !strings.Contains(log, "too many open files") {
		t.Errorf("daemon.log does not record the accept loops' EMFILE:\n%s", tailLines(log, 20))
	}
	if strings.Contains(log, "stopped accepting") {
		t.Errorf("an accept loop ended:\n%s", tailLines(log, 20))
	}
	mustOK(t, "extract in the managed browser after the flood", run(t, d.cmd, 30*time.Second, "extract", "--tab", tab))
}

// junkHello is one probe of TestJunkHellos: it returns how the daemon
// refused it ("403", "close 4002") or "acked".
type junkHello func(listen string) (string, error)

var junkHellos = []struct {
	name  string
	probe junkHello
}{
	{"forged Origin", func(listen string) (string, error) {
		_, res, err := websocket.DefaultDialer.Dial("ws://"+listen+"/ws/browser", http.Header{"Origin": {"https://evil.example"}})
		if res != nil {
			return strconv.Itoa(res.StatusCode), nil
		}
		if err == nil {
			return "acked", nil
		}
		return "", err
	}},
	{"wrong token", func(listen string) (string, error) {
		code, err := wrongHello(listen)
		return "close " + strconv.Itoa(code), err
	}},
	{"junk body", func(listen string) (string, error) {
		ws, _, err := websocket.DefaultDialer.Dial("ws://"+listen+"/ws/browser", http.Header{"Origin": {extensionOrigin}})
		if err != nil {
			return "", err
		}
		defer ws.Close()
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		// 4 KiB that is not JSON, with a newline to try to forge a log line.
		junk := "\nlevel=ERROR msg=forged " + strings.Repeat("\x01junk", 800)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(junk)); err != nil {
			return "", err
		}
		code, err := closeCode(ws)
		return "close " + strconv.Itoa(code), err
	}},
}

// summaryLine matches a limiter's summary ("1,500 rejected hellos from
// Origin … in 10s" repeats=1500 logged=5).
var summaryLine = regexp.MustCompile(`msg="([\d,]+) ([^"]*) in 10s" repeats=(\d+) logged=(\d+)`)

// TestJunkHellos sends 1,500 junk hellos (a forged Origin, a wrong token,
// a junk first message; a third each) from 6 goroutines: every one is
// refused, daemon.log grows by under 1 MiB, each event line echoes at
// most 200 bytes of input, and summary lines account for the ones not
// logged line by line.
func TestJunkHellos(t *testing.T) {
	exclusive(t)
	d := serveOwn(t, 0, nil)
	logPath := filepath.Join(d.home, "daemon.log")
	before, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	const total, workers = 1500, 6
	var (
		mu      sync.Mutex
		answers = map[string]int{}
		next    atomic.Int64
		wg      sync.WaitGroup
		errs    []error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= total {
					return
				}
				j := junkHellos[i%int64(len(junkHellos))]
				got, err := j.probe(d.listen)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", j.name, err))
				} else {
					answers[got]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d probes failed to get an answer, first: %v", len(errs), errs[0])
	}
	refused := total - answers["acked"]
	// Stopping flushes the limiter: the windows still open write their
	// summaries now rather than 10 s on.
	mustOK(t, "stop", run(t, d.cmd, 10*time.Second, "stop"))
	<-d.exited
	after, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	growth := after.Size() - before.Size()
	log := d.log(t)

	lines, summarised := 0, 0
	var summaries []string
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := summaryLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[3])
			logged, _ := strconv.Atoi(m[4])
			if strings.ReplaceAll(m[1], ",", "") != m[3] {
				t.Errorf("summary %q: its count and repeats differ", line)
			}
			summarised += n - logged
			summaries = append(summaries, m[1]+" "+m[2])
			continue
		}
		for _, msg := range []string{`msg="request refused`, `msg="handshake rejected"`, `msg="handshake rate-limited"`, `msg="handshake failed"`} {
			if strings.Contains(line, msg) {
				lines++
				if len(line) > 1000 {
					t.Errorf("a %d-byte log line: input is echoed unclipped:\n%.300s…", len(line), line)
				}
			}
		}
		if strings.HasPrefix(line, "level=ERROR msg=forged") {
			t.Errorf("a junk body forged a log line: %q", line)
		}
	}
	t.Logf("%d junk hellos: refused %d/%d (%v); daemon.log grew %d bytes: %d event lines, %d more counted in summaries %q",
		total, refused, total, answers, growth, lines, summarised, summaries)
	if refused != total {
		t.Errorf("%d of %d junk hellos were acked", total-refused, total)
	}
	if growth >= 1<<20 {
		t.Errorf("daemon.log grew %d bytes, want under 1 MiB", growth)
	}
	if len(summaries) == 0 {
		t.Error("no summary line in daemon.log")
	}
	if lines+summarised != total {
		t.Errorf("the log accounts for %d event lines + %d summarised = %d junk hellos, want %d", lines, summarised, lines+summarised, total)
	}
}

// TestLogRotates: a daemon.log at its 5 MiB cap rotates when the daemon
// writes: the old content moves to daemon-<time>.log, 0600, and the live
// file starts again under the cap.
func TestLogRotates(t *testing.T) {
	t.Parallel()
	const capBytes = bridge.LogMaxMiB << 20
	filler := strings.Repeat("time=2000-01-01T00:00:00Z level=INFO msg=filler\n", capBytes/40)
	filler = filler[:capBytes-10]
	d := serveOwn(t, 0, func(home string) {
		if err := os.WriteFile(filepath.Join(home, "daemon.log"), []byte(filler), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	live, err := os.Stat(filepath.Join(d.home, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	rotated, _ := filepath.Glob(filepath.Join(d.home, "daemon-*.log"))
	if len(rotated) != 1 {
		t.Fatalf("rotated logs %v, want one", rotated)
	}
	old, err := os.Stat(rotated[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("daemon.log at %d bytes rotated: %s holds %d bytes, the live file %d", len(filler), filepath.Base(rotated[0]), old.Size(), live.Size())
	if old.Size() != int64(len(filler)) || old.Mode().Perm() != 0o600 {
		t.Errorf("%s: %d bytes, mode %v; want the old %d bytes, 0600", rotated[0], old.Size(), old.Mode().Perm(), len(filler))
	}
	if live.Size() >= capBytes || live.Mode().Perm() != 0o600 || !strings.Contains(d.log(t), "daemon listening") {
		t.Errorf("live daemon.log: %d bytes, mode %v, want under %d bytes, 0600, starting with the daemon's lines", live.Size(), live.Mode().Perm(), capBytes)
	}
}

// jsonInto decodes s into v.
func jsonInto(s string, v any) error {
	if s == "" {
		return errors.New("no output")
	}
	return json.Unmarshal([]byte(s), v)
}

// tailLines is the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
