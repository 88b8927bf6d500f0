package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// dialled is what a worker's connection asked for.
type dialled struct {
	browser, owner string
	ownWindow      bool
}

// withWorkerRequesters makes `bua run` dial a fake per connection,
// recording what each asked for. A fake's navigate waits (up to 10 s)
// until two workers have dialled, so both take a flow.
func withWorkerRequesters(t *testing.T, env *Env) func() []dialled {
	t.Helper()
	var mu sync.Mutex
	var got []dialled
	both := make(chan struct{})
	wait := func(context.Context, protocol.Action) (any, *protocol.Error) {
		select {
		case <-both:
		case <-time.After(10 * time.Second):
		}
		return map[string]any{"ok": true}, nil
	}
	env.Dial = func(_ context.Context, o bridge.ClientOptions) (bridge.Link, *protocol.Error) {
		mu.Lock()
		defer mu.Unlock()
		if got = append(got, dialled{string(o.Browser), o.Owner, o.OwnWindow}); len(got) == 2 {
			close(both)
		}
		return fakeLink{runnertest.New().On(protocol.ActionNavigate, wait)}, nil
	}
	return func() []dialled {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestRunCommand_Parallel: --parallel N (or --workers N) gives each worker
// a browser of its own: managed browser i where bua may launch them
// (CI=true), else a window each, as a tab owner of its own, in the
// person's Chrome, which the first line says shares its cookies. The JSON
// report has every flow, sorted, each with its worker. --browser managed-N
// and a count beyond the managed browsers' cap are usage errors.
func TestRunCommand_Parallel(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"c", "a", "b"} {
		files = append(files, writeFlow(t, dir, n+".yaml", "name: "+n+"\nsteps:\n  - navigate: http://x.test/${{ env.BUA_WORKER_INDEX }}\n"))
	}
	home := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		want  int
		out   string
		check func(t *testing.T, d []dialled)
	}{
		{"Managed", []string{"--parallel", "2"}, 0, "3 flows on 2 workers: managed browsers managed, managed-1", func(t *testing.T, d []dialled) {
			var names []string
			for _, x := range d {
				names = append(names, x.browser)
				if x.owner != "" || x.ownWindow {
					t.Errorf("managed worker dialled as owner %q", x.owner)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"managed", "managed-1"}) {
				t.Errorf("workers dialled %v, want managed and managed-1", names)
			}
		}},
		{"UserWindows", []string{"--workers", "2", "--browser", "user"}, 0, "a window each in the browser user (its cookies are shared", func(t *testing.T, d []dialled) {
			if len(d) != 2 || d[0].owner == d[1].owner {
				t.Fatalf("workers dialled %+v, want two owners", d)
			}
			for _, x := range d {
				if x.browser != "user" || !x.ownWindow || x.owner == "" {
					t.Errorf("worker dialled %+v, want user with a window of its own", x)
				}
			}
		}},
		{"OneManagedBrowser", []string{"--parallel", "2", "--browser", "managed-2"}, 2, "", nil},
		{"TooMany", []string{"--parallel", "17"}, 2, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errb := testEnv()
			dials := withWorkerRequesters(t, env)
			env.Getenv = func(k string) string { return map[string]string{"BUA_HOME": home, "CI": "true"}[k] }
			report := filepath.Join(t.TempDir(), "r.json")
			code := run(context.Background(), append(append([]string{"bua", "run", "--report", "json=" + report}, tc.args...), files...), env)
			if code != tc.want {
				t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errb)
			}
			if tc.check == nil {
				if len(dials()) != 0 {
					t.Errorf("a usage error dialled %v", dials())
				}
				return
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, out)
			}
			tc.check(t, dials())
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Flows []struct {
					Name   string
					Status string
					Worker *int
				}
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range rep.Flows {
				names = append(names, f.Name)
				if f.Status != "passed" || f.Worker == nil || *f.Worker < 0 || *f.Worker > 1 {
					t.Errorf("%s: %s on worker %v", f.Name, f.Status, f.Worker)
				}
			}
			if !slices.Equal(names, []string{"a", "b", "c"}) {
				t.Errorf("report lists %v, want a, b, c", names)
			}
		})
	}
}
