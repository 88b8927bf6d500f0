package runner

import (
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// emit sends events to r.Events, if any. The engine prints nothing
// itself: progress lines are one sink of these (pkg/runner/progress).
func (r *Runner) emit(events ...event.Event) {
	if r.Events != nil {
		r.Events.Emit(events...)
	}
}

// flowStarted reports a run of rec's flow beginning.
func (r *Runner) flowStarted(rec *report.FlowReport, attempt int) {
	r.emit(event.FlowStart{Name: rec.Name, File: rec.File, Attempt: attempt, Worker: r.worker, Parallel: r.parallel})
}

// flowEnded reports a run of rec's flow ending, or its file not loading.
func (r *Runner) flowEnded(rec *report.FlowReport) {
	if r.Events == nil {
		return
	}
	ev := event.FlowEnd{Name: rec.Name, Status: string(rec.Status), Duration: rec.Duration, Error: rec.Error, Flaky: rec.Flaky, Hint: rec.Hint}
	for _, d := range rec.Diagnostics {
		ev.Diagnostics = append(ev.Diagnostics, d.String())
	}
	if rec.Flaky {
		ev.FlakyNote = rec.FlakyNote()
	}
	r.emit(ev)
}

// stepStarted reports a leaf step beginning; a parallel run, which
// prints each flow's run whole when it ends, has no running line to show.
func (s *State) stepStarted(rep *report.StepReport, m *flow.StepMeta) {
	if !s.r.parallel {
		s.r.emit(event.StepStart{Depth: rep.Depth, Path: rep.Path, Label: m.Label()})
	}
}

// stepEnded reports a step ending, unless it passed or was skipped in a
// repeat's pass the report leaves out (passLog).
func (s *State) stepEnded(rep *report.StepReport) {
	if s.r.Events == nil || s.unlisted && (rep.Status == report.StatusPassed || rep.Status == report.StatusSkipped) {
		return
	}
	ev := event.StepEnd{Depth: rep.Depth, Path: rep.Path, Label: rep.Label(), Status: string(rep.Status), Duration: rep.Duration,
		Note: rep.Note, Held: s.r.parallel, Mask: s.shared.masker.Mask}
	if rep.Error != nil {
		ev.Error = &event.StepError{Code: string(rep.Error.Code), Message: rep.Error.Message}
	}
	s.r.emit(ev)
}

// held is a parallel run's sink for one run of a flow: it keeps the
// events, which RunParallel emits together when the run ends.
type held struct{ events []event.Event }

// Emit keeps events.
func (h *held) Emit(events ...event.Event) { h.events = append(h.events, events...) }
