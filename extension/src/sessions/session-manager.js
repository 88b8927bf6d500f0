// Sessions keyed by tabId, the domain blocklist, and session events
// (docs/protocol.md#events, docs/extension.md#state-ownership). State survives the
// worker being killed: activeSessions, blocklist, sessionHistory (the audit
// log: {tabId, domain, startedAt, endedAt, actionCount, reason}, at most
// HISTORY_MAX) and stoppedTabs live in chrome.storage.local and are read
// back by init(). onEnded and onChange let the dispatcher (to end a
// stopped session's requests) and the UI service (to push state) follow.

import { END_REASONS, EVENTS } from "../generated/protocol.js";
import { normalizeDomain, blockedBy } from "../core/domains.js";

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
// debugger-bar Cancel (debugger_detached). docs/cancellation.md#cancellation: after
// them every later action on that tab fails with session_not_found, for
// as long as the tab lives; a new tab (open_tab) starts afresh.
export const STOP_REASONS = Object.freeze([END_REASONS.USER_STOPPED, END_REASONS.GLOBAL_STOP, END_REASONS.DEBUGGER_DETACHED]);

const ENDED_KEYS = ["activeSessions", "sessionHistory", "stoppedTabs"];

// createSessionManager({storage, emit, now, timers}): storage is
// chrome.storage.local (chrome-api.js), emit sends a protocol event.
export function createSessionManager({ storage, emit, now = Date.now, timers = globalThis }) {
  return new SessionManager(storage, emit, now, timers);
}

class SessionManager {
  #storage;
  #emit;
  #now;
  #timers;
  #sessions = new Map(); // tabId -> {tabId, domain, startedAt, lastActionAt, actionCount}
  #blocklist = [];
  #history = [];
  #stopped = new Map(); // tabId -> the STOP_REASONS reason its session ended with
  #endedListeners = new Set();
  #changeListeners = new Set();
  #writes = Promise.resolve();
  #pending = null; // the timer of recordAction's deferred write

  constructor(storage, emit, now, timers) {
    this.#storage = storage;
    this.#emit = emit;
    this.#now = now;
    this.#timers = timers;
  }

  // init rehydrates from storage; call once per worker start, before use.
  async init() {
    const got = await this.#storage.get(["activeSessions", "blocklist", "sessionHistory", "stoppedTabs"]);
    this.#sessions.clear();
    this.#stopped.clear();
    for (const x of Array.isArray(got.stoppedTabs) ? got.stoppedTabs : []) {
      if (x && Number.isInteger(x.tabId) && STOP_REASONS.includes(x.reason)) this.#stopped.set(x.tabId, x.reason);
    }
    for (const s of Array.isArray(got.activeSessions) ? got.activeSessions : []) {
      if (s && Number.isInteger(s.tabId)) this.#sessions.set(s.tabId, { ...s });
    }
    this.#blocklist = Array.isArray(got.blocklist) ? [...new Set(got.blocklist.map(normalizeDomain).filter(Boolean))] : [];
    this.#history = Array.isArray(got.sessionHistory) ? got.sessionHistory.slice(-HISTORY_MAX) : [];
  }

  // onEnded calls fn with every session_ended event, synchronously, as
  // the session ends. Returns the unsubscribe function.
  onEnded(fn) {
    this.#endedListeners.add(fn);
    return () => this.#endedListeners.delete(fn);
  }

  // onChange calls fn() after sessions, the blocklist or the history
  // changed (an action counted included). Returns the unsubscribe.
  onChange(fn) {
    this.#changeListeners.add(fn);
    return () => this.#changeListeners.delete(fn);
  }

  // stoppedReason is the STOP_REASONS reason tabId's session ended with,
  // or null: such a tab gets no new session until it closes.
  stoppedReason(tabId) {
    return this.#stopped.get(tabId) || null;
  }

  isDomainBlocked(host) {
    return blockedBy(host, this.#blocklist);
  }

  get blocklist() {
    return [...this.#blocklist];
  }

  // addToBlocklist merges domains in (a managed pairing seeds its list this
  // way) and ends sessions now on a blocked domain.
  async addToBlocklist(domains) {
    const add = domains.map(normalizeDomain).filter(Boolean);
    this.#blocklist = [...new Set([...this.#blocklist, ...add])];
    this.#endBlocked();
    await this.#persist(["blocklist", ...ENDED_KEYS]);
  }

  async removeFromBlocklist(domain) {
    const d = normalizeDomain(domain);
    this.#blocklist = this.#blocklist.filter((e) => e !== d);
    await this.#persist(["blocklist"]);
  }

  // reset empties the blocklist and the audit log (the options page's
  // Reset); live sessions go on.
  async reset() {
    this.#blocklist = [];
    this.#history = [];
    await this.#persist(["blocklist", "sessionHistory"]);
  }

  // setBlocklistFromStorage picks up a list the options page stored
  // directly.
  setBlocklistFromStorage(list) {
    this.#blocklist = Array.isArray(list) ? [...new Set(list.map(normalizeDomain).filter(Boolean))] : [];
    this.#endBlocked();
    this.#persist(ENDED_KEYS);
  }

  #endBlocked() {
    for (const s of [...this.#sessions.values()]) {
      if (blockedBy(s.domain, this.#blocklist)) this.#end(s.tabId, END_REASONS.DOMAIN_BLOCKED);
    }
  }

  get(tabId) {
    const s = this.#sessions.get(tabId);
    return s ? { ...s } : null;
  }

  list() {
    return [...this.#sessions.values()].map((s) => ({ ...s }));
  }

  // ensureSession starts a session on the first action on tabId (event
  // session_started) and follows the tab's domain silently afterwards.
  ensureSession(tabId, domain) {
    const s = this.#sessions.get(tabId);
    if (s) {
      if (s.domain !== domain) {
        s.domain = domain;
        this.#persist(["activeSessions"]);
      }
      return { ...s };
    }
    const t = this.#now();
    const fresh = { tabId, domain, startedAt: t, lastActionAt: t, actionCount: 0 };
    this.#sessions.set(tabId, fresh);
    this.#emit({ type: EVENTS.SESSION_STARTED, domain, tabId, startedAt: t });
    this.#persist(["activeSessions"]);
    return { ...fresh };
  }

  recordAction(tabId) {
    const s = this.#sessions.get(tabId);
    if (!s) return;
    s.actionCount++;
    s.lastActionAt = this.#now();
    this.#persistSoon();
    this.#changed();
  }

  // touch marks a session most recently used without counting an action
  // (a fresh open_tab should win MRU resolution).
  touch(tabId) {
    const s = this.#sessions.get(tabId);
    if (s) s.lastActionAt = this.#now();
  }

  endSession(tabId, reason) {
    const ev = this.#end(tabId, reason);
    if (ev) this.#persist(ENDED_KEYS);
    return ev;
  }

  // endAll ends every session (idle, lock, Stop all) and returns how many.
  endAll(reason) {
    let n = 0;
    for (const tabId of [...this.#sessions.keys()]) if (this.#end(tabId, reason)) n++;
    if (n) this.#persist(ENDED_KEYS);
    return n;
  }

  // tabRemoved reports a closed tab: tab_closed, then session_ended.
  tabRemoved(tabId) {
    if (this.#stopped.delete(tabId) && !this.#sessions.has(tabId)) this.#persist(["stoppedTabs"]);
    if (!this.#sessions.has(tabId)) return;
    this.#emit({ type: EVENTS.TAB_CLOSED, tabId });
    this.endSession(tabId, END_REASONS.TAB_CLOSED);
  }

  get history() {
    return this.#history.slice();
  }

  // flush writes a deferred recordAction now and resolves once every
  // queued storage write has landed.
  flush() {
    if (this.#pending !== null) this.#persist(["activeSessions"]);
    return this.#writes;
  }

  // persist serialises writes so a slow set cannot land after a newer one.
  #persist(keys) {
    const items = {};
    if (keys.includes("activeSessions")) {
      items.activeSessions = [...this.#sessions.values()];
      this.#cancelPending(); // this write carries the recorded actions too
    }
    if (keys.includes("blocklist")) items.blocklist = this.#blocklist;
    if (keys.includes("sessionHistory")) items.sessionHistory = this.#history;
    if (keys.includes("stoppedTabs")) items.stoppedTabs = [...this.#stopped].map(([tabId, reason]) => ({ tabId, reason }));
    this.#changed();
    this.#writes = this.#writes.then(() => this.#storage.set(items)).catch(() => {});
    return this.#writes;
  }

  // persistSoon writes the sessions RECORD_WRITE_MS from the first call
  // that finds no write pending.
  #persistSoon() {
    if (this.#pending !== null) return;
    this.#pending = this.#timers.setTimeout(() => {
      this.#pending = null;
      this.#persist(["activeSessions"]);
    }, RECORD_WRITE_MS);
  }

  #cancelPending() {
    if (this.#pending === null) return;
    this.#timers.clearTimeout(this.#pending);
    this.#pending = null;
  }

  // changed tells the change listeners (the UI service) that sessions,
  // the blocklist or the history moved; they read what they need.
  #changed() {
    for (const fn of [...this.#changeListeners]) {
      try {
        fn();
      } catch (e) {
        console.error("[bua] session change listener failed", e);
      }
    }
  }

  #end(tabId, reason) {
    const s = this.#sessions.get(tabId);
    if (!s) return null;
    this.#sessions.delete(tabId);
    if (STOP_REASONS.includes(reason)) this.#stopped.set(tabId, reason);
    const ev = { type: EVENTS.SESSION_ENDED, domain: s.domain, tabId, actionCount: s.actionCount, reason };
    this.#history.push({ tabId, domain: s.domain, startedAt: s.startedAt, endedAt: this.#now(), actionCount: s.actionCount, reason });
    if (this.#history.length > HISTORY_MAX) this.#history = this.#history.slice(-HISTORY_MAX);
    this.#emit(ev);
    for (const fn of [...this.#endedListeners]) {
      try {
        fn(ev);
      } catch (e) {
        console.error("[bua] session end listener failed", e);
      }
    }
    return ev;
  }
}
