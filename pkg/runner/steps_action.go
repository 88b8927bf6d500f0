package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bua-dev/bua/internal/ctxtime"
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/flow/expr"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// build evaluates the params into a protocol action through
// protocol.ActionFrom, which converts each value to its schema kind and
// checks the action; upload's relative files are the flow file's first
// (flow.ResolvePaths). An expression error, or a helper's miss
// (element_not_found), comes back as is; a refusal comes back with the
// action the params built.
func (s *State) build(st *flow.ActionStep) (protocol.Action, error) {
	params := make(map[string]any, len(st.Params))
	for _, p := range st.Params {
		v, err := p.Value.Eval(s)
		if err != nil {
			return protocol.Action{Type: st.Type}, err
		}
		if st.Type == protocol.ActionUpload && p.Name == "files" {
			v = flow.ResolvePaths(st.File, flow.AsList(v))
		}
		params[p.Name] = v
		if p.Name == "text" && st.Type == protocol.ActionType_ {
			// Text typed from the environment is a credential more often
			// than not: mask it wherever it would be printed. The
			// worker's index is bua's own, and masking "0" would hide
			// every zero.
			for _, e := range p.Value.Exprs() {
				for _, name := range e.EnvNames() {
					if name == WorkerIndexEnv {
						continue
					}
					if val, ok := s.env.Names["env"].(map[string]any)[name].(string); ok {
						s.shared.masker.Add(val)
					}
				}
			}
		}
	}
	a, perr := protocol.ActionFrom(string(st.Type), params)
	if perr != nil { // a *protocol.Error: a nil one must not become a non-nil error
		return a, perr
	}
	return a, nil
}

// refusedBuild reports whether build's err is protocol.ActionFrom's
// refusal of the built action: the step still shows the params it built.
func refusedBuild(err error) bool {
	var be *protocol.Error
	return errors.As(err, &be) && be.Code == protocol.CodeInvalidAction && be.Reason == protocol.ReasonRefused
}

// finish handles a successful result: decode it, move the current tab,
// remember extracts (for recovery and artifacts) and apply the obstacle
// policy.
func (s *State) finish(ctx context.Context, st *flow.ActionStep, a protocol.Action, raw json.RawMessage) error {
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return protocol.Errorf(protocol.CodeInternalError, "%s result is not JSON: %v", st.Type, err)
		}
	}
	s.setResult(v)
	s.cur.Result = v
	m, _ := v.(map[string]any)
	switch st.Type {
	case protocol.ActionOpenTab:
		if id, ok := expr.ToInt(m["tabId"]); ok {
			s.shared.tab = &id
			s.note(fmt.Sprintf("current tab %d", id))
		}
	case protocol.ActionCloseTab:
		if s.shared.tab != nil && a.TabID != nil && *a.TabID == *s.shared.tab {
			s.shared.tab = nil
		}
	case protocol.ActionExtract:
		s.shared.lastExtract = m
		// Pin the extract to the tab it read, so a recovery re-reads the
		// same tab even if the current tab moved since.
		if a.TabID == nil {
			if id, ok := expr.ToInt(m["tabId"]); ok {
				a.TabID = &id
			}
		}
		if st.As != "" {
			s.origins[st.As] = &extractOrigin{as: st.As, action: a, policy: s.policy(st)}
		}
		// A handoff replaces the result with the page the person cleared.
		err := checkObstacle(ctx, s, a, &m, s.policy(st))
		if m != nil {
			s.setResult(m)
			s.cur.Result = m
			s.shared.lastExtract = m
			if st.As != "" {
				s.env.Names[st.As] = m
			}
		}
		return err
	}
	return nil
}

func (s *State) policy(st *flow.ActionStep) flow.ObstaclePolicy {
	return s.obstacles.Override(st.Obstacles)
}

// extractOrigin is how an `as` name got its extract result, so the
// re-extract recovery can read the same page again.
type extractOrigin struct {
	as     string
	action protocol.Action
	policy flow.ObstaclePolicy
}

// origins lists the extracts this step's params were computed from: every
// `as` name its expressions read that an extract bound.
func (s *State) extractOrigins(st *flow.ActionStep) []*extractOrigin {
	var out []*extractOrigin
	seen := map[string]bool{}
	for _, p := range st.Params {
		for _, e := range p.Value.Exprs() {
			for _, ref := range e.Refs() {
				if o, ok := s.origins[ref]; ok && !seen[ref] {
					seen[ref] = true
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// runAction sends the action under the error contract, reading each code's
// row (protocol.Lookup, the schema's x-contract):
//   - a RetryNever code (domain_blocked, invalid_action, session_not_found,
//     bridge_unavailable) fails at once, with the contract's hint;
//     domain_blocked ends the flow blocked (classify);
//   - a RetryReExtract code (element_stale, element_not_found, a uid()
//     miss included) never resends the same request: when the params came
//     from an earlier extract, that extract is re-run on its tab, its `as`
//     name rebound and the params re-evaluated, once by default, more with
//     retry;
//   - any other code is retried only when retry.on lists it, except a
//     request the person stopped (stoppedByPerson), never sent again.
func (s *State) runAction(ctx context.Context, st *flow.ActionStep) error {
	retries := 0
	delay, backoff := time.Duration(0), 1.0
	recoveries := 1
	if r := st.Retry; r != nil {
		retries, delay, backoff = r.Attempts-1, r.Delay, r.Backoff
		recoveries = max(1, r.Attempts-1)
	}
	for attempt := 1; ; attempt++ {
		s.cur.Attempts = attempt
		a, err := s.build(st)
		if err == nil || refusedBuild(err) {
			s.cur.Params = actionParams(a)
		}
		if err == nil {
			var raw json.RawMessage
			raw, err = s.request(ctx, a, st.Timeout)
			if err == nil {
				return s.finish(ctx, st, a, raw)
			}
		}
		var be *protocol.Error
		if !errors.As(err, &be) || stoppedByPerson(err) != "" {
			return err
		}
		contract, _ := protocol.Lookup(be.Code)
		switch contract.Retry {
		case protocol.RetryNever:
			return builtFrom(st, be, a)
		case protocol.RetryReExtract:
			origins := s.extractOrigins(st)
			if len(origins) == 0 || recoveries == 0 {
				return be
			}
			recoveries--
			for _, o := range origins {
				if err := s.reextract(ctx, o); err != nil {
					return err
				}
				s.note(fmt.Sprintf("%s: re-extracted %s", be.Code, o.as))
			}
			continue
		}
		if retries > 0 && st.Retry.Allows(be.Code) && ctx.Err() == nil {
			retries--
			s.cur.FailedAttempts = append(s.cur.FailedAttempts, report.AttemptError{Attempt: attempt, ErrorInfo: *s.r.errorInfo(be)})
			s.note(fmt.Sprintf("%s: retry %d", be.Code, attempt))
			if err := ctxtime.Sleep(ctx, delay); err != nil {
				return be
			}
			delay = time.Duration(float64(delay) * backoff)
			continue
		}
		return be
	}
}

// builtFrom adds to an invalid_action the value the step built for each
// param the message names ("action.url: ..."), or for each param built by
// an expression when it names none, and what it was built from: the
// schema's words alone do not show that ${{ vars.base_url }}/x.html came
// out as /x.html. Other errors come back as they are.
func builtFrom(st *flow.ActionStep, be *protocol.Error, a protocol.Action) *protocol.Error {
	if be.Code != protocol.CodeInvalidAction {
		return be
	}
	var fields map[string]any
	if data, err := json.Marshal(a); err != nil || json.Unmarshal(data, &fields) != nil {
		return be
	}
	var built []string
	add := func(all bool) {
		for _, p := range st.Params {
			if p.Value == nil || p.Value.IsLiteral() {
				continue
			}
			for _, name := range paramFields(p.Name) {
				v, ok := fields[name]
				if !ok || !all && !namesField(be.Message, name) {
					continue
				}
				shown, _ := json.Marshal(v)
				built = append(built, fmt.Sprintf("%s %s, built from %q", name, shown, p.Value.Raw))
			}
		}
	}
	if add(false); len(built) == 0 {
		add(true)
	}
	if len(built) == 0 {
		return be
	}
	out := *be
	out.Message += " (" + strings.Join(built, "; ") + ")"
	return &out
}

// paramFields are the action fields a flow param fills: "target" is uid
// or selector (protocol.ParseTarget).
func paramFields(name string) []string {
	if name == "target" {
		return []string{"uid", "selector"}
	}
	return []string{name}
}

// namesField reports whether a schema message is about field name:
// "action.url: ..." or "action.files.0: ...".
func namesField(msg, name string) bool {
	rest, ok := strings.CutPrefix(msg, "action."+name)
	return ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "."))
}

// reextract runs o's extract again on the same tab and rebinds its name.
func (s *State) reextract(ctx context.Context, o *extractOrigin) error {
	raw, err := s.request(ctx, o.action, 0)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return protocol.Errorf(protocol.CodeInternalError, "extract result is not JSON: %v", err)
	}
	m, _ := v.(map[string]any)
	err = checkObstacle(ctx, s, o.action, &m, o.policy)
	s.env.Names[o.as] = m
	if m != nil {
		s.shared.lastExtract = m
	}
	return err
}

// actionParams is a's params as the report shows them (without type).
func actionParams(a protocol.Action) map[string]any {
	b, _ := json.Marshal(a)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "type")
	return m
}
