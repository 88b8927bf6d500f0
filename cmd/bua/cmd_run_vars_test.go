package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestRunVarNames: a --var that names no var of the flows is a usage
// error (exit 2) before anything runs, naming the flows' vars and the
// nearest one (a transposition included); a declared var, one the flow
// reads as maybe missing and base_url in a flow that reads it pass.
func TestRunVarNames(t *testing.T) {
	dir := t.TempDir()
	named := writeFlow(t, dir, "named.yaml", "name: named\nvars: { name: ada, base: http://x.test }\nsteps:\n  - navigate: ${{ vars.base }}/${{ vars.name }}\n  - log: ${{ vars.debug ?? false }}\n")
	bare := writeFlow(t, dir, "bare.yaml", "name: bare\nsteps:\n  - log: hi\n")
	served := writeFlow(t, dir, "served.yaml", "name: served\nsteps:\n  - navigate: ${{ vars.base_url }}/x.html\n")
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		stderr []string
	}{
		{"Transposed", []string{named, "--var", "nmae=bob"}, 2, []string{
			"bua: --var nmae: no flow has a var nmae (did you mean name?); the flow's vars: base, debug, name"}},
		{"Unknown", []string{named, bare, "--var", "nosuch=1"}, 2, []string{
			"--var nosuch: no flow has a var nosuch; the flows' vars: base, debug, name"}},
		{"FlowWithoutVars", []string{bare, "--var", "nosuch=1"}, 2, []string{"the flow has no vars"}},
		{"Declared", []string{named, "--var", "name=bob"}, 0, nil},
		{"MaybeMissing", []string{named, "--var", "debug=1"}, 0, nil},
		{"OfAnotherFlow", []string{bare, named, "--var", "name=bob"}, 0, nil},
		{"BaseURL", []string{served, "--var", "base_url=http://x.test"}, 0, nil},
		{"DryRun", []string{named, "--dry-run", "--var", "nmae=bob"}, 2, []string{"did you mean name?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionNavigate, runnertest.Result(map[string]any{"ok": true}))
			fakeDial := dialFake(fake, nil)
			env, out, errb := testEnv()
			env.Dial = fakeDial
			code := run(context.Background(), append([]string{"bua", "run"}, tc.args...), env)
			if code != tc.want {
				t.Fatalf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errb)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb)
				}
			}
			if tc.want == 2 && len(fake.Requests()) > 0 {
				t.Errorf("a usage error sent %v", fake.Types())
			}
		})
	}
}

// TestBaseURLUnset: a flow that reads vars.base_url with no serve: key is
// invalid in `bua run` and `bua lint` (exit 2, at file:line:col) unless
// --serve or --var base_url sets it.
func TestBaseURLUnset(t *testing.T) {
	dir := t.TempDir()
	flow := writeFlow(t, dir, "main.yaml", "name: main\nsteps:\n  - navigate: ${{ vars.base_url }}/x.html\n")
	const at = "main.yaml:3:15: navigate: vars.base_url is set only when the flow is served, and this flow has no serve: key"
	for _, tc := range []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"Lint", []string{"lint", flow}, 2, at},
		{"LintServe", []string{"lint", "--serve", dir, flow}, 0, "ok "},
		{"LintVar", []string{"lint", "--var", "base_url=http://x.test", flow}, 0, "ok "},
		{"Run", []string{"run", flow}, 2, at},
		{"RunVar", []string{"run", "--var", "base_url=http://x.test", flow}, 0, "1 passed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionNavigate, runnertest.Result(map[string]any{"ok": true}))
			fakeDial := dialFake(fake, nil)
			env, out, errb := testEnv()
			env.Dial = fakeDial
			code := run(context.Background(), append([]string{"bua"}, tc.args...), env)
			all := strings.ReplaceAll(out.String()+errb.String(), filepath.ToSlash(dir)+"/", "")
			if code != tc.want || !strings.Contains(all, tc.out) {
				t.Fatalf("exit = %d, want %d with %q\n%s", code, tc.want, tc.out, all)
			}
			if tc.want == 2 && len(fake.Requests()) > 0 {
				t.Errorf("an invalid flow sent %v", fake.Types())
			}
		})
	}
}
