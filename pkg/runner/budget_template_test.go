package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestBudget_Template: an interpolated string is held to the same budget
// as it grows, and the error names the template and where it is (the
// file slash-separated, as the flow's error in its report: ReportPath).
func TestBudget_Template(t *testing.T) {
	dir := writeFlows(t, map[string]string{"t.yaml": "name: t\nvars: { big: \"\" }\nsteps:\n  - log: \"x ${{ vars.big }} and ${{ vars.big }}\"\n"})
	f, err := flow.Load(dir + "/t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := newState(&Runner{}, f, &shared{masker: &report.Masker{}}, &report.FlowReport{})
	s.vars["big"] = strings.Repeat("b", 8<<20)
	_, err = f.Steps[0].(*flow.LogStep).Msg.Eval(s)
	var be *expr.BudgetError
	if !errors.As(err, &be) || be.Op != "interpolation" || be.Bytes != int64(16<<20+len("x  and ")) {
		t.Fatalf("err = %v, want an interpolation over budget", err)
	}
	if want := `value "x ${{ vars.big }} and ${{ vars.big }}" at ` + report.ReportPath(dir+"/t.yaml") + `:4:10: `; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v, want it to start %q", err, want)
	}
}
