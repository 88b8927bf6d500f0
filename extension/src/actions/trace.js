// get_trace: read the tab's trace ring (core/trace.js, docs/extension.md
// §Trace).

// PASSIVE_ACTIONS read bua's own bookkeeping for a tab, not the page: they
// wait behind no action in the tab's queue (a follower polling the trace
// while a long wait_for runs gets its answer at once), attach no debugger,
// start no session, and still answer while a dialog blocks the page.
export const PASSIVE_ACTIONS = Object.freeze(new Set(["get_trace"]));

export function getTrace(ctx, action) {
  return ctx.readTrace(action.sinceSeq ?? 0);
}

export const executors = Object.freeze({ get_trace: getTrace });
