//go:build linux

package npm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/internal/syncbuf"
)

// TestGlobalInstall: `npm i -g @bua-dev/bua` in a clean prefix puts a
// working `bua` on the prefix's PATH, with the postinstall (the binary
// in the launcher's place, hard-linked) and with --ignore-scripts (the
// Node launcher), and only this machine's platform package comes along.
// Through either, bua answers as the bare binary does: the same output
// and exit codes, and an MCP client lists the tool; through the launcher,
// signals reach bua and bua's ending is the launcher's.
func TestGlobalInstall(t *testing.T) {
	for _, scripts := range []bool{true, false} {
		t.Run(scriptsName(scripts), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := npmEnv(dir)
			args := []string{"install", "-g", "@bua-dev/bua"}
			if !scripts {
				args = append(args, "--ignore-scripts")
			}
			if r := run(t, env, filepath.Join(dir, "work"), 5*time.Minute, "npm", args...); r.code != 0 {
				t.Fatalf("npm %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
			}
			prefix := filepath.Join(dir, "prefix")
			launcher := filepath.Join(prefix, "lib", "node_modules", "@bua-dev", "bua")
			if got := list(t, filepath.Join(prefix, "lib", "node_modules", "@bua-dev", "*")); !slices.Equal(got, []string{"bua"}) {
				t.Errorf("global packages under @bua-dev: %v, want only the launcher", got)
			}
			// os and cpu keep the five other platforms out.
			if got := list(t, filepath.Join(launcher, "node_modules", "@bua-dev", "*")); !slices.Equal(got, []string{"bua-" + hostKey}) {
				t.Errorf("the launcher's platform packages: %v, want bua-%s only", got, hostKey)
			}
			bin := filepath.Join(prefix, "bin", "bua")
			if target, err := os.Readlink(bin); err != nil || !strings.HasSuffix(target, "/@bua-dev/bua/bin/bua.js") {
				t.Errorf("%s: a link to %q (%v), want npm's link to the launcher's bin/bua.js", bin, target, err)
			}
			checkLinked(t, launcher, filepath.Join(launcher, "node_modules", "@bua-dev", "bua-"+hostKey), scripts)
			if scripts {
				// The postinstall again, over its own work (esbuild's
				// postinstall once broke a second `npm rebuild`).
				if r := run(t, env, filepath.Join(dir, "work"), 5*time.Minute, "npm", "rebuild", "-g", "@bua-dev/bua"); r.code != 0 {
					t.Fatalf("npm rebuild -g: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				checkLinked(t, launcher, filepath.Join(launcher, "node_modules", "@bua-dev", "bua-"+hostKey), scripts)
			}
			checkAnswers(t, env, bin)
			checkMCP(t, exec.Command(bin, "mcp"), env)
			if !scripts {
				checkSignals(t, env, bin)
			}
		})
	}
}

// TestNpx: `npx -y @bua-dev/bua mcp`, the line an MCP host runs, from a
// clean cache (npx installs it first, as on a user's first run), answers
// initialize and tools/list; then `npx -y @bua-dev/bua --version` and a bad
// command answer as bua does. With and without install scripts.
func TestNpx(t *testing.T) {
	for _, scripts := range []bool{true, false} {
		t.Run(scriptsName(scripts), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := npmEnv(dir)
			if !scripts {
				env = append(env, "npm_config_ignore_scripts=true")
			}
			work := filepath.Join(dir, "work")
			cmd := exec.Command("npx", "-y", "@bua-dev/bua", "mcp")
			cmd.Dir = work
			checkMCP(t, cmd, env)

			// What npx installed: the launcher and this machine's platform
			// package, in one of npx's cache folders.
			launchers, _ := filepath.Glob(filepath.Join(dir, "cache", "_npx", "*", "node_modules", "@bua-dev", "bua"))
			if len(launchers) != 1 {
				t.Fatalf("npx installed @bua-dev/bua %d times in its cache, want once", len(launchers))
			}
			modules := filepath.Dir(launchers[0])
			if got := list(t, filepath.Join(modules, "*")); !slices.Equal(got, []string{"bua", "bua-" + hostKey}) {
				t.Errorf("npx's @bua-dev packages: %v, want the launcher and bua-%s", got, hostKey)
			}
			checkLinked(t, filepath.Join(modules, "bua"), filepath.Join(modules, "bua-"+hostKey), scripts)

			want := run(t, env, work, time.Minute, bareBua, "--version")
			got := run(t, env, work, 2*time.Minute, "npx", "-y", "@bua-dev/bua", "--version")
			if got.code != 0 || got.stdout != want.stdout {
				t.Errorf("npx -y @bua-dev/bua --version: exit %d, %q (stderr %q); bua itself: %q", got.code, got.stdout, got.stderr, want.stdout)
			}
			want = run(t, env, work, time.Minute, bareBua, "nosuchcommand")
			got = run(t, env, work, 2*time.Minute, "npx", "-y", "@bua-dev/bua", "nosuchcommand")
			if got.code != want.code || !strings.Contains(got.stderr, strings.TrimSpace(want.stderr)) {
				t.Errorf("npx -y @bua-dev/bua nosuchcommand: exit %d, stderr %q; bua itself: exit %d, %q", got.code, got.stderr, want.code, want.stderr)
			}
		})
	}
}

// TestOmitOptional: installed without optional dependencies (a project's
// `npm install --omit=optional`; npm's global installs keep them), there
// is no binary; the install still succeeds (the postinstall only warns)
// and `bua` says which package to install, at which version.
func TestOmitOptional(t *testing.T) {
	dir := t.TempDir()
	env := npmEnv(dir)
	work := filepath.Join(dir, "work")
	if err := os.WriteFile(filepath.Join(work, "package.json"), []byte(`{"name":"omit-optional","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, env, work, 5*time.Minute, "npm", "install", "--omit=optional", "@bua-dev/bua"); r.code != 0 {
		t.Fatalf("npm install --omit=optional: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	modules := filepath.Join(work, "node_modules", "@bua-dev")
	if got := list(t, filepath.Join(modules, "*")); !slices.Equal(got, []string{"bua"}) {
		t.Fatalf("--omit=optional installed %v, want the launcher alone", got)
	}
	if !isScript(t, filepath.Join(modules, "bua", "bin", "bua.js")) {
		t.Errorf("with no binary to link, the postinstall replaced the launcher")
	}
	r := run(t, env, work, time.Minute, filepath.Join(work, "node_modules", ".bin", "bua"), "--version")
	want := "npm install @bua-dev/bua-" + hostKey + "@" + version + "\n"
	if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("bua --version with no platform package: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and a line naming %q", r.code, r.stdout, r.stderr, want)
	}
}

func scriptsName(scripts bool) string {
	if scripts {
		return "scripts"
	}
	return "ignore-scripts"
}

// checkLinked checks the launcher's bin/bua.js: with install scripts, the
// platform package's binary itself (a hard link: no copy on disk); without,
// the Node launcher.
func checkLinked(t *testing.T, launcher, platform string, scripts bool) {
	t.Helper()
	js := filepath.Join(launcher, "bin", "bua.js")
	if !scripts {
		if !isScript(t, js) {
			t.Errorf("%s is not the Node launcher, with install scripts off", js)
		}
		return
	}
	a, errA := os.Stat(js)
	b, errB := os.Stat(filepath.Join(platform, "bin", "bua"))
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("the postinstall did not link the binary in the launcher's place: %s is not %s/bin/bua (%v, %v)", js, platform, errA, errB)
	}
	if _, err := os.Stat(filepath.Join(launcher, "bin")); err == nil {
		if got := list(t, filepath.Join(launcher, "bin", "*")); !slices.Equal(got, []string{"bua.js"}) {
			t.Errorf("the launcher's bin/ holds %v after the postinstall, want bua.js alone", got)
		}
	}
}

func isScript(t *testing.T, file string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.HasPrefix(b, []byte("#!/usr/bin/env node\n"))
}

// checkAnswers: bua through bin prints what the bare binary prints and
// exits with its code, for a command that works and one bua refuses.
func checkAnswers(t *testing.T, env []string, bin string) {
	t.Helper()
	for _, args := range [][]string{{"--version"}, {"nosuchcommand"}, {"tabs", "--no-such-flag"}} {
		want := run(t, env, "", time.Minute, bareBua, args...)
		got := run(t, env, "", time.Minute, bin, args...)
		if got.code != want.code || got.stdout != want.stdout || got.stderr != want.stderr {
			t.Errorf("bua %s through npm: exit %d, stdout %q, stderr %q; the bare binary: exit %d, %q, %q",
				strings.Join(args, " "), got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
		}
	}
	if want := run(t, env, "", time.Minute, bareBua, "nosuchcommand"); want.code == 0 {
		t.Errorf("bua nosuchcommand exits 0: the exit code check checks nothing")
	}
}

// initialize is what bua mcp answers initialize with, read from the bare
// binary once, to compare each npm path's answer with.
var initialize struct {
	once sync.Once
	info *mcp.Implementation
}

// checkMCP starts cmd (an MCP server on stdio) as a host does, through
// the official Go SDK's client: initialize answers bua, tools/list the
// one browser tool with its object schema; then the client hangs up and
// the server must exit at once, cleanly, with nothing left running (the
// SDK would SIGTERM it only after TerminateDuration).
func checkMCP(t *testing.T, cmd *exec.Cmd, env []string) {
	t.Helper()
	initialize.once.Do(func() {
		initialize.info = mcpSession(t, exec.Command(bareBua, "mcp"), env)
	})
	got, _ := json.Marshal(mcpSession(t, cmd, env))
	if want, _ := json.Marshal(initialize.info); initialize.info == nil || !bytes.Equal(got, want) {
		t.Errorf("%s: initialize's server %s, the bare binary's %s", strings.Join(cmd.Args, " "), got, want)
	}
}

func mcpSession(t *testing.T, cmd *exec.Cmd, env []string) *mcp.Implementation {
	t.Helper()
	name := strings.Join(cmd.Args, " ")
	cmd.Env = env
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // npx installs first
	defer cancel()
	const terminate = 30 * time.Second
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bua-e2e-npm", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("%s: connect: %v\nstderr:\n%s", name, err, stderr.String())
	}
	info := cs.InitializeResult().ServerInfo
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Errorf("%s: tools/list: %v", name, err)
	} else {
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		var schema struct {
			Type string `json:"type"`
		}
		var raw []byte
		if len(tools.Tools) > 0 {
			raw, _ = json.Marshal(tools.Tools[0].InputSchema)
		}
		if err := json.Unmarshal(raw, &schema); err != nil || !slices.Equal(names, []string{"browser"}) || schema.Type != "object" {
			t.Errorf("%s: tools/list %v, the first's schema %.200s", name, names, raw)
		}
	}
	start := time.Now()
	err = cs.Close()
	if took := time.Since(start); err != nil || took >= terminate {
		t.Errorf("%s: after the client hung up the server ended with %v after %s (SIGTERM comes at %s)\nstderr:\n%s", name, err, took.Round(time.Millisecond), terminate, stderr.String())
	}
	if info == nil {
		t.Fatalf("%s: initialize named no server", name)
	}
	return info
}

// checkSignals: through the Node launcher, a signal to it ends bua as the
// same signal to bua itself does (bua gets it, cleans up, and the exit
// code or the signal it died of is the launcher's too); a Ctrl-C, which a
// terminal sends to the whole process group, is no different; and when
// bua dies of a signal nobody sent the launcher, the launcher dies of it
// too. bua is never left running behind it.
func checkSignals(t *testing.T, env []string, launcher string) {
	t.Helper()
	cases := []struct {
		name  string
		sig   syscall.Signal
		group bool // to the process group, as a terminal's Ctrl-C
	}{
		{"SIGTERM", syscall.SIGTERM, false},
		{"SIGHUP", syscall.SIGHUP, false},
		{"SIGINT to the group", syscall.SIGINT, true},
	}
	for _, c := range cases {
		want, _ := serveAndSignal(t, env, bareBua, func(pid, _ int) { signal(t, pid, c.sig, c.group) })
		got, _ := serveAndSignal(t, env, launcher, func(pid, _ int) { signal(t, pid, c.sig, c.group) })
		if got != want {
			t.Errorf("%s through the launcher: it %s; bua itself %s", c.name, got, want)
		}
	}
	if want, _ := serveAndSignal(t, env, bareBua, func(pid, _ int) { signal(t, pid, syscall.SIGHUP, false) }); want.signal != syscall.SIGHUP {
		t.Errorf("bua mcp now %s on SIGHUP: the re-raise is checked with SIGKILL only", want)
	}
	// SIGKILL to bua alone (the OOM killer's): the launcher dies of it too.
	got, _ := serveAndSignal(t, env, launcher, func(_, native int) { signal(t, native, syscall.SIGKILL, false) })
	if got.signal != syscall.SIGKILL {
		t.Errorf("bua killed by SIGKILL: the launcher %s, want killed by the same signal", got)
	}
}

func signal(t *testing.T, pid int, sig syscall.Signal, group bool) {
	t.Helper()
	if group {
		pid = -pid
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill(%d, %v): %v", pid, sig, err)
	}
}

// ending is how a process ended: an exit code, or the signal it died of.
type ending struct {
	code   int
	signal syscall.Signal
}

func (e ending) String() string {
	if e.signal != 0 {
		return "was killed by " + e.signal.String()
	}
	return "exited " + strconv.Itoa(e.code)
}

// serveAndSignal starts `bin mcp` in a process group of its own, waits
// until bua answers an initialize (so it is up and its signal handlers
// are in place), calls act with the started process's pid and the native
// bua's (the same, for the bare binary), checks that the native bua ended
// too, and returns how the started process ended and the native pid.
func serveAndSignal(t *testing.T, env []string, bin string, act func(pid, native int)) (ending, int) {
	t.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A bua left running behind the launcher holds stderr open: Wait must
	// not wait for it, gone says so.
	cmd.WaitDelay = 2 * time.Second
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	// stdin is a pipe of the test's own, not StdinPipe, which Wait closes:
	// a bua left running behind the launcher must not get its EOF.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	stdinR.Close()
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bua-e2e-npm","version":"1"}}}` + "\n"
	if _, err := io.WriteString(stdin, init); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-line:
		if !strings.Contains(l, `"id":1`) || !strings.Contains(l, `"result"`) {
			t.Fatalf("%s mcp: initialize answered %q\nstderr:\n%s", bin, l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s mcp: no answer to initialize in 30 s\nstderr:\n%s", bin, stderr.String())
	}
	native := cmd.Process.Pid
	if bin != bareBua {
		native = childOf(t, cmd.Process.Pid)
	}
	act(cmd.Process.Pid, native)
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s mcp did not end 20 s after the signal\nstderr:\n%s", bin, stderr.String())
	}
	// Before stdin closes: a bua left behind would end on its EOF.
	gone(t, native)
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return ending{code: -1, signal: ws.Signal()}, native
	}
	return ending{code: ws.ExitStatus()}, native
}

// childOf is the one child process of pid, from /proc.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	var kids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			kids = append(kids, kid)
		}
	}
	if len(kids) != 1 {
		t.Fatalf("the launcher (pid %d) has children %v, want the native bua alone", pid, kids)
	}
	return kids[0]
}

// gone fails t when pid still runs (not even a zombie) 5 s on.
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("bua (pid %d) still runs after the launcher ended: %s", pid, b)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// list is the base names glob matches, sorted.
func list(t *testing.T, glob string) []string {
	t.Helper()
	m, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m {
		names = append(names, filepath.Base(f))
	}
	slices.Sort(names)
	return names
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs name with args in dir ("" for the test's) and env, and
// returns its output and exit code; one that cannot start, or outlives
// timeout, fails t.
func run(t *testing.T, env []string, dir string, timeout time.Duration, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: still running after %s\n%s%s", name, strings.Join(args, " "), timeout, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// TestUnsupportedPlatform: on an OS or CPU with no package, the launcher
// says so and names the ones there are (Node made to report FreeBSD).
func TestUnsupportedPlatform(t *testing.T) {
	preload := filepath.Join(t.TempDir(), "freebsd.js")
	if err := os.WriteFile(preload, []byte(`Object.defineProperty(process, "platform", { value: "freebsd" });`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, os.Environ(), "", time.Minute, "node", "-r", preload, filepath.Join(repoRoot, "npm", "bua", "bin", "bua.js"), "--version")
	want := "bua: there is no npm package of bua for freebsd-" + strings.TrimPrefix(hostKey, "linux-") + " (there are: linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64, win32-arm64)"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
		t.Errorf("the launcher on FreeBSD: exit %d, stdout %q, stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, want)
	}
}
