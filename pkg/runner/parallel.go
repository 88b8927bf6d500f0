package runner

import (
	"context"
	"slices"
	"sync"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// Worker is one of a parallel run's workers (`bua run --parallel N`): its
// index, 0 … N-1 (env.BUA_WORKER_INDEX, WorkerIndexEnv), and the
// Requester of the browser it owns for the whole run, which serves every
// flow it takes.
type Worker struct {
	Index     int
	Requester protocol.Requester
}

// job is one flow in a parallel run's queue: its place in the sorted
// files, and its runs so far once it has been loaded (nil before).
type job struct {
	i    int
	file string
	run  *flowRun
}

// RunParallel runs files as RunSuite does, on workers at once: one queue
// in sorted order, which a free worker takes the next flow from. A flow
// that fails in a way a rerun may fix (Retries) goes back to the head of
// the queue, so the worker free next runs it again. The report lists the
// flows in sorted order, whatever finished first.
//
// Each flow's progress lines are printed together when its run ends, the
// flow's line naming its worker, so flows running at once do not
// interleave; TTY redraws are off. FailFast and a person's Stop all keep
// any more flows from starting (the running ones finish), as does ctx's
// cancel, which also interrupts the running ones; the flows not started
// are skipped. One worker runs as RunSuite would over the sorted files,
// but for that printing.
func (r *Runner) RunParallel(ctx context.Context, files []string, workers []Worker) *report.SuiteReport {
	suite := &report.SuiteReport{Started: r.now(), ExitCode: r.ExitCode}
	files = slices.Clone(files)
	report.SortFiles(files)
	q := &queue{recs: make([]*report.FlowReport, len(files))}
	q.cond = sync.NewCond(&q.mu)
	for i, f := range files {
		q.jobs = append(q.jobs, &job{i: i, file: f})
	}
	// A cancel wakes the workers waiting for a rerun to come back.
	stopWaking := context.AfterFunc(ctx, q.wake)
	defer stopWaking()

	var printMu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := q.take(ctx); j != nil; j = q.take(ctx) {
				wr, out := r.forWorker(w)
				rec, done := wr.runJob(ctx, j)
				// Recorded before it is printed: a FailFast stop holds
				// from the moment anyone can see the failure.
				q.finish(j, rec, done, r.stopsSuite(rec))
				if out != nil {
					printMu.Lock()
					r.emit(out.events...)
					printMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()

	for _, j := range q.jobs { // reruns the run stopped before
		if j.run != nil {
			q.recs[j.i] = j.run.abandoned()
			j.run.close()
		}
	}
	for i, rec := range q.recs {
		if rec == nil {
			rec = &report.FlowReport{Name: flow.DefaultName(files[i]), File: files[i], Status: report.StatusSkipped}
		}
		suite.Flows = append(suite.Flows, rec)
	}
	r.endSuite(suite, ctx)
	return suite
}

// forWorker is r's copy for one run of a flow on w: w's Requester and
// index, and its events held (nil when r has no sink) to be emitted
// together when the run ends.
func (r *Runner) forWorker(w Worker) (*Runner, *held) {
	c := *r
	c.Requester, c.worker, c.parallel = w.Requester, w.Index, true
	var out *held
	if r.Events != nil {
		out = &held{}
		c.Events = out
	}
	return &c, out
}

// runJob loads j's flow the first time, then runs it once; done is false
// when it is to run again (flowRun.attempt).
func (r *Runner) runJob(ctx context.Context, j *job) (rec *report.FlowReport, done bool) {
	if j.run == nil {
		f, err := r.Load(j.file)
		if err != nil {
			return r.invalidFlow(j.file, err), true
		}
		j.run = r.startFlow(f)
	}
	rec, done = j.run.attempt(ctx, r)
	w := r.worker
	rec.Worker = &w
	if done {
		j.run.close()
	}
	return rec, done
}

// queue is a parallel run's flows still to run, and the reports of those
// done, in sorted order.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []*job
	recs    []*report.FlowReport
	running int  // flows taken and not finished: each may come back
	stopped bool // FailFast or Stop all: no more flows start
}

// take is the next flow to run, waiting while the queue is empty but a
// flow still running may come back for a rerun; nil once there is none,
// or the run stopped, or ctx ended.
func (q *queue) take(ctx context.Context) *job {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		switch {
		case q.stopped || ctx.Err() != nil:
			return nil
		case len(q.jobs) > 0:
			j := q.jobs[0]
			q.jobs = q.jobs[1:]
			q.running++
			return j
		case q.running == 0:
			return nil
		}
		q.cond.Wait()
	}
}

// finish records j's run: its report when done, else j back at the head
// of the queue for the next free worker; stop ends the taking.
func (q *queue) finish(j *job, rec *report.FlowReport, done, stop bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running--
	if done {
		q.recs[j.i] = rec
	} else {
		q.jobs = append([]*job{j}, q.jobs...)
	}
	q.stopped = q.stopped || done && stop
	q.cond.Broadcast()
}

// wake wakes every worker waiting in take.
func (q *queue) wake() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cond.Broadcast()
}
