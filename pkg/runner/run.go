package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/iostreams"
	"github.com/bua-dev/bua/pkg/protocol"
)

// Status is a flow's or a step's outcome, as reports show it. A flow's
// status is the runner's verdict; the CLI maps it to an exit code
// (cmd/bua/exitcodes.go), the runner never speaks in exit codes.
type Status string

// Flow and step statuses.
const (
	StatusPassed      Status = "passed"
	StatusFailed      Status = "failed"
	StatusBlocked     Status = "blocked"     // domain_blocked, or an obstacle policy stops at
	StatusInvalid     Status = "invalid"     // the flow did not load: see its diagnostics
	StatusUnavailable Status = "unavailable" // no daemon or browser answered
	StatusSkipped     Status = "skipped"     // not run (--shard, --fail-fast, a false if)
	// StatusInterrupted: the run's caller stopped it (Ctrl-C, SIGTERM: the
	// context RunSuite was given was cancelled) while this flow ran.
	StatusInterrupted Status = "interrupted"
)

// StepError is a step's failure with where it happened: the flow's name,
// the step's label and its line in File. Err is the cause (a *protocol.Error,
// *AssertionError, *FailError, *ObstacleError or an expression error). Its
// text is the flow's error in every report, so it names File
// slash-separated (ReportPath): "flows/pay.yaml:3: step ...".
type StepError struct {
	Flow string
	Step string
	File string
	Line int
	Err  error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("%s:%d: step %q: %v", ReportPath(e.File), e.Line, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// Runner executes flows against a Requester.
type Runner struct {
	// Requester sends actions: the daemon client in the CLI, a fake in tests.
	Requester protocol.Requester
	// Vars override flow vars by name (`--var k=v`), top flows only.
	Vars map[string]string
	// Getenv reads the environment for `env.NAME`; nil reads nothing.
	Getenv func(string) string
	// Serve, when set, is a directory served on loopback for every flow,
	// whose URL becomes vars.base_url (`--serve DIR`).
	Serve string
	// Artifacts, when set, is where the evidence bundle of a step that
	// fails a flow is saved, in Artifacts/<flow file>/<step>/ (see
	// writeBundle): screenshot, extract, trace, step log and the values
	// the failing expression read.
	Artifacts string
	// Evidence gathers that evidence in memory (StepReport.Evidence) even
	// without Artifacts, for the HTML report.
	Evidence bool
	// Progress receives one line per step (nil: silent). TTY redraws a
	// running line in place. Color paints the lines' marks (a terminal
	// without NO_COLOR): ok green, FAIL and the other failures red.
	Progress io.Writer
	TTY      bool
	Color    bool
	// FailFast stops a suite at its first flow that does not pass.
	FailFast bool
	// Retries is how many more times a flow that failed runs again
	// (`--retries N`), each run a fresh one; only failures a rerun may fix
	// are retried (rerunnable). A flow that passes on a rerun is flaky.
	Retries int
	// FailOnFlaky reports a flaky flow as failed (`--fail-on-flaky`).
	FailOnFlaky bool
	// Now is the clock for report times; nil is time.Now.
	Now func() time.Time
	// HandoffGate, when set, says whether a tab can be handed to a person
	// now; when it cannot, the handoff obstacle policy acts as stop with the
	// gate's reason. Nil hands over always. The CLI's gate reads BUA_HANDOFF
	// and whether the browser serving the flow is a headless managed one.
	HandoffGate handoff.Gate
	// Dialogs is the dialog policy (Dialogs*) of a flow without a dialogs
	// key of its own (`bua run --dialogs`); "" leaves dialogs open.
	Dialogs string
	// worker is the index of the worker running the flow (RunParallel;
	// 0 in a serial run), set on each worker's copy of the Runner, with
	// parallel, which names the worker in the flow's progress line.
	worker   int
	parallel bool
	// handoffSleep shortens a handoff's waits in tests (nil: real time).
	handoffSleep func(context.Context, time.Duration) error
	// ExitCode, when set, maps a status to the caller's exit code; the
	// suite's JSON report then carries it as exitCode (suite and flows).
	// The runner itself speaks only in statuses.
	ExitCode func(Status) int
	// Hint, when set, is the next step shown under a protocol error in
	// progress and reports: the CLI passes its own (cmd/bua/hints.go, by
	// code and reason), so a flow's error reads as the same command's would.
	// Nil uses the error contract's hint for the code (protocol.Lookup).
	Hint func(*protocol.Error) string
}

// WorkerIndexEnv is the name flows read their worker's index under
// (env.BUA_WORKER_INDEX, a string): 0 … N-1 in a run on N workers
// (RunParallel), 0 in a serial one, whatever the environment says: test
// data unique per worker (Playwright's TEST_WORKER_INDEX).
const WorkerIndexEnv = "BUA_WORKER_INDEX"

// getenv is env.NAME's value: the worker's index for WorkerIndexEnv, else
// Getenv's.
func (r *Runner) getenv(name string) string {
	if name == WorkerIndexEnv {
		return strconv.Itoa(r.worker)
	}
	if r.Getenv == nil {
		return ""
	}
	return r.Getenv(name)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// shared is what a flow and its sub-flows have in common.
type shared struct {
	tab *int // current tab; nil lets the extension pick
	// lastExtract is the latest extract result, the bundle's fallback
	// when the page cannot be read again at failure.
	lastExtract map[string]any
	masker      *Masker
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
	flow    *Flow
	env     map[string]any
	vars    map[string]any
	vm      vm.VM
	shared  *shared
	origins map[string]*extractOrigin
	rec     *FlowReport
	prefix  string      // path prefix of this flow's steps in the report
	cur     *StepReport // the step running now
	last    any
	result  any // the current step's result, for `as`
	depth   int
	// dialogs is the dialog policy in force (Dialogs*): the flow's own,
	// else its caller's; "" leaves dialogs open.
	dialogs string
	// unlisted is set while a repeat runs a pass the report leaves out
	// (passLog): its passing steps print no progress line.
	unlisted bool
	// budget is the running expression's size account (budget.go), in
	// env as budgetKey.
	budget evalBudget
	// obstacles and stepTimeout are the obstacle policy and the step
	// timeout (defaults.timeout) in force: a sub-flow keeps its caller's
	// for each key it does not set itself (child).
	obstacles   ObstaclePolicy
	stepTimeout time.Duration
}

func newState(r *Runner, f *Flow, sh *shared, rec *FlowReport) *State {
	s := &State{r: r, flow: f, shared: sh, rec: rec, origins: map[string]*extractOrigin{}, vars: map[string]any{}}
	envMap := map[string]any{}
	for _, name := range f.envNames {
		if v := r.getenv(name); v != "" {
			envMap[name] = v
		}
	}
	s.env = map[string]any{
		"vars":  s.vars,
		"env":   envMap,
		"flow":  map[string]any{"name": f.Name, "file": f.File},
		"last":  nil,
		"error": nil,
		// The budget's guards find it here ($env); no name reaches it.
		budgetKey: &s.budget,
	}
	s.cur = &StepReport{}
	s.dialogs = f.Dialogs
	s.obstacles, s.stepTimeout = f.Obstacles, f.StepTimeout
	return s
}

// child is the state of a sub-flow run from s's current step.
func (s *State) child(f *Flow, prefix string) *State {
	c := newState(s.r, f, s.shared, s.rec)
	c.prefix = prefix
	c.depth = s.depth + 1
	// A sub-flow keeps its caller's policies where it sets none of its own
	// (docs/flows.md#flow-keys): a sign-in sub-flow run by a flow that continues
	// past a login wall must not stop on the very page it is there to fill.
	if c.dialogs == "" {
		c.dialogs = s.dialogs
	}
	c.obstacles = s.obstacles.override(f.ownObstacles)
	if !f.ownStepTimeout {
		c.stepTimeout = s.stepTimeout
	}
	c.cur = s.cur
	c.unlisted = s.unlisted
	return c
}

func (s *State) setResult(v any) {
	s.result = v
	s.last = v
	s.env["last"] = v
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
		s.shared.masker.Add(Stringify(s.vars[name]))
	}
	return nil
}

// execSteps runs steps in order; path numbers them from 1 under prefix.
func (s *State) execSteps(ctx context.Context, steps []Step, prefix string) error {
	for i, st := range steps {
		path := fmt.Sprint(i + 1)
		if prefix != "" {
			path = prefix + "." + path
		}
		if err := s.exec(ctx, st, path); err != nil {
			return err
		}
	}
	return nil
}

// exec runs one step with its modifiers and records it.
func (s *State) exec(ctx context.Context, st Step, path string) error {
	m := st.Meta()
	rep := &StepReport{Path: path, Name: m.Name, Kind: m.Kind, File: m.File, Line: m.Line}
	if s.cur.Path != "" {
		rep.Depth = s.cur.Depth + 1 // nested in an if, repeat or run
	}
	s.rec.Steps = append(s.rec.Steps, rep)
	parent := s.cur
	s.cur = rep
	defer func() { s.cur = parent }()
	start := s.r.now()
	s.result = nil

	stepCtx := ctx // with the step's own timeout, when it has one
	err := func() error {
		// A step that only computes (set, assert, if) never waits, so the
		// flow's timeout and an interrupt are checked here, before each
		// step, or a busy repeat would never see them.
		if ctx.Err() != nil {
			return stopped(ctx)
		}
		if m.If != nil {
			ok, err := m.If.EvalBool(s)
			if err != nil {
				return err
			}
			if !ok {
				rep.Status = StatusSkipped
				rep.Note = "if: false"
				return nil
			}
		}
		_, isAction := st.(*ActionStep)
		if isLeaf(st) && !s.unlisted {
			s.r.progressStart(s, rep, m)
		}
		if m.Timeout > 0 && !isAction {
			var cancel context.CancelFunc
			stepCtx, cancel = context.WithTimeoutCause(ctx, m.Timeout, protocol.Errorf(protocol.CodeTimeout, "step timed out after %s", m.Timeout))
			defer cancel()
		}
		return st.Run(stepCtx, s)
	}()
	rep.Duration = s.r.now().Sub(start)
	if rep.Status == StatusSkipped {
		s.r.progressEnd(s, rep)
		return nil
	}
	if err == nil {
		rep.Status = StatusPassed
		rep.Flaky = len(rep.FailedAttempts) > 0
		if m.As != "" {
			s.env[m.As] = s.result
		}
		s.r.progressEnd(s, rep)
		return nil
	}
	var se *StepError
	if !errors.As(err, &se) {
		if stepCtx != ctx && stepCtx.Err() != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = context.Cause(stepCtx) // the step's own timeout (a sleep's), not the flow's
		}
		se = &StepError{Flow: s.flow.Name, Step: m.Label(), File: m.File, Line: m.Line, Err: err}
		rep.Error = s.r.errorInfo(err)
	}
	rep.Status = classify(err)
	if m.ContinueOnError && !terminal(err) && ctx.Err() == nil {
		info := s.r.errorInfo(se.Err)
		s.env["error"] = map[string]any{"code": string(info.Code), "message": info.Message}
		s.note("continued after error")
		s.r.progressEnd(s, rep)
		return nil
	}
	if rep.Error != nil {
		s.readFailingExprs(st, rep) // this step's own failure, not a nested one's
	}
	s.r.progressEnd(s, rep)
	return se
}

// stopped is the error of a step that ctx stopped, as context.Cause says
// why: a step's own timeout (a timeout *protocol.Error, as is), the flow's
// timeout, or the run's caller going away (Ctrl-C, SIGTERM).
func stopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	var be *protocol.Error
	if errors.As(cause, &be) {
		return cause
	}
	return fmt.Errorf("flow stopped: %w", cause)
}

func isLeaf(st Step) bool {
	switch st.(type) {
	case *IfStep, *RepeatStep, *RunStep:
		return false
	}
	return true
}

// request sends a on the current tab (unless it names one) with a
// per-attempt deadline: timeout, or the flow's defaults.timeout stretched
// to the action's own default (a long wait_for keeps its time).
func (s *State) request(ctx context.Context, a protocol.Action, timeout time.Duration) ([]byte, error) {
	if a.TabID == nil && s.shared.tab != nil && a.Type != protocol.ActionGetTabs && a.Type != protocol.ActionOpenTab {
		id := *s.shared.tab
		a.TabID = &id
		if s.cur.Params != nil {
			s.cur.Params["tabId"] = id
		}
	}
	if timeout == 0 {
		timeout = max(s.stepTimeout, protocol.DefaultTimeout(a))
	}
	actx, cancel := protocol.WithTimeout(ctx, timeout) // errors downstream state timeout
	defer cancel()
	raw, berr := s.send(actx, a) // under the flow's dialogs policy
	if berr != nil {
		if ctx.Err() != nil {
			// The flow's own deadline or a cancel, not this attempt's.
			return nil, stopped(ctx)
		}
		if actx.Err() != nil && berr.Code != protocol.CodeTimeout {
			return nil, protocol.Errorf(protocol.CodeTimeout, "%s did not answer within %s", a.Type, timeout)
		}
		return nil, berr
	}
	return raw, nil
}

// runBody runs a flow's steps, then on_failure when they failed or were
// blocked, then finally. A hook's failure is recorded but never replaces
// the steps' error; it fails a flow whose steps passed.
//
// When the run's caller stopped it (Ctrl-C, SIGTERM), neither evidence nor
// hooks run: the person or the CI job wants bua out now, and the reports
// are still to be written.
func (s *State) runBody(ctx context.Context) error {
	err := s.execSteps(ctx, s.flow.Steps, s.prefix)
	if err != nil && interrupted(ctx) {
		if len(s.flow.OnFailure)+len(s.flow.Finally) > 0 {
			s.rec.HookErrors = append(s.rec.HookErrors, "on_failure and finally did not run: the run was interrupted")
		}
		return err
	}
	status := classify(err)
	if err != nil && s.depth == 0 {
		s.gatherEvidence(ctx, err)
	}
	// Hooks get time of their own: the flow's deadline may be what failed.
	hookCtx, cancel := context.WithTimeout(s.shared.runCtx(), max(s.stepTimeout, time.Minute))
	defer cancel()
	if status == StatusFailed || status == StatusBlocked {
		if herr := s.execSteps(hookCtx, s.flow.OnFailure, joinPath(s.prefix, "on_failure")); herr != nil {
			s.rec.HookErrors = append(s.rec.HookErrors, herr.Error())
		}
	}
	if herr := s.execSteps(hookCtx, s.flow.Finally, joinPath(s.prefix, "finally")); herr != nil {
		s.rec.HookErrors = append(s.rec.HookErrors, herr.Error())
		if err == nil {
			err = herr
		}
	}
	return err
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// RunFlow runs one loaded flow and returns its report. A flow that failed
// for a reason a rerun may fix (rerunnable) runs again, up to r.Retries
// more times: each run is a fresh one (vars, hooks and the current tab as
// the first run had them, its own timeout); the folder it serves is served
// once for all its runs, like a test server. The last run's report is the
// flow's; the runs before it are its FailedAttempts, and a rerun's
// artifacts go under Artifacts/attempt-N so the first failure's stay.
func (r *Runner) RunFlow(ctx context.Context, f *Flow) *FlowReport {
	fr := r.startFlow(f)
	defer fr.close()
	for {
		if rec, done := fr.attempt(ctx, r); done {
			return rec
		}
	}
}

// flowRun is one flow's runs so far: the folder it serves, once for all
// of them, and the attempts that failed. A parallel run's attempts may
// each run on another worker (RunParallel).
type flowRun struct {
	f        *Flow
	srv      *Server
	serveErr error
	failed   []*FlowReport
}

// startFlow serves f's folder (its serve key, else r.Serve), if any.
func (r *Runner) startFlow(f *Flow) *flowRun {
	fr := &flowRun{f: f}
	dir := r.Serve
	if f.Serve != "" {
		dir = f.Serve
	}
	if dir != "" {
		fr.srv, fr.serveErr = Serve(dir)
	}
	return fr
}

// close stops the flow's server.
func (fr *flowRun) close() {
	if fr.srv != nil {
		fr.srv.Close()
	}
}

// attempt runs the flow once more, on r. done is false when the run
// failed in a way a rerun may fix and r.Retries allows another: the caller
// runs it again (RunFlow at once, RunParallel on the next free worker).
// When done, rec is the flow's report, its failed runs before it.
func (fr *flowRun) attempt(ctx context.Context, r *Runner) (rec *FlowReport, done bool) {
	attempt := len(fr.failed) + 1
	rr := r
	if attempt > 1 && r.Artifacts != "" {
		c := *r
		c.Artifacts = filepath.Join(r.Artifacts, fmt.Sprintf("attempt-%d", attempt))
		rr = &c
	}
	rec, started, err := rr.runAttempt(ctx, fr.f, fr.srv, fr.serveErr, attempt)
	rec.Attempts = attempt
	if attempt <= r.Retries && ctx.Err() == nil && rerunnable(err, started) {
		r.progressFlowEnd(rec)
		r.progressf("  rerunning %s (attempt %d of at most %d)", rec.Name, attempt+1, r.Retries+1)
		fr.failed = append(fr.failed, rec)
		return rec, false
	}
	rec.FailedAttempts = fr.failed
	markFlaky(rec, r.FailOnFlaky)
	r.progressFlowEnd(rec)
	return rec, true
}

// abandoned is the report of a flow whose rerun never ran (the run
// stopped first): its last failed run, the ones before it as its failed
// attempts.
func (fr *flowRun) abandoned() *FlowReport {
	n := len(fr.failed)
	rec := fr.failed[n-1]
	rec.FailedAttempts = fr.failed[:n-1]
	return rec
}

// runAttempt is one run of f; started says whether its steps began (a
// failure before them, in serve or vars, is not rerun).
func (r *Runner) runAttempt(ctx context.Context, f *Flow, srv *Server, serveErr error, attempt int) (*FlowReport, bool, error) {
	rec := &FlowReport{Name: f.Name, File: f.File, Tags: f.Tags, Started: r.now()}
	sh := &shared{masker: &Masker{}, run: ctx}
	rec.masker = sh.masker
	s := newState(r, f, sh, rec)
	if s.dialogs == "" {
		s.dialogs = r.Dialogs // a flow's own dialogs key wins over --dialogs
	}
	r.progressFlow(rec, attempt)
	started := false
	err := func() error {
		with := map[string]any{}
		if serveErr != nil {
			return serveErr
		}
		if srv != nil {
			with["base_url"] = srv.URL
		}
		if err := s.initVars(with, r.Vars); err != nil {
			return err
		}
		fctx, cancel := context.WithTimeoutCause(ctx, f.Timeout, fmt.Errorf("flow timeout %s exceeded", f.Timeout))
		defer cancel()
		started = true
		return s.runBody(fctx)
	}()
	rec.Duration = r.now().Sub(rec.Started)
	rec.Status = classify(err)
	if err != nil && interrupted(ctx) {
		rec.Status = StatusInterrupted
	}
	if err != nil {
		rec.Error = sh.masker.Mask(err.Error())
		var se *StepError
		rec.Reason = rec.Error
		if errors.As(err, &se) {
			rec.FailedStep = se.Step
			rec.FailedLine = se.Line
			rec.Reason = sh.masker.Mask(se.Err.Error())
		}
		var oe *ObstacleError
		if errors.As(err, &oe) {
			rec.Obstacle = oe
		}
		rec.stoppedBy = stoppedByPerson(err)
		var be *protocol.Error
		if errors.As(err, &be) {
			rec.Hint = r.hint(be)
		}
	}
	return rec, started, err
}

// RunSuite loads and runs each file in order (see Shard to split a suite
// across CI jobs). An invalid file is reported with its diagnostics and
// does not stop the others, unless FailFast.
func (r *Runner) RunSuite(ctx context.Context, files []string) *SuiteReport {
	suite := &SuiteReport{Started: r.now(), ExitCode: r.ExitCode}
	stop := false
	for _, file := range files {
		if stop || ctx.Err() != nil {
			suite.Flows = append(suite.Flows, &FlowReport{Name: flowName(file), File: file, Status: StatusSkipped})
			continue
		}
		var rec *FlowReport
		if f, err := r.Load(file); err != nil {
			rec = r.invalidFlow(file, err)
		} else {
			rec = r.RunFlow(ctx, f)
		}
		suite.Flows = append(suite.Flows, rec)
		stop = stop || r.stopsSuite(rec)
	}
	suite.end(r, ctx)
	return suite
}

// invalidFlow is the report of a file that did not load, printed.
func (r *Runner) invalidFlow(file string, err error) *FlowReport {
	rec := &FlowReport{Name: flowName(file), File: file, Status: StatusInvalid, Error: err.Error()}
	var le *LoadError
	if errors.As(err, &le) {
		rec.Diagnostics = le.Diags
	}
	r.progressFlowEnd(rec)
	return rec
}

// stopsSuite reports whether no flow may start after rec: under FailFast
// one that did not pass; and a flow the person stopped with Stop all in
// the popup, which stops the whole run, not only the flow it met (the
// person wants bua out of their browser).
func (r *Runner) stopsSuite(rec *FlowReport) bool {
	return r.FailFast && rec.Status != StatusPassed || rec.stoppedBy == protocol.ReasonGlobalStop
}

// end closes the suite: its duration, whether ctx was interrupted, and
// the evidence files its flows could not write.
func (s *SuiteReport) end(r *Runner, ctx context.Context) {
	for _, rec := range s.Flows {
		for _, a := range append(rec.FailedAttempts, rec) {
			s.Problems = append(s.Problems, a.writeErrors...)
		}
	}
	s.Duration = r.now().Sub(s.Started)
	s.Interrupted = interrupted(ctx)
}

// interrupted reports whether ctx, a run's or a flow's, was cancelled by
// the run's caller (Ctrl-C, SIGTERM) rather than timed out.
func interrupted(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }

func flowName(file string) string {
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

// Shard returns the files of shard i of n (1-based): sorted (sortFiles),
// then every file whose index % n == i-1, so each CI job gets a stable
// share, on whichever OS it runs.
func Shard(files []string, i, n int) []string {
	sorted := append([]string(nil), files...)
	sortFiles(sorted)
	var out []string
	for k, f := range sorted {
		if k%n == i-1 {
			out = append(out, f)
		}
	}
	return out
}

// sortFiles sorts flow files by their slash-separated form (ReportPath),
// so that the jobs of one sharded suite split it alike on Windows and
// elsewhere: a/x.yaml sorts before a2.yaml (/ is 0x2F, 2 is 0x32), but
// a\x.yaml after it (\ is 0x5C), and a job on each OS would run one file
// twice and another never.
func sortFiles(files []string) {
	slices.SortStableFunc(files, func(a, b string) int { return strings.Compare(ReportPath(a), ReportPath(b)) })
}

// statusRank orders flow statuses from best to worst for Status.
var statusRank = map[Status]int{StatusPassed: 0, StatusSkipped: 0, StatusFailed: 1, StatusBlocked: 2, StatusUnavailable: 3, StatusInvalid: 4, StatusInterrupted: 5}

// Status is the suite's verdict: interrupted when its caller stopped it,
// else its worst flow's status, in the order invalid > unavailable >
// blocked > failed > passed (skipped flows count as passed: they were not
// run).
func (s *SuiteReport) Status() Status {
	if s.Interrupted {
		return StatusInterrupted
	}
	worst := StatusPassed
	for _, f := range s.Flows {
		if statusRank[f.Status] > statusRank[worst] {
			worst = f.Status
		}
	}
	return worst
}

func (r *Runner) progressFlow(rec *FlowReport, attempt int) {
	if r.Progress == nil {
		return
	}
	line := fmt.Sprintf("flow %s (%s)", rec.Name, rec.File)
	if attempt > 1 {
		line += fmt.Sprintf(", attempt %d", attempt)
	}
	if r.parallel {
		line += fmt.Sprintf(", worker %d", r.worker)
	}
	fmt.Fprintln(r.Progress, line)
}

func (r *Runner) progressf(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, format+"\n", args...)
	}
}

func (r *Runner) progressFlowEnd(rec *FlowReport) {
	if r.Progress == nil {
		return
	}
	line := fmt.Sprintf("%s %s %s (%s)", r.mark(rec.Status), rec.Name, rec.Status, fmtDur(rec.Duration))
	// An invalid flow's error is its diagnostics, printed below: said once.
	if rec.Error != "" && len(rec.Diagnostics) == 0 {
		line += ": " + indentLines(rec.Error, "  ")
	} else if rec.Flaky {
		line += ", flaky: " + firstLine(rec.flakyNote())
	}
	if rec.Hint != "" {
		line += "\n  hint: " + rec.Hint
	}
	fmt.Fprintln(r.Progress, line)
	for _, d := range rec.Diagnostics {
		fmt.Fprintln(r.Progress, "  "+strings.ReplaceAll(d.String(), "\n", "\n  "))
	}
}

func (r *Runner) progressStart(s *State, rep *StepReport, m *StepMeta) {
	if r.Progress == nil || !r.TTY {
		return
	}
	fmt.Fprintf(r.Progress, "%s… %s %s", strings.Repeat("  ", rep.Depth+1), rep.Path, m.Label())
}

func (r *Runner) progressEnd(s *State, rep *StepReport) {
	if r.Progress == nil || s.unlisted && (rep.Status == StatusPassed || rep.Status == StatusSkipped) {
		return
	}
	prefix := ""
	if r.TTY {
		prefix = "\r\x1b[K"
	}
	line := fmt.Sprintf("%s%s%s %s %s (%s)", prefix, strings.Repeat("  ", rep.Depth+1), r.mark(rep.Status), rep.Path, rep.label(), fmtDur(rep.Duration))
	if rep.Note != "" {
		line += " — " + rep.Note
	}
	if rep.Error != nil {
		// Whole: an assert's message may span lines, and its values
		// come after it.
		line += " — " + string(rep.Error.Code) + ": " + indentLines(rep.Error.Message, strings.Repeat("  ", rep.Depth+2))
	}
	fmt.Fprintln(r.Progress, s.shared.masker.Mask(line))
}

// mark is statusMark, painted when r.Color: a skip stays plain.
func (r *Runner) mark(status Status) string {
	m := statusMark(status)
	switch {
	case !r.Color || status == StatusSkipped:
		return m
	case status == StatusPassed:
		return iostreams.Color(true, iostreams.Green, m)
	}
	return iostreams.Color(true, iostreams.Red, m)
}

func statusMark(status Status) string {
	switch status {
	case StatusPassed:
		return "ok"
	case StatusSkipped:
		return "--"
	case StatusBlocked:
		return "BLOCKED"
	case StatusInvalid:
		return "INVALID"
	case StatusUnavailable:
		return "UNAVAILABLE"
	}
	return "FAIL"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// indentLines is s with each line after the first indented by indent, so
// a multi-line error (an assert's interpolated message, then the values
// it read) prints whole under the line it starts on.
func indentLines(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}
