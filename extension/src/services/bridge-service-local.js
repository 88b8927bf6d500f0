// The worker's BridgeService (contracts/bridge-service.js;
// docs/extension.md#layering): composes the session manager, the ws-client,
// the pairing, the blocklist, the audit log and the handoff registry;
// answers the pages' runtime messages (handleMessage); pushes every state
// change to the pages' ports (connectPort) and to the toolbar badge.
// Everything chrome.* it uses comes in through chrome-api.js's object.

import {
  CONNECTION_STATES,
  SERVICE_ERRORS,
  STATE_KIND,
  ServiceError,
  callLocal,
  errorResponse,
  okResponse,
  validateRequest,
} from "../contracts/bridge-service.js";
import { badgeFor } from "../badge.js";
import { normalizeDomain, validateDomain } from "../lib/domains.js";
import { normalizeCode } from "../pairing.js";
import { CLOSE_CODES, END_REASONS, EVENTS } from "../generated/protocol.js";

// PUSH_MS coalesces state pushes: a burst of actions (each one counted)
// reaches the pages and the badge as one update.
export const PUSH_MS = 50;
// TEST_TIMEOUT_MS is how long testConnection waits, by default, for the
// reconnect to settle.
export const TEST_TIMEOUT_MS = 5000;

// EMPTY_HANDOFFS stands in for the handoff registry where there is none:
// nobody is waited for.
export const EMPTY_HANDOFFS = Object.freeze({ list: () => [], subscribe: () => () => {} });

// connectionView turns ws-client's published state ({state, reason,
// closeCode, code, url, …}) into the contract's ConnectionState, with the
// fix a person can apply. ws-client's "error" (a daemon URL that cannot
// be dialled) is terminal like a reject, so it shows as rejected.
export function connectionView(raw, pairing) {
  const r = raw || {};
  let state = r.state === "error" ? "rejected" : r.state;
  if (!CONNECTION_STATES.includes(state)) state = r.state === "idle" || r.state === undefined ? "connecting" : "disconnected";
  const kind = (pairing && pairing.kind) || "default";
  const out = { state, url: r.url || (pairing && pairing.url) || "", kind };
  if (r.reason) out.reason = String(r.reason);
  if (Number.isInteger(r.closeCode) && r.closeCode > 0) out.closeCode = r.closeCode;
  const fix = fixFor(r, state, kind);
  if (fix) out.fix = fix;
  return out;
}

function fixFor(r, state, kind) {
  const managed = kind === "managed";
  switch (state) {
    case "rejected":
      if (r.state === "error") return "Fix the daemon URL on the options page: it looks like ws://127.0.0.1:48123/ws/browser.";
      if (r.closeCode === CLOSE_CODES.versionMismatch) {
        return "This extension and the bua daemon speak different protocol versions: run `bua extension path` and reload the extension from that folder in chrome://extensions.";
      }
      if (managed) return "Restart the managed browser: `bua browser stop`, then `bua browser start`.";
      return "Pair again: run `bua pair --code` and type the code on the options page (or paste the token `bua pair` prints), then Save.";
    case "replaced":
      return managed
        ? "Another browser took this pairing. Restart the managed browser: `bua browser stop`, then `bua browser start`."
        : "Another browser took this pairing. To use this one again, press Test connection on the options page.";
    case "disconnected":
      return "Start the daemon with `bua serve` (the extension retries every few seconds).";
    default:
      return "";
  }
}

// createLocalBridgeService builds the worker's service. deps:
//   api: chrome-api.js's object (storage, tabs, windows, action)
//   sessions: session-manager.js
//   client: ws-client.js ({pairingChanged})
//   pairing: () => {kind, managed, url, token} (the worker's current pairing)
//   handoffs: {list(), subscribe(fn)} (handoff registry; EMPTY_HANDOFFS)
//   controller: {detach(tabId)} (debugger-controller.js)
//   windows: {show(windowId)} (window-manager.js)
//   emit: (event) => void, the ws-client's sendEvent (global_stop)
//   claim: async (url, code) => {ok, url?, message?} (pairing.js claimCode)
//   timers: {setTimeout, clearTimeout}
export function createLocalBridgeService({ api, sessions, client, pairing, handoffs = EMPTY_HANDOFFS, controller, windows, emit, claim, timers = globalThis }) {
  let rawConnection = { state: "connecting" };
  const ports = new Set();
  const stateListeners = new Set();
  const connectionWaiters = new Set();
  let pushTimer = null;
  let lastBadge = null;

  const connection = () => connectionView(rawConnection, pairing());

  async function titleOf(tabId) {
    try {
      const tab = await api.tabs.get(tabId);
      return (tab && tab.title) || "";
    } catch {
      return "";
    }
  }

  async function getState() {
    const live = sessions.list().sort((a, b) => a.startedAt - b.startedAt);
    const titles = await Promise.all(live.map((s) => titleOf(s.tabId)));
    return {
      connection: connection(),
      sessions: live.map((s, i) => ({ tabId: s.tabId, domain: s.domain, title: titles[i], actionCount: s.actionCount, startedAt: s.startedAt })),
      handoffs: handoffs.list().map((h) => ({ tabId: h.tabId, domain: h.domain, obstacleType: h.obstacleType, message: h.message, since: h.since })),
      blocklist: sessions.blocklist,
    };
  }

  async function applyBadge(state) {
    if (!api.action) return;
    const b = badgeFor(state);
    const key = `${b.text}|${b.color}|${b.title}`;
    if (key === lastBadge) return;
    lastBadge = key;
    await Promise.all([
      api.action.setBadgeText({ text: b.text }),
      api.action.setBadgeBackgroundColor({ color: b.color }),
      api.action.setTitle({ title: b.title }),
    ]).catch(() => {
      lastBadge = null;
    });
  }

  // push sends the current state to every port and listener, and the badge.
  async function push() {
    pushTimer = null;
    const state = await getState();
    for (const port of [...ports]) {
      try {
        port.postMessage({ kind: STATE_KIND, state });
      } catch {
        ports.delete(port); // its page closed
      }
    }
    for (const fn of [...stateListeners]) fn(state);
    await applyBadge(state);
  }

  function schedulePush() {
    if (pushTimer !== null) return;
    pushTimer = timers.setTimeout(() => push().catch((e) => console.error("[bua] state push failed", e)), PUSH_MS);
  }

  sessions.onChange(schedulePush);
  handoffs.subscribe(schedulePush);

  // endSessions ends every session with reason, detaches the debugger from
  // their tabs, and returns how many ended.
  async function endSessions(reason) {
    const tabIds = sessions.list().map((s) => s.tabId);
    const endedCount = sessions.endAll(reason);
    await Promise.allSettled(tabIds.map((id) => controller.detach(id)));
    return endedCount;
  }

  function requireUser(what) {
    if (pairing().managed) {
      throw new ServiceError(SERVICE_ERRORS.MANAGED, `this browser was started by \`bua browser start\`: its ${what} comes from the daemon and cannot be changed here`);
    }
  }

  const service = {
    getState,
    subscribeState(fn) {
      stateListeners.add(fn);
      getState().then(fn, () => {});
      return () => stateListeners.delete(fn);
    },

    async stopSession(tabId) {
      if (!sessions.get(tabId)) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `no bua session on tab ${tabId}: it has ended already`);
      // End first, so the requests pending on the tab fail at once; then
      // let go of the tab (Chrome's "debugging this browser" bar goes).
      sessions.endSession(tabId, END_REASONS.USER_STOPPED);
      await controller.detach(tabId).catch(() => {});
      return { endedCount: 1 };
    },

    async stopAll() {
      // global_stop goes out first: the daemon answers every request in
      // flight on this connection with "stopped by the user" at once,
      // whatever the detach then does to them (docs/architecture.md#cancellation).
      const endedCount = sessions.list().length;
      emit({ type: EVENTS.GLOBAL_STOP, endedCount });
      await endSessions(END_REASONS.GLOBAL_STOP);
      return { endedCount };
    },

    async focusTab(tabId) {
      let tab;
      try {
        tab = await api.tabs.get(tabId);
      } catch {
        tab = null;
      }
      if (!tab) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `tab ${tabId} is closed`);
      await api.tabs.update(tabId, { active: true });
      await windows.show(tab.windowId);
      return {};
    },

    async getConfig() {
      const p = pairing();
      return { url: p.url, token: p.token, managed: !!p.managed, kind: p.kind };
    },

    async saveConfig({ url, token }) {
      requireUser("pairing");
      const u = String(url).trim();
      let parsed;
      try {
        parsed = new URL(u);
      } catch {
        throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, `"${u}" is not a URL: the daemon's looks like ws://127.0.0.1:48123/ws/browser`);
      }
      if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
        throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, `the daemon URL must start with ws:// or wss:// (got ${parsed.protocol}//)`);
      }
      const t = String(token).trim();
      if (!t) throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, "paste the token `bua pair` prints, or pair with a one-time code instead");
      // The worker follows bridge_config's storage change and reconnects.
      await api.storage.set({ bridge_config: { url: u, token: t } });
      return {};
    },

    async claimCode({ url, code }) {
      requireUser("pairing");
      if (!normalizeCode(code)) throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, "a pairing code looks like ABCD-2345: run `bua pair --code` to get one");
      const r = await claim(String(url).trim(), code);
      if (!r.ok) throw new ServiceError(SERVICE_ERRORS.CLAIM_FAILED, r.message);
      return { url: r.url };
    },

    async testConnection({ timeoutMs = TEST_TIMEOUT_MS } = {}) {
      const settled = new Promise((resolve) => {
        const waiter = (c) => {
          if (c.state === "connecting") return;
          connectionWaiters.delete(waiter);
          timers.clearTimeout(timer);
          resolve(c);
        };
        const timer = timers.setTimeout(() => {
          connectionWaiters.delete(waiter);
          resolve(connection());
        }, timeoutMs);
        connectionWaiters.add(waiter);
      });
      client.pairingChanged();
      return settled;
    },

    async addBlocked(domain) {
      const v = validateDomain(domain);
      if (!v.ok) throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, v.message);
      const before = new Set(sessions.list().map((s) => s.tabId));
      await sessions.addToBlocklist([v.domain]);
      const ended = [...before].filter((id) => !sessions.get(id));
      await Promise.allSettled(ended.map((id) => controller.detach(id)));
      return { blocklist: sessions.blocklist, endedCount: ended.length };
    },

    async removeBlocked(domain) {
      const d = normalizeDomain(domain);
      if (!sessions.blocklist.includes(d)) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `${d || JSON.stringify(domain)} is not on the blocklist`);
      await sessions.removeFromBlocklist(d);
      return { blocklist: sessions.blocklist };
    },

    async getHistory() {
      return sessions.history;
    },

    async reset() {
      requireUser("pairing and blocklist");
      await api.storage.remove("bridge_config");
      await sessions.reset();
      return {};
    },
  };

  return {
    ...service,
    // endAll is the idle guard's: ends every session with reason and
    // detaches (system_idle, screen_locked).
    endAll: endSessions,

    // setConnection takes every state ws-client publishes.
    setConnection(raw) {
      rawConnection = raw || { state: "disconnected" };
      const c = connection();
      for (const w of [...connectionWaiters]) w(c);
      schedulePush();
    },

    // handleMessage answers one runtime message: a response for the
    // contract's requests, null for anything else (another bus's).
    async handleMessage(msg) {
      const v = validateRequest(msg);
      if (v.foreign) return null;
      if (!v.ok) return errorResponse(SERVICE_ERRORS.BAD_REQUEST, v.message);
      try {
        return okResponse(await callLocal(service, v.op, v.args));
      } catch (e) {
        if (e instanceof ServiceError) return errorResponse(e.code, e.message);
        return errorResponse(SERVICE_ERRORS.INTERNAL, `the extension failed: ${e && e.message ? e.message : e}`);
      }
    },

    // connectPort serves one page's subscribeState port: the state now,
    // then at every change until the page goes.
    connectPort(port) {
      ports.add(port);
      port.onDisconnect.addListener(() => ports.delete(port));
      getState().then((state) => {
        if (ports.has(port)) port.postMessage({ kind: STATE_KIND, state });
      }, () => {});
    },

    // refreshBadge shows the current state on the badge now (worker start).
    refreshBadge: () => push(),
  };
}
