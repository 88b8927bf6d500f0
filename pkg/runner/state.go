package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// shared is what a flow and its sub-flows have in common.
type shared struct {
	tab *int // current tab; nil lets the extension pick
	// lastExtract is the latest extract result, the bundle's fallback
	// when the page cannot be read again at failure.
	lastExtract map[string]any
	masker      *report.Masker
	// run is the context the flow was run with: its timeout does not
	// cancel it, an interrupt (Ctrl-C) does. Hooks and the evidence
	// capture run under it, so they outlive the flow's timeout but not an
	// interrupt. Nil is context.Background.
	run context.Context
}

// runCtx is sh.run, or context.Background when there is none (a plan).
func (sh *shared) runCtx() context.Context {
	if sh.run == nil {
		return context.Background()
	}
	return sh.run
}

// State is one flow's (or sub-flow's) execution state: its expression
// environment, its vars, the extracts its `as` names came from, and the
// report being written.
type State struct {
	r       *Runner
	flow    *flow.Flow
	env     *expr.Env
	vars    map[string]any
	shared  *shared
	origins map[string]*extractOrigin
	rec     *report.FlowReport
	prefix  string             // path prefix of this flow's steps in the report
	cur     *report.StepReport // the step running now
	last    any
	result  any // the current step's result, for `as`
	depth   int
	// dialogs is the dialog policy in force (Dialogs*): the flow's own,
	// else its caller's; "" leaves dialogs open.
	dialogs string
	// unlisted is set while a repeat runs a pass the report leaves out
	// (passLog): its passing steps print no progress line.
	unlisted bool
	// obstacles and stepTimeout are the obstacle policy and the step
	// timeout (defaults.timeout) in force: a sub-flow keeps its caller's
	// for each key it does not set itself (child).
	obstacles   flow.ObstaclePolicy
	stepTimeout time.Duration
}

func newState(r *Runner, f *flow.Flow, sh *shared, rec *report.FlowReport) *State {
	s := &State{r: r, flow: f, shared: sh, rec: rec, origins: map[string]*extractOrigin{}, vars: map[string]any{}}
	envMap := map[string]any{}
	for _, name := range f.EnvNames {
		if v := r.getenv(name); v != "" {
			envMap[name] = v
		}
	}
	s.env = expr.NewEnv(map[string]any{
		"vars":  s.vars,
		"env":   envMap,
		"flow":  map[string]any{"name": f.Name, "file": f.File},
		"last":  nil,
		"error": nil,
	})
	s.cur = &report.StepReport{}
	s.dialogs = f.Dialogs
	s.obstacles, s.stepTimeout = f.Obstacles, f.StepTimeout
	return s
}

// child is the state of a sub-flow run from s's current step.
func (s *State) child(f *flow.Flow, prefix string) *State {
	c := newState(s.r, f, s.shared, s.rec)
	c.prefix = prefix
	c.depth = s.depth + 1
	// A sub-flow keeps its caller's policies where it sets none of its own
	// (README §Flow keys): a sign-in sub-flow run by a flow that continues
	// past a login wall must not stop on the very page it is there to fill.
	if c.dialogs == "" {
		c.dialogs = s.dialogs
	}
	c.obstacles = s.obstacles.Override(f.OwnObstacles)
	if !f.OwnStepTimeout {
		c.stepTimeout = s.stepTimeout
	}
	c.cur = s.cur
	c.unlisted = s.unlisted
	return c
}

// Env is s's expression environment: a State is the Scope its flow's
// expressions run in.
func (s *State) Env() *expr.Env { return s.env }

func (s *State) setResult(v any) {
	s.result = v
	s.last = v
	s.env.Names["last"] = v
}

// note adds to the running step's report note.
func (s *State) note(msg string) {
	if s.cur.Note != "" {
		s.cur.Note += "; "
	}
	s.cur.Note += msg
}

// initVars sets vars: base_url when serving, then each declared default in
// order unless with (a caller's values) or overrides (--var) replace it.
func (s *State) initVars(with map[string]any, overrides map[string]string) error {
	if u, ok := with["base_url"]; ok {
		s.vars["base_url"] = u
	}
	for _, v := range s.flow.Vars {
		if o, ok := overrides[v.Name]; ok {
			s.vars[v.Name] = o
			continue
		}
		if w, ok := with[v.Name]; ok {
			s.vars[v.Name] = w
			continue
		}
		val, err := v.Value.Eval(s)
		if err != nil {
			return fmt.Errorf("vars.%s: %w", v.Name, err)
		}
		s.vars[v.Name] = val
	}
	for k, o := range overrides {
		if _, ok := s.vars[k]; !ok {
			s.vars[k] = o
		}
	}
	for _, name := range s.flow.Secrets {
		s.shared.masker.Add(expr.Stringify(s.vars[name]))
	}
	return nil
}
