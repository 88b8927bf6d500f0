package runner

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
)

// RunSuite loads and runs each file in order (see Shard to split a suite
// across CI jobs). An invalid file is reported with its diagnostics and
// does not stop the others, unless FailFast.
func (r *Runner) RunSuite(ctx context.Context, files []string) *SuiteReport {
	suite := &SuiteReport{Started: r.now(), ExitCode: r.ExitCode}
	stop := false
	for _, file := range files {
		if stop || ctx.Err() != nil {
			suite.Flows = append(suite.Flows, &FlowReport{Name: flow.DefaultName(file), File: file, Status: StatusSkipped})
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
	rec := &FlowReport{Name: flow.DefaultName(file), File: file, Status: StatusInvalid, Error: err.Error()}
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
