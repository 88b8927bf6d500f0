// The debugger controller: every per-tab action runs here through
// chrome.debugger (CDP 1.3) on the real tab (docs/extension.md#controller-interface,
// docs/extension.md §Controller interface). It keeps one TabSession per
// tab the debugger reaches (sessions/tab-session.js), routes
// chrome.debugger's events and detaches to it, and runs actions on it
// (sessions/run.js).

import { budgetFor } from "../core/budget.js";
import { createTraceStore } from "../core/trace.js";
import { closeTab, policyOf } from "../actions/dialog.js";
import { TabSession } from "./tab-session.js";
import { runAction } from "./run.js";

// createDebuggerController({chromeApi, emitEvent, managed, handoff,
// timers, traces}): chromeApi is chrome-api.js's object; managed is read
// at each use (the worker passes a getter because pairing loads after the
// controller is created); handoff is the worker's handoff service; traces
// the trace store (core/trace.js; a fresh one by default).
export function createDebuggerController(opts) {
  return new DebuggerController(opts);
}

class DebuggerController {
  constructor(opts) {
    const api = opts.chromeApi.debugger;
    // What every TabSession and every action may use (sessions/capabilities.js).
    this.deps = {
      chromeApi: opts.chromeApi,
      api,
      emitEvent: opts.emitEvent || (() => {}),
      timers: opts.timers || globalThis,
      isManaged: () => Boolean(opts.managed),
      handoff: opts.handoff,
      // The per-tab trace rings (docs/extension.md §Trace): fed by the
      // TabSessions' CDP events and action ends, dropped when a tab closes.
      traces: opts.traces || createTraceStore(),
    };
    this.sessions = new Map(); // tabId -> TabSession
    this.detachListeners = new Set();
    this.handleDebuggerEvent = this.handleDebuggerEvent.bind(this);
    this.handleDetach = this.handleDetach.bind(this);
    // chrome.debugger events only reach a worker that added its listeners
    // during its first synchronous run; background.js creates this
    // controller at top level, so adding them here satisfies that.
    if (api.onEvent && typeof api.onEvent.addListener === "function") api.onEvent.addListener(this.handleDebuggerEvent);
    if (api.onDetach && typeof api.onDetach.addListener === "function") api.onDetach.addListener(this.handleDetach);
  }

  get traces() {
    return this.deps.traces;
  }

  // session is tabId's TabSession, made on first use.
  session(tabId) {
    let s = this.sessions.get(tabId);
    if (!s) {
      const { api, chromeApi, traces, emitEvent } = this.deps;
      s = new TabSession(tabId, { api, tabsApi: chromeApi.tabs, webRequest: chromeApi.webRequest, traces, emitEvent });
      this.sessions.set(tabId, s);
    }
    return s;
  }

  // run executes one per-tab action within budget (core/budget.js; by
  // default the one a request without deadlineMs gets, from now).
  run(tabId, action, budget = budgetFor(action)) {
    return runAction(this, tabId, action, budget);
  }

  // prepare starts attaching to a tab that was just opened (open_tab, an
  // input's new tab), so the attach and the domains' setup are not the
  // first action's delay. It resolves once attached, or once the attach
  // failed: its failure is nobody's answer, as the first action attaches
  // again (run).
  prepare(tabId) {
    const s = this.session(tabId);
    if (!s.attached) s.eagerAttach = s.attach();
    return Promise.resolve(s.eagerAttach).then(
      () => {},
      () => {},
    );
  }

  // closeTab is close_tab's way through the tab's dialogs (actions/dialog.js).
  // A tab the debugger never reached has no dialog open, and only a
  // dialogs policy attaches to one to see it.
  closeTab(action, remove) {
    const s = this.sessions.get(action.tabId);
    if (!s && !policyOf(action)) return remove();
    return closeTab(s || this.session(action.tabId), action, remove);
  }

  async detach(tabId) {
    const s = this.sessions.get(tabId);
    const was = Boolean(s && s.attached);
    if (s) s.dispose("detached");
    if (was) await this.deps.api.detach({ tabId }).catch(() => {});
  }

  // forgetTab drops everything about a tab that closed.
  forgetTab(tabId) {
    const s = this.sessions.get(tabId);
    this.sessions.delete(tabId);
    if (s) s.dispose("closed");
  }

  hasOpenDialog(tabId) {
    const s = this.sessions.get(tabId);
    return Boolean(s && s.openDialog);
  }

  // committedUrl is the URL of the document committed in tabId's main
  // frame, as the attached debugger last reported it (Page.frameNavigated),
  // or null when the debugger is not attached there: the dispatcher's
  // blocklist check reads it instead of asking the tabs API each action.
  committedUrl(tabId) {
    const s = this.sessions.get(tabId);
    const f = s && s.attached ? s.mainFrame : null;
    return f && typeof f.url === "string" ? f.url : null;
  }

  // onDetach calls listener with (tabId, reason) when Chrome detaches the
  // debugger (the person cancelled the bar, the tab closed).
  onDetach(listener) {
    this.detachListeners.add(listener);
    return () => this.detachListeners.delete(listener);
  }

  // handleDebuggerEvent is chrome.debugger.onEvent's listener.
  handleDebuggerEvent(source, method, params) {
    const tabId = source && source.tabId;
    if (tabId === undefined || tabId === null) return;
    this.session(tabId).handleEvent(source.sessionId, method, params);
  }

  // handleDetach is chrome.debugger.onDetach's listener.
  handleDetach(source, reason) {
    const tabId = source && source.tabId;
    if (tabId === undefined || tabId === null) return;
    const s = this.sessions.get(tabId);
    if (s) s.handleDetach(reason);
    for (const fn of this.detachListeners) {
      try {
        fn(tabId, reason);
      } catch (e) {
        console.error("[bua] onDetach listener failed", e);
      }
    }
  }
}
