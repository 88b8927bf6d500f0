// Running one action on its tab (docs/extension.md §Controller interface):
// the executor (sessions/executors.js) gets a ctx of the capabilities it
// uses, bound to the request; the dialogs it meets are the dialog
// policy's (actions/dialog.js); one deadline bounds it; the remote objects
// it made are released after it; its end goes into the tab's trace.

import { BridgeError, CancelledError, ErrorCodes, toWireError } from "../core/errors.js";
import { abortable, withDeadline } from "../core/cdp.js";
import { actionEvent } from "../core/trace.js";
import { GROUP } from "../target/locate.js";
import { PASSIVE_ACTIONS } from "../actions/trace.js";
import { failOnDialog, leavingPolicy, refuseIfOpen, underPolicy } from "../actions/dialog.js";
import { TAB_EXECUTORS, USES } from "./executors.js";
import { contextFor } from "./capabilities.js";

// runAction executes one per-tab action within budget and returns the
// executor's result, or throws a BridgeError; when budget.signal aborts it
// throws the signal's reason at once. controller is the debugger
// controller (its deps and TabSessions). The dispatcher adds tabId to the
// result.
export async function runAction(controller, tabId, action, budget) {
  const exec = Object.hasOwn(TAB_EXECUTORS, action.type) ? TAB_EXECUTORS[action.type] : null;
  if (!exec) throw new BridgeError(ErrorCodes.INVALID_ACTION, `${JSON.stringify(action.type)} is not a per-tab action`);
  const deps = controller.deps;
  // Reading the trace neither attaches nor waits for the page, and is
  // not itself traced (a follower's polls would crowd out the rest).
  if (PASSIVE_ACTIONS.has(action.type)) return exec(contextFor(USES[action.type], { tabId, budget, deps }), action);
  const session = controller.session(tabId);
  const started = Date.now();
  let code;
  let cancelled = false;
  let stack = "";
  try {
    return await runAttached(session, action, budget, exec, deps);
  } catch (e) {
    cancelled = e instanceof CancelledError;
    code = toWireError(e).code;
    stack = e && typeof e.stack === "string" ? e.stack : "";
    throw e;
  } finally {
    // Only a tab the debugger reached has a trace: a failed attach to a
    // closed tab must not leave a ring behind.
    if (session.attached || deps.traces.has(tabId)) deps.traces.push(tabId, actionEvent(action.type, Date.now() - started, code, cancelled, stack));
  }
}

async function runAttached(session, action, budget, exec, deps) {
  // handle_dialog is the one action an open dialog lets through, and an
  // action that leaves the page under a dialogs policy answers it first.
  const policy = leavingPolicy(action);
  refuseIfOpen(session, action, policy);
  // The watchdog: the queue wait and the attach already spent part of the
  // budget, so it gets what remains.
  let request = null;
  const first = session.attach();
  const ready = session.eagerAttach === first ? first.catch(() => session.attach()) : first;
  const work = ready.then(() => {
    request = openRequest(session, budget);
    const ctx = contextFor(USES[action.type], { tabId: session.tabId, budget, deps, session, request });
    return underPolicy(session, policy, action.type, () => exec(ctx, action));
  });
  const ms = budget.remaining();
  const races = [work];
  // A dialog raised by this very action blocks the renderer, so the
  // pending CDP call would never answer: fail now instead of hanging.
  // (Under a dialogs policy none is left open to be seen here.)
  const watch = action.type === "handle_dialog" ? null : failOnDialog(session, action.type, () => !session.evaluating);
  if (watch) races.push(watch.opened);
  let finished = false;
  try {
    // One deadline over the work and the dialog watch, so its timer goes
    // when either ends the action, or the signal does.
    const result = await withDeadline(Promise.race(races), ms, action.type, deps.timers, budget.signal);
    finished = true;
    return result;
  } finally {
    if (watch) watch.stop();
    if (request) release(session, request, finished);
  }
}

// openRequest is the request's way to the tab: sendTo(sessionId, method,
// params) sends on the tab's session (sessionId null) or a child's, and
// rejects with the signal's reason once the request has stopped; holders
// are the sessions (null: the tab's) where a command answered with a
// remote object (Runtime's result or DOM.resolveNode's object).
function openRequest(session, budget) {
  const signal = budget.signal;
  const holders = new Set();
  return {
    holders,
    sendTo(sessionId, method, params) {
      if (signal && signal.aborted) return Promise.reject(signal.reason);
      const p = session.send(method, params, sessionId || undefined);
      p.then((r) => {
        if (r && ((r.result && r.result.objectId) || (r.object && r.object.objectId))) holders.add(sessionId || null);
      }, () => {});
      return abortable(p, signal);
    },
  };
}

// release frees the object group GROUP after an action, only where a
// command answered with a remote object, so an action that asked for
// values only (an evaluate of a primitive, a type by selector) sends no
// release. An action that ended early may still have a command in flight
// that creates an object; the release, sent after it on every session,
// frees that too.
function release(session, request, finished) {
  if (finished && request.holders.size === 0) return;
  const sessions = request.holders.size && finished ? [...request.holders] : [null, ...session.frames.keys()];
  for (const s of sessions) session.send("Runtime.releaseObjectGroup", { objectGroup: GROUP }, s || undefined).catch(() => {});
}
