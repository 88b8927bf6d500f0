// Sessions keyed by tabId, the domain blocklist, and session events
// (protocol v4 §Events, spec 001 §State Ownership). State survives the
// worker being killed: activeSessions, blocklist and sessionHistory live in
// chrome.storage.local and are read back by init().

import { END_REASONS, EVENTS } from "./generated/protocol.js";

const HISTORY_MAX = 1000;

// RECORD_WRITE_MS is how long recordAction waits before it writes the
// sessions: the counts and times of the actions of that second go out in
// one chrome.storage.local write instead of one write per action. A worker
// killed meanwhile loses at most that last second of actionCount and
// lastActionAt; sessions starting, changing domain or ending are written
// at once (spec 001 §State Ownership).
export const RECORD_WRITE_MS = 1000;

// normalizeDomain lower-cases and strips scheme, port, path, a leading
// "*." and trailing dot, so "https://Example.com:8080/x" blocks example.com.
export function normalizeDomain(d) {
  let s = String(d || "").trim().toLowerCase();
  if (!s) return "";
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/[/?#].*$/, "").replace(/^\*\./, "");
  if (!s.startsWith("[")) s = s.replace(/:\d+$/, "");
  return s.replace(/\.$/, "");
}

// hostOf returns the lower-case host of an http(s) URL, or "" for
// about:blank and other schemes.
export function hostOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname.toLowerCase() : "";
  } catch {
    return "";
  }
}

// blockedBy returns the blocklist entry that host falls under (equal, or a
// subdomain: "a.example.com" is under "example.com", "badexample.com" is
// not), or null.
export function blockedBy(host, blocklist) {
  const h = normalizeDomain(host);
  if (!h) return null;
  for (const entry of blocklist) {
    if (h === entry || h.endsWith("." + entry)) return entry;
  }
  return null;
}

export function createSessionManager({ storage, emit, now = Date.now, timers = globalThis }) {
  const sessions = new Map(); // tabId -> {tabId, domain, startedAt, lastActionAt, actionCount}
  let blocklist = [];
  let history = [];
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

  function end(tabId, reason) {
    const s = sessions.get(tabId);
    if (!s) return null;
    sessions.delete(tabId);
    const ev = { type: EVENTS.SESSION_ENDED, domain: s.domain, tabId, actionCount: s.actionCount, reason };
    history.push({ ...s, endedAt: now(), reason });
    if (history.length > HISTORY_MAX) history = history.slice(-HISTORY_MAX);
    emit(ev);
    return ev;
  }

  return {
    // init rehydrates from storage; call once per worker start, before use.
    async init() {
      const got = await storage.get(["activeSessions", "blocklist", "sessionHistory"]);
      sessions.clear();
      for (const s of Array.isArray(got.activeSessions) ? got.activeSessions : []) {
        if (s && Number.isInteger(s.tabId)) sessions.set(s.tabId, { ...s });
      }
      blocklist = Array.isArray(got.blocklist) ? [...new Set(got.blocklist.map(normalizeDomain).filter(Boolean))] : [];
      history = Array.isArray(got.sessionHistory) ? got.sessionHistory : [];
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
      await persist(["blocklist", "activeSessions", "sessionHistory"]);
    },
    async removeFromBlocklist(domain) {
      const d = normalizeDomain(domain);
      blocklist = blocklist.filter((e) => e !== d);
      await persist(["blocklist"]);
    },
    // reloadBlocklist picks up a list the options page stored directly.
    setBlocklistFromStorage(list) {
      blocklist = Array.isArray(list) ? [...new Set(list.map(normalizeDomain).filter(Boolean))] : [];
      for (const s of [...sessions.values()]) {
        if (blockedBy(s.domain, blocklist)) end(s.tabId, END_REASONS.DOMAIN_BLOCKED);
      }
      persist(["activeSessions", "sessionHistory"]);
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
    },
    // touch marks a session most recently used without counting an action
    // (a fresh open_tab should win MRU resolution).
    touch(tabId) {
      const s = sessions.get(tabId);
      if (s) s.lastActionAt = now();
    },

    endSession(tabId, reason) {
      const ev = end(tabId, reason);
      if (ev) persist(["activeSessions", "sessionHistory"]);
      return ev;
    },
    // endAll ends every session (idle, lock, Stop all) and returns how many.
    endAll(reason) {
      let n = 0;
      for (const tabId of [...sessions.keys()]) if (end(tabId, reason)) n++;
      if (n) persist(["activeSessions", "sessionHistory"]);
      return n;
    },
    // tabRemoved reports a closed tab: tab_closed, then session_ended.
    tabRemoved(tabId) {
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
