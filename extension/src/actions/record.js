// record_start, record_read, record_stop (feature record;
// docs/record.md#bua-record): actions of scope "browser", run by the dispatcher with
// (env, action) as actions/tabs.js's are, through env.recorder (the
// worker's recorder, recorder/recorder.js). None waits behind the tab's
// queue: a read must go on while the person's input is recorded, and a
// stop must work on a tab that closed.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { hostOf } from "../core/domains.js";
import { waitTimeoutMs } from "../core/budget.js";
import { urlOf } from "./tabs.js";

function recorderOf(env) {
  if (!env.recorder) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, "this extension has no recorder (a bug in bua: the worker did not wire it)");
  return env.recorder;
}

// recordStart starts recording the tab, after the checks an action on it
// gets: it exists, the person did not stop bua's session there, its domain
// is not blocked; it then has a session, which the popup shows with the
// recording.
async function recordStart(env, action) {
  const recorder = recorderOf(env);
  const tab = await env.getTab(action.tabId);
  const stopped = env.sessions.stoppedReason ? env.sessions.stoppedReason(tab.id) : null;
  if (stopped) {
    throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, `the person ended bua's session on tab ${tab.id} (${stopped}): bua does not act on that tab again while it is open; record in a new tab`);
  }
  const host = hostOf(urlOf(tab));
  env.blocked(host, action.type, tab.id);
  env.sessions.ensureSession(tab.id, host);
  return recorder.start(tab);
}

// recordRead answers the steps from sinceSeq on, waiting up to timeoutMs
// (within the request's budget) for one.
function recordRead(env, action) {
  const ms = env.budget.inner(waitTimeoutMs(action));
  return recorderOf(env).read(action.tabId, action.sinceSeq || 0, ms, env.budget.signal);
}

function recordStop(env, action) {
  return recorderOf(env).stop(action.tabId, "stopped");
}

export const executors = Object.freeze({ record_start: recordStart, record_read: recordRead, record_stop: recordStop });
