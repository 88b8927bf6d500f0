package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// Plan prints what RunFlow would do, without a browser (`bua run
// --dry-run`): every step with its params interpolated from vars and env;
// values that depend on step results (as names, last, error, helpers) stay
// as written. Sub-flows are expanded with their `with` values.
func (r *Runner) Plan(w io.Writer, f *flow.Flow) error {
	sh := &shared{masker: &report.Masker{}}
	s := newState(r, f, sh, &report.FlowReport{})
	with := map[string]any{}
	if dir := f.Serve; dir != "" || r.Serve != "" {
		if dir == "" {
			dir = r.Serve
		}
		with["base_url"] = "http://127.0.0.1:PORT (serving " + dir + ")"
	}
	if err := s.initVars(with, r.Vars); err != nil {
		return err
	}
	p := &planner{w: w}
	p.printf(0, "flow %q (%s), timeout %s, step timeout %s, obstacles high=%s low=%s", f.Name, f.File, f.Timeout, f.StepTimeout, f.Obstacles.High, f.Obstacles.Low)
	p.printf(1, "vars: %s", sh.masker.Mask(formatVars(s.vars)))
	p.steps(s, f.Steps, 1)
	if len(f.OnFailure) > 0 {
		p.printf(1, "on_failure:")
		p.steps(s, f.OnFailure, 2)
	}
	if len(f.Finally) > 0 {
		p.printf(1, "finally:")
		p.steps(s, f.Finally, 2)
	}
	return p.err
}

type planner struct {
	w   io.Writer
	err error
}

func (p *planner) printf(depth int, format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, "%s%s\n", strings.Repeat("  ", depth), fmt.Sprintf(format, args...))
}

func formatVars(vars map[string]any) string {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, expr.Stringify(vars[k])))
	}
	return strings.Join(parts, " ")
}

// show is a template's value when it is static, else its source.
func show(s *State, t *expr.Template) string {
	if t == nil {
		return ""
	}
	if !t.Dynamic() {
		if v, err := t.Eval(s); err == nil {
			return s.shared.masker.Mask(expr.Stringify(v))
		}
	}
	return t.Raw
}

func (p *planner) steps(s *State, steps []flow.Step, depth int) {
	for i, st := range steps {
		m := st.Meta()
		var line string
		switch x := st.(type) {
		case *flow.ActionStep:
			var params []string
			for _, pr := range x.Params {
				params = append(params, fmt.Sprintf("%s=%s", pr.Name, show(s, pr.Value)))
			}
			line = string(x.Type) + " " + strings.Join(params, " ")
		case *flow.IfStep:
			line = "if " + x.Cond.Src
		case *flow.AssertStep:
			line = "assert " + x.Cond.Src
		case *flow.SetStep:
			var parts []string
			for k, n := range x.Names {
				parts = append(parts, n+"="+show(s, x.Values[k]))
			}
			line = "set " + strings.Join(parts, " ")
		case *flow.RunStep:
			line = "run " + x.Path
		case *flow.RepeatStep:
			switch {
			case x.Times != nil:
				line = "repeat " + show(s, x.Times) + " times"
			case x.While != nil:
				line = fmt.Sprintf("repeat while %s (max %d)", x.While.Src, x.Max)
			default:
				line = fmt.Sprintf("repeat until %s (max %d)", x.Until.Src, x.Max)
			}
		case *flow.SleepStep:
			line = "sleep " + x.D.String()
		case *flow.LogStep:
			line = "log " + show(s, x.Msg)
		case *flow.FailStep:
			line = "fail " + show(s, x.Msg)
		}
		if m.Name != "" {
			line = fmt.Sprintf("[%s] %s", m.Name, line)
		}
		if m.If != nil {
			line += "  (if " + m.If.Src + ")"
		}
		if m.As != "" {
			line += "  -> " + m.As
		}
		if m.Retry != nil {
			line += fmt.Sprintf("  (retry %d on %v)", m.Retry.Attempts, m.Retry.On)
		}
		p.printf(depth, "%d. %s", i+1, strings.TrimSpace(line))
		switch x := st.(type) {
		case *flow.IfStep:
			p.printf(depth+1, "then:")
			p.steps(s, x.Then, depth+2)
			if x.Else != nil {
				p.printf(depth+1, "else:")
				p.steps(s, x.Else, depth+2)
			}
		case *flow.RepeatStep:
			p.steps(s, x.Steps, depth+1)
		case *flow.RunStep:
			sub := s.child(x.Sub, "")
			with := map[string]any{}
			for k, n := range x.WithNames {
				with[n] = show(s, x.WithValues[k])
			}
			if err := sub.initVars(with, nil); err != nil {
				p.printf(depth+1, "(vars: %v)", err)
			}
			p.printf(depth+1, "vars: %s", s.shared.masker.Mask(formatVars(sub.vars)))
			p.steps(sub, x.Sub.Steps, depth+1)
		}
	}
}
