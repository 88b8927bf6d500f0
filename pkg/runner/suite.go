package runner

import (
	"context"
	"errors"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// RunSuite loads and runs each file in order (see Shard to split a suite
// across CI jobs). An invalid file is reported with its diagnostics and
// does not stop the others, unless FailFast.
func (r *Runner) RunSuite(ctx context.Context, files []string) *report.SuiteReport {
	suite := &report.SuiteReport{Started: r.now(), ExitCode: r.ExitCode}
	stop := false
	for _, file := range files {
		if stop || ctx.Err() != nil {
			suite.Flows = append(suite.Flows, &report.FlowReport{Name: flow.DefaultName(file), File: file, Status: report.StatusSkipped})
			continue
		}
		var rec *report.FlowReport
		if f, err := r.Load(file); err != nil {
			rec = r.invalidFlow(file, err)
		} else {
			rec = r.RunFlow(ctx, f)
		}
		suite.Flows = append(suite.Flows, rec)
		stop = stop || r.stopsSuite(rec)
	}
	r.endSuite(suite, ctx)
	return suite
}

// invalidFlow is the report of a file that did not load, printed.
func (r *Runner) invalidFlow(file string, err error) *report.FlowReport {
	rec := &report.FlowReport{Name: flow.DefaultName(file), File: file, Status: report.StatusInvalid, Error: err.Error()}
	var le *flow.LoadError
	if errors.As(err, &le) {
		rec.Diagnostics = le.Diags
	}
	r.flowEnded(rec)
	return rec
}

// stopsSuite reports whether no flow may start after rec: under FailFast
// one that did not pass; and a flow the person stopped with Stop all in
// the popup, which stops the whole run, not only the flow it met (the
// person wants bua out of their browser).
func (r *Runner) stopsSuite(rec *report.FlowReport) bool {
	return r.FailFast && rec.Status != report.StatusPassed || rec.StoppedBy == protocol.ReasonGlobalStop
}

// endSuite closes suite s: its duration, whether ctx was interrupted, and
// the evidence files its flows could not write.
func (r *Runner) endSuite(s *report.SuiteReport, ctx context.Context) {
	for _, rec := range s.Flows {
		for _, a := range append(rec.FailedAttempts, rec) {
			s.Problems = append(s.Problems, a.WriteErrors...)
		}
	}
	s.Duration = r.now().Sub(s.Started)
	s.Interrupted = interrupted(ctx)
}

// interrupted reports whether ctx, a run's or a flow's, was cancelled by
// the run's caller (Ctrl-C, SIGTERM) rather than timed out.
func interrupted(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }
