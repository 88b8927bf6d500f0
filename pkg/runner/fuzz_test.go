package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// FuzzInterpolation puts arbitrary text in a `${{ }}`-interpolated log
// step, loads it, and runs it: a bad expression is a load diagnostic, a
// good one evaluates to a passed or failed flow, and nothing panics.
// Seeds: testdata/fuzz/FuzzInterpolation and the cases below.
func FuzzInterpolation(f *testing.F) {
	for _, s := range []string{
		"${{ vars.n + 1 }}", "a ${{ vars.s }} b ${{ vars.n * 2 }}", "${{", "${{ }}", "}} ${{ x",
		"${{ vars.s matches '(' }}", "${{ len(vars.list) }}", "${{ env.HOME ?? 'none' }}", "$${{ 1 }}",
		"${{ 1/0 }}", "${{ vars.list[10] }}", "${{ uid(vars.list, 'button', 'x') }}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := "name: fuzz\nvars:\n  n: 2\n  s: text\n  list: [1, 2]\nsteps:\n  - log: " + strconv.Quote(s) + "\n"
		path := filepath.Join(t.TempDir(), "f.yaml")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		fl, err := flow.Load(path)
		if err != nil {
			var le *flow.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load error %T %v: want a *flow.LoadError", err, err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		rec := (&Runner{Requester: runnertest.New()}).RunFlow(ctx, fl)
		if rec.Status != report.StatusPassed && rec.Status != report.StatusFailed {
			t.Fatalf("status %s (%s), want passed or failed", rec.Status, rec.Error)
		}
	})
}
