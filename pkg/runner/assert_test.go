package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/runner/report"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestAssert_MessageAndValuesWhole: an assert's message comes first, then
// the values its condition read, as an assert without a message shows
// them; a message that spans lines (interpolated from a multi-line var)
// is printed whole, with those values after it, on the progress lines,
// in the summary's note, in JUnit's failure message and in the flow's
// error.
func TestAssert_MessageAndValuesWhole(t *testing.T) {
	for _, tc := range []struct {
		name, flow string
		want       []string // in this order, in every surface
	}{
		{"no message", "  - assert: vars.x == 2\n",
			[]string{"vars.x == 2", "vars.x is 1"}},
		{"message", "  - assert: vars.x == 2\n    message: x is ${{ vars.x }}\n",
			[]string{"x is 1", "vars.x == 2", "vars.x is 1"}},
		{"multi-line message", "  - assert: vars.x == 2\n    message: \"${{ vars.lines }}\"\n",
			[]string{"first line", "second line", "vars.x == 2", "vars.x is 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "name: a\nvars: { x: 1, lines: \"first line\\nsecond line\" }\nsteps:\n" + tc.flow
			dir := writeFlows(t, map[string]string{"main.yaml": src})
			var progress, junit bytes.Buffer
			r := &Runner{Requester: runnertest.New(), Events: printer(&progress)}
			suite := r.RunSuite(context.Background(), []string{filepath.Join(dir, "main.yaml")})
			wantStatus(t, suite.Flows[0], report.StatusFailed)
			if err := suite.WriteJUnit(&junit); err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, row := range suite.SummaryRows() {
				rows = append(rows, row[3])
			}
			_, failure, _ := strings.Cut(junit.String(), "<failure message=")
			failure, _, _ = strings.Cut(failure, " type=")
			for surface, text := range map[string]string{
				"progress":          progress.String(),
				"summary flow note": rows[0],
				"summary step note": rows[1],
				"junit message":     strings.ReplaceAll(strings.ReplaceAll(failure, "&#xA;", "\n"), "&#34;", `"`),
				"flow error":        suite.Flows[0].Error,
			} {
				rest := text
				for _, w := range tc.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Errorf("%s: %q missing (or out of order) in:\n%s", surface, w, text)
						break
					}
					rest = rest[i+len(w):]
				}
			}
		})
	}
}

// TestAssertionError_Text: the message first, whole, then the condition
// and the values it read.
func TestAssertionError_Text(t *testing.T) {
	for _, tc := range []struct {
		err  AssertionError
		want string
	}{
		{AssertionError{Expr: "vars.x == 2", Values: []string{"vars.x is 1"}}, "assertion failed: vars.x == 2: vars.x is 1"},
		{AssertionError{Expr: "ok(page)"}, "assertion failed: ok(page)"},
		{AssertionError{Expr: "vars.x == 2", Message: "x is 1", Values: []string{"vars.x is 1"}}, "assertion failed: x is 1 (vars.x == 2): vars.x is 1"},
		{AssertionError{Expr: "a == b", Message: "l1\nl2", Values: []string{"a is 1", "b is 2"}}, "assertion failed: l1\nl2\na == b: a is 1, b is 2"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
