package parallel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/browser"
)

// TestParallel_StopsLaunchedBrowsers: `bua run --parallel 2` on a home
// where no browser runs launches managed and managed-1 for its workers
// and stops them when it ends, whether a flow failed (exit 1) or Ctrl-C
// stopped the run (exit 130): afterwards no process of either browser's
// group is left. With --keep-browsers both stay, and `bua browser stop`
// ends them. A home of its own, with a daemon of its own: the package's
// three browsers ran before the other tests' runs, so those runs leave
// them running.
func TestParallel_StopsLaunchedBrowsers(t *testing.T) {
	dir := harness.TempDir("buastop")
	t.Cleanup(func() { os.RemoveAll(dir) })
	own := harness.Cmd{Bin: buaBin, Env: harness.FreshEnv(filepath.Join(dir, "home"))}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		own.Run(ctx, "browser", "stop")
		own.Run(ctx, "stop")
	})
	flows := func(name string, srcs ...string) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, src := range srcs {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.yaml", i)), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	// meet is a flow that waits at key's barrier with the other flow and
	// the test (n=3), then runs tail.
	meet := func(key, name, tail string) string {
		return fmt.Sprintf("name: %s\nvars: { base: \"\" }\nsteps:\n  - navigate: ${{ vars.base }}/barrier?key=%s&n=3\n%s", name, key, tail)
	}

	t.Run("Failed", func(t *testing.T) {
		key := t.Name()
		run := startRun(t, own, "--var", "base="+base, flows("failed",
			meet(key, "passes", "  - evaluate: \"return 1\"\n"),
			meet(key, "fails", "  - evaluate: \"throw new Error('on purpose')\"\n")))
		pids := workerPIDs(t, own, run)
		arrive(t, key)
		if code := run.wait(t); code != 1 {
			t.Errorf("exit %d, want 1 (a flow failed):\n%s", code, run.out.String())
		}
		wantGone(t, pids, run)
	})

	t.Run("Interrupted", func(t *testing.T) {
		hold := "name: hold\nvars: { base: \"\" }\nsteps:\n  - navigate: ${{ vars.base }}/hold?worker=${{ env.BUA_WORKER_INDEX }}\n"
		run := startRun(t, own, "--var", "base="+base, flows("interrupted", hold, hold))
		pids := workerPIDs(t, own, run)
		for range 2 {
			select {
			case <-holds:
			case <-time.After(90 * time.Second):
				t.Fatalf("the two flows never waited at once:\n%s", run.out.String())
			}
		}
		if err := run.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if code := run.wait(t); code != 130 {
			t.Errorf("exit %d, want 130 (interrupted):\n%s", code, run.out.String())
		}
		wantGone(t, pids, run)
	})

	t.Run("KeepBrowsers", func(t *testing.T) {
		key := t.Name()
		run := startRun(t, own, "--keep-browsers", "--var", "base="+base, flows("kept",
			meet(key, "one", ""), meet(key, "two", "")))
		pids := workerPIDs(t, own, run)
		arrive(t, key)
		if code := run.wait(t); code != 0 {
			t.Errorf("exit %d, want 0:\n%s", code, run.out.String())
		}
		for name, pid := range pids {
			if !browser.Alive(pid) {
				t.Errorf("--keep-browsers: %s (pid %d) is gone after the run:\n%s", name, pid, run.out.String())
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if r := own.Run(ctx, "browser", "stop"); r.Code != 0 {
			t.Errorf("bua browser stop: exit %d:\n%s", r.Code, r.Output())
		}
		wantGone(t, pids, run)
	})
}

// parallelRun is a `bua run --parallel 2` in progress.
type parallelRun struct {
	cmd  *exec.Cmd
	out  *strings.Builder
	done chan struct{}
}

// startRun starts `bua run --parallel 2 ARGS...` with c's environment.
func startRun(t *testing.T, c harness.Cmd, args ...string) *parallelRun {
	t.Helper()
	cmd := exec.Command(c.Bin, append([]string{"run", "--parallel", "2"}, args...)...)
	cmd.Env = c.Env
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &parallelRun{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// wait waits for the run to end and returns its exit code.
func (r *parallelRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(3 * time.Minute):
		_ = r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("the run did not end:\n%s", r.out.String())
	}
	return r.cmd.ProcessState.ExitCode()
}

// workerPIDs waits until the daemon of c's home runs both workers'
// managed browsers and returns their pids by name.
func workerPIDs(t *testing.T, c harness.Cmd, run *parallelRun) map[string]int {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r := c.Run(ctx, "status", "--json")
		cancel()
		var st struct {
			ManagedBrowsers []struct {
				Name    string
				Running bool
				PID     int
			}
		}
		pids := map[string]int{}
		if json.Unmarshal([]byte(r.Stdout), &st) == nil {
			for _, b := range st.ManagedBrowsers {
				if b.Running && b.PID > 0 {
					pids[b.Name] = b.PID
				}
			}
		}
		if pids["managed"] > 0 && pids["managed-1"] > 0 {
			return pids
		}
		select {
		case <-run.done:
			t.Fatalf("the run ended before both workers' browsers ran:\n%s", run.out.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("managed and managed-1 never both ran: %s\n%s", r.Output(), run.out.String())
		}
	}
}

// arrive is the test's own arrival at key's barrier, which the two flows
// wait at: it opens it.
func arrive(t *testing.T, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/barrier?key="+key+"&n=3", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("barrier %s: %s", key, resp.Status)
	}
}

// wantGone fails unless each browser's whole process group is gone.
func wantGone(t *testing.T, pids map[string]int, run *parallelRun) {
	t.Helper()
	for name, pid := range pids {
		if members := browser.GroupMembers(pid); browser.Alive(pid) || len(members) > 0 {
			t.Errorf("%s (pid %d) still runs after the run: processes %v\n%s", name, pid, members, run.out.String())
		}
	}
}
