//go:build linux

package faults

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
)

// Runaway flows and what `bua run` leaves behind (docs/testing.md#runaway-flows):
// a loop whose body never waits stops at the flow's timeout or at
// Ctrl-C; an expression that would build gigabytes is refused from its
// arguments; an interrupted run exits 130 with its reports written; a
// report or an evidence file that cannot be written is said on stderr and
// counted in the exit code the summary prints.
//
// Every `bua run` here runs under `ulimit -v` (memLimitKB): a regression
// that lets a flow allocate without bound kills that bua with "out of
// memory" and fails the test, instead of taking the machine down.

// memLimitKB is the address space a `bua run` here may map: Go's runtime
// and a bua run need well under 1 GB; a 10 GB string does not fit.
const memLimitKB = 2_000_000

// limited is a `bua run` under memLimitKB, its stdout and stderr read as
// it writes them.
type limited struct {
	cmd            *exec.Cmd
	stdout, stderr syncbuf.Buffer
	start          time.Time
	done           chan struct{}
	took           time.Duration
}

// startLimited starts `bua run ARGS...` against the shared browser, with
// env added to its environment, under `ulimit -v memLimitKB`: sh sets the
// limit, then execs bua, so the pid is bua's once it prints.
func startLimited(t *testing.T, env []string, args ...string) *limited {
	t.Helper()
	return startLimitedIn(t, "", env, args...)
}

// startLimitedIn is startLimited with bua run's working directory dir
// ("" is the test's own), where its evidence folders are named from.
func startLimitedIn(t *testing.T, dir string, env []string, args ...string) *limited {
	t.Helper()
	l := &limited{done: make(chan struct{})}
	sh := fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, memLimitKB)
	l.cmd = exec.Command("sh", append([]string{"-c", sh, shared.Bin, "run"}, args...)...)
	l.cmd.Dir = dir
	l.cmd.Env = append(append([]string{}, shared.Env...), env...)
	l.cmd.Stdout, l.cmd.Stderr = &l.stdout, &l.stderr
	l.start = time.Now()
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = l.cmd.Wait()
		l.took = time.Since(l.start)
		close(l.done)
	}()
	t.Cleanup(func() {
		_ = l.cmd.Process.Kill()
		<-l.done
	})
	return l
}

// wait waits up to limit for bua to exit; it returns the exit code and
// its peak resident memory in MiB.
func (l *limited) wait(t *testing.T, limit time.Duration) (int, int64) {
	t.Helper()
	select {
	case <-l.done:
	case <-time.After(limit):
		t.Fatalf("bua run still running %s later\nstdout (end):\n%s\nstderr:\n%s", limit, tail(l.stdout.String(), 2000), l.stderr.String())
	}
	var rssMiB int64
	if ru, ok := l.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssMiB = ru.Maxrss / 1024 // KiB on Linux
	}
	if strings.Contains(l.stderr.String(), "out of memory") {
		t.Fatalf("bua ran out of its %d KB of address space: a flow allocated without bound\n%s", memLimitKB, tail(l.stderr.String(), 2000))
	}
	return l.cmd.ProcessState.ExitCode(), rssMiB
}

// waitOutput waits until stdout holds want (the run is where the test
// needs it) and returns when it did.
func (l *limited) waitOutput(t *testing.T, want string) time.Time {
	t.Helper()
	if !waitFor(30*time.Second, func() bool { return strings.Contains(l.stdout.String(), want) }) {
		t.Fatalf("stdout never showed %q:\n%s\nstderr:\n%s", want, tail(l.stdout.String(), 2000), l.stderr.String())
	}
	return time.Now()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// flowFile writes a flow into dir and returns its path.
func flowFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// busyFlow reads the page on tab (a real action, through the shared
// daemon), then loops on set and assert steps that never wait.
func busyFlow(timeout string) string {
	src := "name: busy\n"
	if timeout != "" {
		src += "timeout: " + timeout + "\n"
	}
	return src + `vars: { i: 0 }
steps:
  - evaluate: { expression: "return document.title", tabId: "${{ int(env.BUA_TEST_TAB) }}" }
  - repeat:
      times: 1000000000
      steps:
        - set: { i: "vars.i + 1" }
        - assert: vars.i > 0
finally:
  - log: cleanup
`
}

// TestRunaway_BusyRepeatTimeout: a repeat whose body only computes stops
// at its flow's 3 s timeout (it ran 6.8 million passes into an out of
// memory crash before), in bounded memory, and says why.
func TestRunaway_BusyRepeatTimeout(t *testing.T) {
	exclusive(t)
	tab := openTab(t, shared, siteURL("blank.html"))
	dir := t.TempDir()
	flow := flowFile(t, dir, "busy.yaml", busyFlow("3s"))
	l := startLimited(t, []string{"BUA_TEST_TAB=" + tab}, flow)
	code, rss := l.wait(t, 30*time.Second)
	out := l.stdout.String()
	t.Logf("busy repeat with timeout 3s stopped after %s; peak RSS %d MiB; %d lines of output", l.took.Round(time.Millisecond), rss, strings.Count(out, "\n"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a failed flow)\n%s\n%s", code, tail(out, 3000), l.stderr.String())
	}
	if !strings.Contains(out, "flow stopped: flow timeout 3s exceeded") {
		t.Errorf("output does not say the flow's timeout stopped it:\n%s", tail(out, 3000))
	}
	if l.took < 3*time.Second || l.took > 3*time.Second+5*time.Second {
		t.Errorf("stopped after %s, want soon after its 3 s timeout", l.took)
	}
	if !strings.Contains(out, "left out of the report") {
		t.Errorf("the repeat's note does not say its middle passes were left out:\n%s", tail(out, 3000))
	}
	if !strings.Contains(out, "— cleanup") {
		t.Errorf("finally did not run after the flow's timeout:\n%s", tail(out, 3000))
	}
	if rss > 300 {
		t.Errorf("peak RSS %d MiB: the loop's passes are not bounded", rss)
	}
}

// reports are the --report flags of a run into dir.
func reports(dir string) []string {
	return []string{"--report", "junit=" + filepath.Join(dir, "junit.xml"), "--report", "json=" + filepath.Join(dir, "report.json"), "--report", "html=" + filepath.Join(dir, "report.html")}
}

// checkInterruptedReports parses the three reports of an interrupted run:
// JSON says interrupted with exit code 130 and the flow's status, JUnit is
// well-formed with the flow a failure of type interrupted, the HTML page
// shows it.
func checkInterruptedReports(t *testing.T, dir string, flows int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		ExitCode    int  `json:"exitCode"`
		Interrupted bool `json:"interrupted"`
		Flows       []struct {
			Status string `json:"status"`
		} `json:"flows"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.ExitCode != 130 || !rep.Interrupted || len(rep.Flows) != flows || rep.Flows[0].Status != "interrupted" {
		t.Errorf("report.json: %v %+v", err, rep)
	}
	x, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var junit struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &junit); err != nil || junit.Suite.Tests != flows || junit.Suite.Failures != 1 || junit.Suite.Cases[0].Failure == nil || junit.Suite.Cases[0].Failure.Type != "interrupted" {
		t.Errorf("junit.xml: %v\n%s", err, x)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !bytes.Contains(page, []byte(`<details class="flow interrupted" open>`)) {
		t.Errorf("report.html: %v, or the flow is not shown interrupted", err)
	}
}

// TestRunaway_Interrupt: Ctrl-C (SIGINT) on `bua run` in a busy loop, and
// SIGTERM while an action waits in the browser, exit 130 at once, as every
// command does, with the reports written and parseable; the flows after
// are skipped and the interrupted one's finally does not run.
func TestRunaway_Interrupt(t *testing.T) {
	exclusive(t)
	tab := openTab(t, shared, siteURL("blank.html"))
	dir := t.TempDir()
	later := flowFile(t, dir, "later.yaml", "name: later\nsteps:\n  - log: never\n")
	waiting := flowFile(t, dir, "wait.yaml", `name: waiting
steps:
  - wait_for: { selector: "#never", timeoutMs: 60000, tabId: "${{ int(env.BUA_TEST_TAB) }}" }
finally:
  - log: cleanup
`)
	busy := flowFile(t, dir, "busy.yaml", busyFlow(""))
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		flow   string
		marker string // stdout that shows the run is where the signal must land
	}{
		{"SIGINT in a busy loop", syscall.SIGINT, busy, "2.1.2 assert"},
		{"SIGTERM during an action", syscall.SIGTERM, waiting, "flow waiting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			l := startLimited(t, []string{"BUA_TEST_TAB=" + tab}, append([]string{tc.flow, later}, reports(out)...)...)
			l.waitOutput(t, tc.marker)
			if tc.sig == syscall.SIGTERM {
				waitInFlight(t, shared, 1) // the wait_for is out in the browser
			}
			sent := time.Now()
			if err := l.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			code, rss := l.wait(t, 10*time.Second)
			took := time.Since(sent)
			t.Logf("%s: exit %d %s after the signal; peak RSS %d MiB", tc.name, code, took.Round(time.Millisecond), rss)
			if code != 130 {
				t.Fatalf("exit %d, want 130\n%s\n%s", code, tail(l.stdout.String(), 3000), l.stderr.String())
			}
			if took > 3*time.Second {
				t.Errorf("exited %s after the signal, want at once", took)
			}
			stdout := l.stdout.String()
			if !strings.Contains(stdout, ", interrupted (exit 130)") || !strings.Contains(l.stderr.String(), "bua: interrupted") {
				t.Errorf("the summary or stderr does not say interrupted:\n%s\n%s", tail(stdout, 1500), l.stderr.String())
			}
			if strings.Contains(stdout, "— cleanup") {
				t.Errorf("finally ran after the interrupt")
			}
			checkInterruptedReports(t, out, 2)
		})
	}
	waitInFlight(t, shared, 0) // the daemon cancelled the wait_for in the browser
}

// TestRunaway_HugeValue: an expression that would build 10 GB, and a var
// doubled 40 times, are refused from their arguments within seconds,
// naming the expression and where it is, in a bua that may map 2 GB.
func TestRunaway_HugeValue(t *testing.T) {
	exclusive(t)
	tab := openTab(t, shared, siteURL("blank.html"))
	dir := t.TempDir()
	for _, tc := range []struct {
		name, flow, want string
	}{
		{"repeat of 10 GB", "name: bomb\nsteps:\n  - evaluate: { expression: \"return 1\", tabId: \"${{ int(env.BUA_TEST_TAB) }}\" }\n  - set: { s: \"repeat(repeat('a', 100000), 100000)\" }\n",
			`expression "repeat(repeat('a', 100000), 100000)" at %s:4:15: repeat would build 9.3 GiB, over the 10 MiB budget of a computed value`},
		{"var doubled 40 times", "name: doubled\nvars: { s: a }\nsteps:\n  - evaluate: { expression: \"return 1\", tabId: \"${{ int(env.BUA_TEST_TAB) }}\" }\n  - repeat:\n      times: 40\n      steps:\n        - set: { s: \"vars.s + vars.s\" }\n",
			`expression "vars.s + vars.s" at %s:8:21: + would build 16 MiB, over the 10 MiB budget of a computed value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flow := flowFile(t, dir, strings.ReplaceAll(tc.name, " ", "_")+".yaml", tc.flow)
			l := startLimited(t, []string{"BUA_TEST_TAB=" + tab}, flow)
			code, rss := l.wait(t, 30*time.Second)
			t.Logf("%s: refused after %s; peak RSS %d MiB", tc.name, l.took.Round(time.Millisecond), rss)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, l.stdout.String(), l.stderr.String())
			}
			if want := fmt.Sprintf(tc.want, flow); !strings.Contains(l.stdout.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, l.stdout.String())
			}
			if l.took > 10*time.Second {
				t.Errorf("took %s to refuse", l.took)
			}
			if rss > 300 {
				t.Errorf("peak RSS %d MiB: the value was built before it was refused", rss)
			}
		})
	}
}

// TestRunaway_FilesNotWritten: a --report that cannot be written (a device
// that is full, a folder that is a file) and evidence files on a full
// filesystem (a 64 KiB tmpfs, nearly filled) are each named on stderr
// with the OS's reason; bua exits 2 and the summary says so, and no
// half-written file is left in the bundle.
func TestRunaway_FilesNotWritten(t *testing.T) {
	exclusive(t)
	tab := openTab(t, shared, siteURL("form.html"))
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full).CombinedOutput(); err != nil {
		t.Fatalf("mount a 64 KiB tmpfs (this test runs as root, as CI does): %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", full).Run() })
	// Leave 8 KiB: some bundle files fit, the screenshot does not.
	if err := os.WriteFile(filepath.Join(full, "filler"), make([]byte, 56<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := flowFile(t, dir, "plain", "a file, not a folder")
	flow := flowFile(t, dir, "fails.yaml", `name: fails
steps:
  - evaluate: { expression: "return document.title", tabId: "${{ int(env.BUA_TEST_TAB) }}" }
    as: title
  - assert: title.value == "not this page"
`)
	artifacts := filepath.Join(full, "art")
	// Run from dir: fails.yaml's evidence is in art/fails/.
	l := startLimitedIn(t, dir, []string{"BUA_TEST_TAB=" + tab}, flow, "--artifacts", artifacts,
		"--report", "junit=/dev/full", "--report", "json="+filepath.Join(notDir, "r.json"), "--report", "json="+filepath.Join(dir, "ok.json"))
	code, _ := l.wait(t, 60*time.Second)
	stderr, stdout := l.stderr.String(), l.stdout.String()
	if code != 2 {
		t.Fatalf("exit %d, want 2 (files not written)\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"bua: could not write junit report /dev/full: no space left on device",
		"bua: could not write json report " + filepath.Join(notDir, "r.json") + ": mkdir " + notDir + ": not a directory",
		"bua: could not write artifact " + filepath.Join(artifacts, "fails", "2-assert", "screenshot.jpg") + ": no space left on device",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	notWritten := strings.Count(stderr, "bua: could not write")
	if !strings.Contains(stdout, "0 passed, 1 failed, 0 skipped in") || !strings.Contains(stdout, fmt.Sprintf("%d files not written (exit 2)", notWritten)) {
		t.Errorf("summary does not count the %d files not written with exit 2:\n%s", notWritten, tail(stdout, 1500))
	}
	// What is in the bundle is whole: no empty file, JSON that parses.
	bundle := filepath.Join(artifacts, "fails", "2-assert")
	entries, _ := os.ReadDir(bundle)
	for _, e := range entries {
		p := filepath.Join(bundle, e.Name())
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v: a partial file was left behind", p, len(b), err)
		}
		if strings.HasSuffix(p, ".json") && !json.Valid(b) {
			t.Errorf("%s is not whole JSON", p)
		}
	}
	if _, err := os.Stat(filepath.Join(bundle, "screenshot.jpg")); err == nil {
		t.Errorf("the screenshot that did not fit was left behind")
	}
	b, err := os.ReadFile(filepath.Join(dir, "ok.json"))
	var rep struct {
		ExitCode int      `json:"exitCode"`
		Problems []string `json:"problems"`
	}
	if err != nil || json.Unmarshal(b, &rep) != nil || rep.ExitCode != 2 || len(rep.Problems) < 3 {
		t.Errorf("the report that could be written: %v %+v", err, rep)
	}
	t.Logf("%d files not written, each named on stderr; %d bundle files written whole", notWritten, len(entries))
}
