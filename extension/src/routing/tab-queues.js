// The per-tab queues and the requests pending on each tab (docs/extension.md
// §Dispatcher rules, §Cancellation): one action at a time per tab, and
// every request pending on a tab, running or queued, ended at once when
// the tab closes or its session ends.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { abortable } from "../core/cdp.js";
import { END_REASONS } from "../generated/protocol.js";

// endedMessage says, for a request whose session ended under it, what
// happened (error.reason carries the end reason itself).
export function endedMessage(tabId, reason) {
  switch (reason) {
    case END_REASONS.USER_STOPPED:
      return `the person stopped bua's session on tab ${tabId} from the extension's popup; the action did not finish`;
    case END_REASONS.GLOBAL_STOP:
      return `the person pressed Stop all in the extension's popup, ending every bua session; the action on tab ${tabId} did not finish`;
    case END_REASONS.DEBUGGER_DETACHED:
      return `the person cancelled the debugger on tab ${tabId} (Chrome's "started debugging this browser" bar); the action did not finish`;
    case END_REASONS.DOMAIN_BLOCKED:
      return `tab ${tabId}'s domain was added to the blocklist while the action ran; the action did not finish`;
    case END_REASONS.SYSTEM_IDLE:
      return `the computer went idle, which ends bua's sessions; the action on tab ${tabId} did not finish`;
    case END_REASONS.SCREEN_LOCKED:
      return `the screen was locked, which ends bua's sessions; the action on tab ${tabId} did not finish`;
    default:
      return `bua's session on tab ${tabId} ended (${reason}); the action did not finish`;
  }
}

export class TabQueues {
  #queues = new Map(); // tabId -> tail promise
  #pending = new Map(); // tabId -> Set<AbortController> of its requests, queued or running
  #exempt = null; // the request whose own blocklist check is ending its session

  // enqueue runs fn after every earlier action on tabId has ended, and
  // returns fn's promise, which rejects with signal's reason the moment
  // signal aborts. An aborted action gives up its place at once: the next
  // one waits only for the actions before it, never for orphaned work.
  enqueue(tabId, fn, signal) {
    const queues = this.#queues;
    const prev = queues.get(tabId) || Promise.resolve();
    const start = () => {
      if (signal && signal.aborted) throw signal.reason; // ended while queued: never runs
      return fn();
    };
    const run = abortable(prev.then(start, start), signal);
    const tail = Promise.all([prev, run.catch(() => {})]).then(() => {});
    queues.set(tabId, tail);
    tail.then(() => {
      if (queues.get(tabId) === tail) queues.delete(tabId);
    });
    return run;
  }

  // track registers a request's controller under tabId until the returned
  // function is called, so tabClosed and sessionEnded can end it.
  track(tabId, ac) {
    const pending = this.#pending;
    let set = pending.get(tabId);
    if (!set) pending.set(tabId, (set = new Set()));
    set.add(ac);
    return () => {
      set.delete(ac);
      if (set.size === 0 && pending.get(tabId) === set) pending.delete(tabId);
    };
  }

  // tabClosed ends every request pending on tabId, running or queued, with
  // tab_not_found at once: whoever closed the tab (close_tab, the person,
  // the page), no caller waits out its timeout on a tab that is gone.
  tabClosed(tabId) {
    const set = this.#pending.get(tabId);
    this.#pending.delete(tabId);
    this.#queues.delete(tabId);
    if (!set) return 0;
    for (const ac of set) ac.abort(new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} was closed while the action was pending`));
    return set.size;
  }

  // sessionEnded ends every request pending on tabId at once when its
  // session ends: tab_closed as tabClosed does (tab_not_found), any other
  // reason with internal_error carrying the reason. The request whose own
  // blocklist check ended the session (exempting) answers domain_blocked
  // instead.
  sessionEnded(tabId, reason) {
    if (reason === END_REASONS.TAB_CLOSED) return this.tabClosed(tabId);
    const set = this.#pending.get(tabId);
    if (!set) return 0;
    let n = 0;
    for (const ac of [...set]) {
      if (ac === this.#exempt) continue;
      ac.abort(new BridgeError(ErrorCodes.INTERNAL_ERROR, endedMessage(tabId, reason), reason));
      n++;
    }
    return n;
  }

  // exempting runs fn with the request ac left alone by sessionEnded.
  exempting(ac, fn) {
    this.#exempt = ac;
    try {
      return fn();
    } finally {
      this.#exempt = null;
    }
  }
}
