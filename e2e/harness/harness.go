// Package harness is what every end-to-end test package needs before its
// first test: a real Chromium (or a loud failure), the bua binary built
// from this checkout, and the fixture sites served on loopback. Each test
// package's TestMain calls it once, so each package runs one browser.
package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/devbuild"
	"github.com/bua-dev/bua/pkg/browser"
)

// RequireBrowser stops the run when no Chromium is found. CI installs one;
// a developer without one must see why, not a green run that tested
// nothing.
func RequireBrowser(pkg string) {
	if _, err := browser.Find(os.Getenv); err != nil {
		log.Fatalf("%s: needs a real Chromium: %v", pkg, err)
	}
}

// TempDir makes a short temp directory: bua's unix socket lives under it,
// and t.TempDir's long names can pass sun_path's 108 bytes.
func TempDir(prefix string) string {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

// BuildBua builds ./cmd/bua from the repository root into dir and returns
// the binary's path (bua, or bua.exe on Windows). It builds through
// internal/devbuild, as README's install line and scripts/build do:
// static, without urfave/cli's man pages, and with no shell, so a Windows
// runner builds it the same way.
func BuildBua(root, dir string) string {
	bin := devbuild.Binary(dir, runtime.GOOS)
	if err := devbuild.Build(context.Background(), root, bin, "", ""); err != nil {
		log.Fatal(err)
	}
	return bin
}

// ServeSites serves dir on a free loopback port until stop is called.
// A request with ?delay=DURATION (e.g. ?delay=1500ms, at most 10 s) is
// answered only after that long, to stand for a slow server; /slow-load
// is a page that takes ?ms=N to load; ?status=N (400-599) answers with
// that status. HTML goes out as "text/html" with
// no charset parameter, as many real servers send it, so each page's own
// <meta charset> decides its encoding (net/http would otherwise add
// "; charset=utf-8" and override it).
func ServeSites(dir string) (port int, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-load" {
			slowLoad(w, r)
			return
		}
		if r.URL.Path == "/download" {
			download(w, r)
			return
		}
		if d, err := time.ParseDuration(r.URL.Query().Get("delay")); err == nil && d > 0 && d <= 10*time.Second {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		// ?status=N (400-599) answers N with a short text body: a failing
		// request for the pages that need one.
		if n, err := strconv.Atoi(r.URL.Query().Get("status")); err == nil && n >= 400 && n < 600 {
			http.Error(w, http.StatusText(n), n)
			return
		}
		if p := r.URL.Path; strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm") || strings.HasSuffix(p, "/") {
			w.Header().Set("Content-Type", "text/html")
		}
		files.ServeHTTP(w, r)
	})
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: handler}}
	srv.Start()
	return ln.Addr().(*net.TCPAddr).Port, srv.Close
}

// slowLoad answers /slow-load?ms=N with a small page after N ms (at most
// 60 s): a page that takes that long to load.
func slowLoad(w http.ResponseWriter, r *http.Request) {
	ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
	select {
	case <-time.After(time.Duration(min(max(ms, 0), 60000)) * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<!doctype html><title>Slow</title><p>Loaded after %d ms</p>", ms)
}

// DownloadBody is the file /download?bytes=N serves: N bytes, each its
// position times 31 plus 7, modulo 251, so a test can check a download's
// sha256 against it.
func DownloadBody(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i*31 + 7) % 251)
	}
	return b
}

// download answers /download?name=F&bytes=N (at most 16 MiB) with
// DownloadBody(N) as an attachment named F; with &interrupt=1 it announces
// N bytes, sends half, and drops the connection, as a failing server does.
func download(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("bytes"))
	n = min(max(n, 0), 16<<20)
	name := r.URL.Query().Get("name")
	if name == "" {
		name = "download.bin"
	}
	body := DownloadBody(n)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("Content-Length", strconv.Itoa(n))
	if r.URL.Query().Get("interrupt") == "" {
		_, _ = w.Write(body)
		return
	}
	_, _ = w.Write(body[:n/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			_ = c.Close()
		}
	}
}

// FreshEnv is this process's environment for a bua that has never seen
// this machine: the developer's own BUA_* (but BUA_CHROME, how a user picks
// the browser) and CI are dropped, so nothing reaches their real daemon or
// pairing; then home, a free port and CI=true.
func FreshEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if (!strings.HasPrefix(kv, "BUA_") || strings.HasPrefix(kv, "BUA_CHROME=")) && !strings.HasPrefix(kv, "CI=") {
			env = append(env, kv)
		}
	}
	return append(env, "BUA_HOME="+home, "BUA_LISTEN=127.0.0.1:0", "CI=true")
}

// Cmd is how a test runs the built binary.
type Cmd struct {
	Bin   string
	Env   []string
	Dir   string // working directory; "" is the test's own
	Stdin string
}

// Result is one run of the binary.
type Result struct {
	Stdout, Stderr string
	Code           int // -1 when the process could not run
}

// Output is stdout followed by stderr, for messages and for checks that
// must cover both streams (a leaked secret, say).
func (r Result) Output() string { return r.Stdout + r.Stderr }

// Run runs the binary with args and returns its output and exit code.
func (c Cmd) Run(ctx context.Context, args ...string) Result {
	cmd := exec.CommandContext(ctx, c.Bin, args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stdin = strings.NewReader(c.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return Result{stdout.String(), stderr.String(), code}
}

// DumpLogs prints the tails of the daemon's and the managed browser's logs
// under home: the first place to look when the extension never connected.
// The tails are short (dumpLines lines each, Chromium's D-Bus noise left
// out, a run of lines with the same message told once with its count), so
// that in a CI log cut to its last lines the failing test's own messages,
// printed just before, are still there.
func DumpLogs(home string) {
	for _, name := range []string{"daemon.log", filepath.Join("browser", "browser.log")} {
		direct, _ := filepath.Glob(filepath.Join(home, name))
		nested, _ := filepath.Glob(filepath.Join(home, "*", name))
		for _, p := range append(direct, nested...) {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			fmt.Fprintf(os.Stderr, "==== %s (tail) ====\n%s==== end of %s; the failing tests' messages are above ====\n", p, logTail(string(data), dumpLines), filepath.Base(p))
		}
	}
}

// dumpLines is how many lines of each log DumpLogs prints.
const dumpLines = 25

// noise matches browser log lines that never explain a failure here.
var noise = regexp.MustCompile(`dbus|Fontconfig|DevTools listening|^\s*$`)

// logTail is the last n lines of log worth reading: noise dropped, and a
// run of lines whose msg="…" (or text) repeats folded into one line.
func logTail(log string, n int) string {
	var out []string
	last, repeats := "", 0
	flush := func() {
		if repeats > 0 {
			out = append(out, fmt.Sprintf("   … and %d more like it", repeats))
		}
		repeats = 0
	}
	for _, line := range strings.Split(log, "\n") {
		if noise.MatchString(line) {
			continue
		}
		key := line
		if i := strings.Index(line, "msg="); i >= 0 {
			key = line[i:]
		}
		if key == last {
			repeats++
			continue
		}
		flush()
		out = append(out, line)
		last = key
	}
	flush()
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n") + "\n"
}

// CLIError is what `bua --json` prints on failure (pkg/render/hints.go).
type CLIError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Hint    string `json:"hint"`
	} `json:"error"`
}

// Failure reads r as a --json failure: its code, message, reason and
// hint; it fails the test when r printed none.
func Failure(t testing.TB, r Result) CLIError {
	t.Helper()
	var e CLIError
	if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil || e.Error.Code == "" {
		t.Fatalf("exit %d: want a --json error on stdout, got:\n%s", r.Code, r.Output())
	}
	return e
}
