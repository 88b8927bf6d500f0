// Turns one validated action into one result
// (docs/extension.md#dispatcher-rules): routes by the action's scope in
// ACTION_SPECS and queues. "tab" actions: resolve the tab, queue per tab
// (tab-queues.js), then the gate (tab-gate.js: the blocklist, the session,
// the window) and the debugger controller. "browser" actions (get_tabs,
// open_tab, close_tab) run from actions/tabs.js through the tabs API,
// never behind a tab's queue. Every request runs within its budget
// (core/budget.js) and under an AbortSignal (budget.signal) that aborts
// when the daemon cancels it, when its watchdog fires, or when its tab
// closes: the request then ends at once, frees its place in the tab's
// queue, and its leftover work stops at its next await
// (docs/cancellation.md#cancellation, docs/extension.md §Cancellation). A session the person
// ends (Stop, Stop all, the debugger bar's Cancel), or that the blocklist,
// idle or a locked screen ends, ends its tab's pending requests at once
// with internal_error and error.reason = the end reason; a stopped tab
// then refuses actions with session_not_found.

import { BridgeError, CancelledError, ErrorCodes, toWireError } from "../core/errors.js";
import { hostOf } from "../core/domains.js";
import { abortable, onAbort } from "../core/cdp.js";
import { budgetFor } from "../core/budget.js";
import { ACTION_SPECS } from "../generated/protocol.js";
import { executors as tabsExecutors } from "../actions/tabs.js";
import { executors as recordExecutors } from "../actions/record.js";
import { PASSIVE_ACTIONS } from "../actions/trace.js";
import { TabQueues } from "./tab-queues.js";
import { TabGate } from "./tab-gate.js";

// The "browser" actions' executors, (env, action) => result.
export const browserExecutors = Object.freeze({ ...tabsExecutors, ...recordExecutors });

// createDispatcher({api, sessions, windows, controller, emit, timers,
// recorder}): api is chrome-api.js's object, sessions the session manager,
// windows the window manager, controller the debugger controller,
// recorder the worker's recorder (recorder/recorder.js), for the record
// actions.
export function createDispatcher({ api, sessions, windows, controller, emit, timers = globalThis, recorder = null }) {
  return new Dispatcher({ api, sessions, windows, controller, emit, timers, recorder });
}

class Dispatcher {
  #deps;
  #queues = new TabQueues();
  #gate;

  constructor(deps) {
    this.#deps = deps;
    this.#gate = new TabGate({ ...deps, queues: this.#queues });
    const sessions = deps.sessions;
    if (typeof sessions.onEnded === "function") sessions.onEnded((ev) => this.sessionEnded(ev.tabId, ev.reason));
  }

  // tabClosed ends every request pending on tabId at once (tab-queues.js).
  tabClosed(tabId) {
    return this.#queues.tabClosed(tabId);
  }

  // sessionEnded ends every request pending on tabId when its session ends.
  sessionEnded(tabId, reason) {
    return this.#queues.sessionEnded(tabId, reason);
  }

  // handle is ws-client's handleRequest: {result} or {error}, never
  // throws; null when the request was cancelled, which gets no response.
  async handle(action, budget) {
    try {
      return { result: await this.dispatch(action, budget) };
    } catch (e) {
      if (e instanceof CancelledError) return null;
      return { error: toWireError(e) };
    }
  }

  // dispatch runs one action within budget (by default, the one a request
  // without deadlineMs gets, from now); throws BridgeError on failure, or
  // CancelledError when budget.signal (the daemon's cancel) aborted it.
  // The controller has its own watchdog for the action itself; this one
  // also covers resolving the tab and waiting in its queue, so the caller
  // hears timeout before the daemon gives up. The request's own signal
  // aborts on cancel, on this watchdog and on tab close, and once the
  // request has ended, so nothing it started runs on.
  async dispatch(action, budget = budgetFor(action)) {
    const timers = this.#deps.timers;
    const ac = new AbortController();
    const outer = budget.signal;
    const offOuter = onAbort(outer, () => ac.abort(outer.reason instanceof Error ? outer.reason : new CancelledError()));
    const ms = budget.remaining();
    const watchdog = timers.setTimeout(
      () => ac.abort(new BridgeError(ErrorCodes.TIMEOUT, `${action.type} did not finish within ${ms} ms`)),
      ms,
    );
    try {
      const work = Promise.resolve().then(() => this.#route(action, budget.withSignal(ac.signal), ac));
      return await abortable(work, ac.signal);
    } finally {
      timers.clearTimeout(watchdog);
      offOuter();
      if (!ac.signal.aborted) ac.abort(new CancelledError("the request has ended"));
    }
  }

  #route(action, budget, ac) {
    const spec = Object.hasOwn(ACTION_SPECS, action.type) ? ACTION_SPECS[action.type] : null;
    switch (spec && spec.scope) {
      case "tab":
        return this.#perTab(action, budget, ac);
      case "browser":
        if (Object.hasOwn(browserExecutors, action.type)) return browserExecutors[action.type](this.#envFor(budget, ac), action);
        break;
      default:
        break;
    }
    throw new BridgeError(ErrorCodes.INVALID_ACTION, `unknown action ${JSON.stringify(action.type)}`);
  }

  // perTab runs a "tab" action through the gate in the tab's queue. The
  // time spent waiting in the queue comes out of the budget; an action
  // whose budget ran out while queued fails without running.
  async #perTab(action, budget, ac) {
    const { tabId } = await this.#resolveTab(action);
    const untrack = this.#queues.track(tabId, ac);
    const run = () => this.#gate.run(tabId, action, budget, ac);
    try {
      // A passive action (get_trace) reads bua's bookkeeping, not the page:
      // it waits behind nobody.
      if (PASSIVE_ACTIONS.has(action.type)) return await abortable(run(), budget.signal);
      return await this.#queues.enqueue(tabId, run, budget.signal);
    } catch (e) {
      // A tab closed under the action explains whatever else went wrong
      // (a detached debugger, a CDP call on a dead target).
      const explained = e instanceof CancelledError || (e instanceof BridgeError && e.code !== ErrorCodes.INTERNAL_ERROR && e.code !== ErrorCodes.DEBUGGER_ATTACH_FAILED);
      if (!explained && (await this.#tabGone(tabId))) {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} was closed while ${action.type} ran`);
      }
      throw e;
    } finally {
      untrack();
    }
  }

  // tabGone says whether tabId no longer exists.
  async #tabGone(tabId) {
    try {
      return !(await this.#deps.api.tabs.get(tabId));
    } catch {
      return true;
    }
  }

  // resolveTab picks the tab an action runs on. Returns {tabId, opened}.
  // An explicit tabId is taken as it is: the gate checks the tab when the
  // action's turn comes (tab_not_found if it is gone).
  async #resolveTab(action) {
    if (action.tabId !== undefined) return { tabId: action.tabId, opened: false };
    const { api, sessions, windows } = this.#deps;
    const buaId = await windows.buaWindowId();
    const live = [];
    for (const s of sessions.list()) {
      try {
        const tab = await api.tabs.get(s.tabId);
        live.push({ s, tab });
      } catch {
        sessions.tabRemoved(s.tabId); // the worker slept through its onRemoved
      }
    }
    const inBua = live.filter(({ tab }) => buaId != null && tab.windowId === buaId);
    const mru = (list) => list.reduce((a, b) => (b.s.lastActionAt > a.s.lastActionAt ? b : a));
    if (inBua.length) return { tabId: mru(inBua).s.tabId, opened: false };
    if (live.length === 1) return { tabId: live[0].s.tabId, opened: false };
    if (action.type === "navigate") {
      this.#gate.blocked(hostOf(action.url), action.type);
      const tab = await windows.openTab("about:blank");
      return { tabId: tab.id, opened: true };
    }
    if (live.length > 1) {
      const ids = live.map(({ s }) => s.tabId).join(", ");
      throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, `${live.length} sessions (tabs ${ids}) and none in the BUA window, and the action has no tabId`);
    }
    throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, "no session to act on: no tab has a session and the action has no tabId");
  }

  // replenish opens the next spare tab and attaches to it (windows.replenish),
  // in the background: its failure is nobody's answer, as open_tab makes
  // a tab of its own without one.
  #replenish() {
    const windows = this.#deps.windows;
    if (!windows.replenish) return;
    windows
      .replenish()
      .then((tab) => tab && this.#gate.prepare(tab.id))
      .catch((e) => console.debug("[bua] no spare tab", e));
  }

  // envFor is what a "browser" executor (actions/tabs.js, actions/record.js)
  // may use. getTab reads a tab or fails tab_not_found.
  // prepare(tabId) lets open_tab start the debugger's attach while the
  // new tab loads (the controller's prepare); replenish() readies the next
  // open_tab's spare tab; navigate(action) runs a
  // navigate on the tab open_tab opened, as a request of its own would
  // run (queue, session, the controller) within open_tab's budget;
  // hasOpenDialog and closeTab are the controller's, for open_tab's wait
  // and close_tab's way through a dialog.
  #envFor(budget, ac) {
    const { api, sessions, windows, controller, timers, recorder } = this.#deps;
    return {
      api,
      sessions,
      windows,
      budget,
      timers,
      getTab: (tabId) => this.#gate.getTab(tabId),
      blocked: (host, attemptedAction, tabId) => this.#gate.blocked(host, attemptedAction, tabId),
      tabClosed: (tabId) => this.tabClosed(tabId),
      prepare: (tabId) => this.#gate.prepare(tabId),
      replenish: () => this.#replenish(),
      navigate: (action) => this.#perTab(action, budget, ac),
      hasOpenDialog: controller.hasOpenDialog ? (tabId) => controller.hasOpenDialog(tabId) : null,
      closeTab: controller.closeTab ? (action, remove) => controller.closeTab(action, remove) : null,
      recorder,
    };
  }
}
