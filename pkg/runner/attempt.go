package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// RunFlow runs one loaded flow and returns its report. A flow that failed
// for a reason a rerun may fix (rerunnable) runs again, up to r.Retries
// more times: each run is a fresh one (vars, hooks and the current tab as
// the first run had them, its own timeout); the folder it serves is served
// once for all its runs, like a test server. The last run's report is the
// flow's; the runs before it are its FailedAttempts, and a rerun's
// artifacts go under Artifacts/attempt-N so the first failure's stay.
func (r *Runner) RunFlow(ctx context.Context, f *flow.Flow) *report.FlowReport {
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
	f        *flow.Flow
	srv      *Server
	serveErr error
	failed   []*report.FlowReport
}

// startFlow serves f's folder (its serve key, else r.Serve), if any.
func (r *Runner) startFlow(f *flow.Flow) *flowRun {
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
func (fr *flowRun) attempt(ctx context.Context, r *Runner) (rec *report.FlowReport, done bool) {
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
		r.flowEnded(rec)
		r.emit(event.Rerun{Name: rec.Name, Attempt: attempt + 1, Attempts: r.Retries + 1})
		fr.failed = append(fr.failed, rec)
		return rec, false
	}
	rec.FailedAttempts = fr.failed
	markFlaky(rec, r.FailOnFlaky)
	r.flowEnded(rec)
	return rec, true
}

// abandoned is the report of a flow whose rerun never ran (the run
// stopped first): its last failed run, the ones before it as its failed
// attempts.
func (fr *flowRun) abandoned() *report.FlowReport {
	n := len(fr.failed)
	rec := fr.failed[n-1]
	rec.FailedAttempts = fr.failed[:n-1]
	return rec
}

// runAttempt is one run of f; started says whether its steps began (a
// failure before them, in serve or vars, is not rerun).
func (r *Runner) runAttempt(ctx context.Context, f *flow.Flow, srv *Server, serveErr error, attempt int) (*report.FlowReport, bool, error) {
	rec := &report.FlowReport{Name: f.Name, File: f.File, Tags: f.Tags, Started: r.now()}
	sh := &shared{masker: &report.Masker{}, run: ctx}
	rec.Masker = sh.masker
	s := newState(r, f, sh, rec)
	if s.dialogs == "" {
		s.dialogs = r.Dialogs // a flow's own dialogs key wins over --dialogs
	}
	r.flowStarted(rec, attempt)
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
		rec.Status = report.StatusInterrupted
	}
	if err != nil {
		rec.Error = sh.masker.Mask(err.Error())
		var se *report.StepError
		rec.Reason = rec.Error
		if errors.As(err, &se) {
			rec.FailedStep = se.Step
			rec.FailedLine = se.Line
			rec.Reason = sh.masker.Mask(se.Err.Error())
		}
		var oe *report.ObstacleError
		if errors.As(err, &oe) {
			rec.Obstacle = oe
		}
		rec.StoppedBy = stoppedByPerson(err)
		var be *protocol.Error
		if errors.As(err, &be) {
			rec.Hint = r.hint(be)
		}
	}
	return rec, started, err
}
