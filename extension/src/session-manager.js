// Sessions keyed by tabId, the domain blocklist, and session events
// (docs/protocol.md#events, docs/extension.md#state-ownership). State survives the
// worker being killed: activeSessions, blocklist, sessionHistory (the audit
// log: {tabId, domain, startedAt, endedAt, actionCount, reason}, at most
// HISTORY_MAX) and stoppedTabs live in chrome.storage.local and are read
// back by init(). onEnded and onChange let the dispatcher (to end a
// stopped session's requests) and the UI service (to push state) follow.

import { END_REASONS, EVENTS } from "./generated/protocol.js";
import { normalizeDomain, blockedBy } from "./lib/domains.js";

// RECORD_WRITE_MS is how long recordAction waits before it writes the
// sessions: the counts and times of the actions of that second go out in
// one chrome.storage.local write instead of one write per action. A worker
// killed meanwhile loses at most that last second of actionCount and
// lastActionAt; sessions starting, changing domain or ending are written
// at once (docs/extension.md#state-ownership).
export const RECORD_WRITE_MS = 1000;


// HISTORY_MAX is the audit log's cap (docs/extension.md#state-ownership: at
// most 1,000); the oldest entries are dropped first.
export const HISTORY_MAX = 1000;

// STOP_REASONS are the end reasons that come from the person saying stop:
// the popup's Stop (user_stopped), its Stop all (global_stop) and Chrome's
// debugger-bar Cancel (debugger_detached). docs/architecture.md#cancellation: after
// them "any subsequent action on that tab fails with session_not_found",
// for as long as the tab lives; a new tab (open_tab) starts afresh.
export const STOP_REASONS = Object.freeze([END_REASONS.USER_STOPPED, END_REASONS.GLOBAL_STOP, END_REASONS.DEBUGGER_DETACHED]);

export function createSessionManager({ storage, emit, now = Date.now, timers = globalThis }) {
  const sessions = new Map(); // tabId -> {tabId, domain, startedAt, lastActionAt, actionCount}
  let blocklist = [];
  let history = [];
  const stopped = new Map(); // tabId -> the STOP_REASONS reason its session ended with
  const endedListeners = new Set();
  const changeListeners = new Set();
  let writes = Promise.resolve();
  let pending = null; // the timer of recordAction's deferred write

  // persist serialises writes so a slow set cannot land after a newer one.
  function persist(keys) {
    const items = {};
    if (keys.includes("activeSessions")) {
      items.activeSessions = [...sessions.values()];
      cancelPending(); // this write carries the recorded actions too
    }
    if (keys.includes("blocklist")) items.blocklist = blocklist;
    if (keys.includes("sessionHistory")) items.sessionHistory = history;
    if (keys.includes("stoppedTabs")) items.stoppedTabs = [...stopped].map(([tabId, reason]) => ({ tabId, reason }));
    changed();
    writes = writes.then(() => storage.set(items)).catch(() => {});
    return writes;
  }

  // persistSoon writes the sessions RECORD_WRITE_MS from the first call
  // that finds no write pending.
  function persistSoon() {
    if (pending !== null) return;
    pending = timers.setTimeout(() => {
      pending = null;
      persist(["activeSessions"]);
    }, RECORD_WRITE_MS);
  }

  function cancelPending() {
    if (pending === null) return;
    timers.clearTimeout(pending);
    pending = null;
  }

  // changed tells the change listeners (the UI service) that sessions,
  // the blocklist or the history moved; they read what they need.
  function changed() {
    for (const fn of [...changeListeners]) {
      try {
        fn();
      } catch (e) {
        console.error("[bua] session change listener failed", e);
      }
    }
  }

  function end(tabId, reason) {
    const s = sessions.get(tabId);
    if (!s) return null;
    sessions.delete(tabId);
    if (STOP_REASONS.includes(reason)) stopped.set(tabId, reason);
    const ev = { type: EVENTS.SESSION_ENDED, domain: s.domain, tabId, actionCount: s.actionCount, reason };
    history.push({ tabId, domain: s.domain, startedAt: s.startedAt, endedAt: now(), actionCount: s.actionCount, reason });
    if (history.length > HISTORY_MAX) history = history.slice(-HISTORY_MAX);
    emit(ev);
    for (const fn of [...endedListeners]) {
      try {
        fn(ev);
      } catch (e) {
        console.error("[bua] session end listener failed", e);
      }
    }
    return ev;
  }

  const ENDED_KEYS = ["activeSessions", "sessionHistory", "stoppedTabs"];

  return {
    // init rehydrates from storage; call once per worker start, before use.
    async init() {
      const got = await storage.get(["activeSessions", "blocklist", "sessionHistory", "stoppedTabs"]);
      sessions.clear();
      stopped.clear();
      for (const x of Array.isArray(got.stoppedTabs) ? got.stoppedTabs : []) {
        if (x && Number.isInteger(x.tabId) && STOP_REASONS.includes(x.reason)) stopped.set(x.tabId, x.reason);
      }
      for (const s of Array.isArray(got.activeSessions) ? got.activeSessions : []) {
        if (s && Number.isInteger(s.tabId)) sessions.set(s.tabId, { ...s });
      }
      blocklist = Array.isArray(got.blocklist) ? [...new Set(got.blocklist.map(normalizeDomain).filter(Boolean))] : [];
      history = Array.isArray(got.sessionHistory) ? got.sessionHistory.slice(-HISTORY_MAX) : [];
    },

    // onEnded calls fn with every session_ended event, synchronously, as
    // the session ends. Returns the unsubscribe function.
    onEnded(fn) {
      endedListeners.add(fn);
      return () => endedListeners.delete(fn);
    },
    // onChange calls fn() after sessions, the blocklist or the history
    // changed (an action counted included). Returns the unsubscribe.
    onChange(fn) {
      changeListeners.add(fn);
      return () => changeListeners.delete(fn);
    },
    // stoppedReason is the STOP_REASONS reason tabId's session ended with,
    // or null: such a tab gets no new session until it closes.
    stoppedReason(tabId) {
      return stopped.get(tabId) || null;
    },

    isDomainBlocked(host) {
      return blockedBy(host, blocklist);
    },
    get blocklist() {
      return [...blocklist];
    },
    // addToBlocklist merges domains in (a managed pairing seeds its list this
    // way) and ends sessions now on a blocked domain.
    async addToBlocklist(domains) {
      const add = domains.map(normalizeDomain).filter(Boolean);
      blocklist = [...new Set([...blocklist, ...add])];
      for (const s of [...sessions.values()]) {
        if (blockedBy(s.domain, blocklist)) end(s.tabId, END_REASONS.DOMAIN_BLOCKED);
      }
      await persist(["blocklist", ...ENDED_KEYS]);
    },
    async removeFromBlocklist(domain) {
      const d = normalizeDomain(domain);
      blocklist = blocklist.filter((e) => e !== d);
      await persist(["blocklist"]);
    },
    // reset empties the blocklist and the audit log (the options page's
    // Reset); live sessions go on.
    async reset() {
      blocklist = [];
      history = [];
      await persist(["blocklist", "sessionHistory"]);
    },
    // reloadBlocklist picks up a list the options page stored directly.
    setBlocklistFromStorage(list) {
      blocklist = Array.isArray(list) ? [...new Set(list.map(normalizeDomain).filter(Boolean))] : [];
      for (const s of [...sessions.values()]) {
        if (blockedBy(s.domain, blocklist)) end(s.tabId, END_REASONS.DOMAIN_BLOCKED);
      }
      persist(ENDED_KEYS);
    },

    get(tabId) {
      const s = sessions.get(tabId);
      return s ? { ...s } : null;
    },
    list() {
      return [...sessions.values()].map((s) => ({ ...s }));
    },

    // ensureSession starts a session on the first action on tabId (event
    // session_started) and follows the tab's domain silently afterwards.
    ensureSession(tabId, domain) {
      const s = sessions.get(tabId);
      if (s) {
        if (s.domain !== domain) {
          s.domain = domain;
          persist(["activeSessions"]);
        }
        return { ...s };
      }
      const t = now();
      const fresh = { tabId, domain, startedAt: t, lastActionAt: t, actionCount: 0 };
      sessions.set(tabId, fresh);
      emit({ type: EVENTS.SESSION_STARTED, domain, tabId, startedAt: t });
      persist(["activeSessions"]);
      return { ...fresh };
    },
    recordAction(tabId) {
      const s = sessions.get(tabId);
      if (!s) return;
      s.actionCount++;
      s.lastActionAt = now();
      persistSoon();
      changed();
    },
    // touch marks a session most recently used without counting an action
    // (a fresh open_tab should win MRU resolution).
    touch(tabId) {
      const s = sessions.get(tabId);
      if (s) s.lastActionAt = now();
    },

    endSession(tabId, reason) {
      const ev = end(tabId, reason);
      if (ev) persist(ENDED_KEYS);
      return ev;
    },
    // endAll ends every session (idle, lock, Stop all) and returns how many.
    endAll(reason) {
      let n = 0;
      for (const tabId of [...sessions.keys()]) if (end(tabId, reason)) n++;
      if (n) persist(ENDED_KEYS);
      return n;
    },
    // tabRemoved reports a closed tab: tab_closed, then session_ended.
    tabRemoved(tabId) {
      if (stopped.delete(tabId) && !sessions.has(tabId)) persist(["stoppedTabs"]);
      if (!sessions.has(tabId)) return;
      emit({ type: EVENTS.TAB_CLOSED, tabId });
      this.endSession(tabId, END_REASONS.TAB_CLOSED);
    },
    get history() {
      return history.slice();
    },
    // flush writes a deferred recordAction now and resolves once every
    // queued storage write has landed.
    flush() {
      if (pending !== null) persist(["activeSessions"]);
      return writes;
    },
  };
}
