// The worker's UiService (services/ui-service.js;
// docs/extension.md#layering): composes the session manager, the ws-client,
// the pairing, the blocklist, the audit log and the handoff registry;
// answers the pages' runtime messages (handleMessage); pushes every state
// change to the pages' ports (connectPort) and to the toolbar badge.
// Everything chrome.* it uses comes in through chrome-api.js's object.

import {
  SERVICE_ERRORS,
  STATE_KIND,
  ServiceError,
  callLocal,
  errorResponse,
  okResponse,
  validateRequest,
} from "./ui-service.js";
import { badgeFor } from "./badge.js";
import { normalizeDomain, validateDomain } from "../core/domains.js";
import { normalizeCode } from "../transport/pairing.js";
import { END_REASONS, EVENTS } from "../generated/protocol.js";
import { connectionView } from "./connection-view.js";
import { NO_RECORDER, recordingMethods, recordingsState } from "./recording-service.js";

// PUSH_MS coalesces state pushes: a burst of actions (each one counted)
// reaches the pages and the badge as one update.
export const PUSH_MS = 50;
// TEST_TIMEOUT_MS is how long testConnection waits, by default, for the
// reconnect to settle.
export const TEST_TIMEOUT_MS = 5000;

// EMPTY_HANDOFFS stands in for the handoff registry where there is none:
// nobody is waited for.
export const EMPTY_HANDOFFS = Object.freeze({ list: () => [], subscribe: () => () => {} });

// createLocalUiService builds the worker's service. deps:
//   api: chrome-api.js's object (storage, tabs, windows, action)
//   sessions: session-manager.js
//   client: ws-client.js ({pairingChanged})
//   pairing: () => {kind, managed, url, token} (the worker's current pairing)
//   handoffs: {list(), subscribe(fn)} (handoff registry; EMPTY_HANDOFFS)
//   controller: {detach(tabId)} (sessions/controller.js)
//   recorder: {list(), subscribe(fn), stop, assertPage} (recorder/recorder.js; NO_RECORDER)
//   windows: {show(windowId)} (window-manager.js)
//   emit: (event) => void, the ws-client's sendEvent (global_stop)
//   claim: async (url, code) => {ok, url?, message?} (pairing.js claimCode)
//   timers: {setTimeout, clearTimeout}
export function createLocalUiService({ api, sessions, client, pairing, handoffs = EMPTY_HANDOFFS, controller, recorder = NO_RECORDER, windows, emit, claim, timers = globalThis }) {
  return new LocalUiService({ api, sessions, client, pairing, handoffs, controller, recorder, windows, emit, claim, timers });
}

class LocalUiService {
  #deps;
  #rawConnection = { state: "connecting" };
  #ports = new Set();
  #stateListeners = new Set();
  #connectionWaiters = new Set();
  #pushTimer = null;
  #lastBadge = null;
  #recording;

  constructor(deps) {
    this.#deps = deps;
    this.#recording = recordingMethods(deps.recorder);
    const schedule = () => this.#schedulePush();
    deps.sessions.onChange(schedule);
    deps.handoffs.subscribe(schedule);
    deps.recorder.subscribe(schedule);
  }

  #connection() {
    return connectionView(this.#rawConnection, this.#deps.pairing());
  }

  // The contract's methods (services/ui-service.js).

  async getState() {
    const { api, sessions, handoffs, recorder } = this.#deps;
    const live = sessions.list().sort((a, b) => a.startedAt - b.startedAt);
    const titles = await Promise.all(live.map((s) => titleOf(api, s.tabId)));
    return {
      connection: this.#connection(),
      sessions: live.map((s, i) => ({ tabId: s.tabId, domain: s.domain, title: titles[i], actionCount: s.actionCount, startedAt: s.startedAt })),
      handoffs: handoffs.list().map((h) => ({ tabId: h.tabId, domain: h.domain, obstacleType: h.obstacleType, message: h.message, since: h.since })),
      recordings: await recordingsState(recorder, (tabId) => titleOf(api, tabId)),
      blocklist: sessions.blocklist,
    };
  }

  // stopRecording and assertPage: the popup's Stop and checks on a
  // recording (services/recording-service.js).
  stopRecording(tabId) {
    return this.#recording.stopRecording(tabId);
  }

  assertPage(req) {
    return this.#recording.assertPage(req);
  }

  subscribeState(fn) {
    this.#stateListeners.add(fn);
    this.getState().then(fn, () => {});
    return () => this.#stateListeners.delete(fn);
  }

  async stopSession(tabId) {
    const { sessions, controller } = this.#deps;
    if (!sessions.get(tabId)) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `no bua session on tab ${tabId}: it has ended already`);
    // End first, so the requests pending on the tab fail at once; then
    // let go of the tab (Chrome's "debugging this browser" bar goes).
    sessions.endSession(tabId, END_REASONS.USER_STOPPED);
    await controller.detach(tabId).catch(() => {});
    return { endedCount: 1 };
  }

  async stopAll() {
    // global_stop goes out first: the daemon answers every request in
    // flight on this connection with "stopped by the user" at once,
    // whatever the detach then does to them (docs/cancellation.md#cancellation).
    const endedCount = this.#deps.sessions.list().length;
    this.#deps.emit({ type: EVENTS.GLOBAL_STOP, endedCount });
    await this.endAll(END_REASONS.GLOBAL_STOP);
    return { endedCount };
  }

  async focusTab(tabId) {
    const api = this.#deps.api;
    let tab;
    try {
      tab = await api.tabs.get(tabId);
    } catch {
      tab = null;
    }
    if (!tab) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `tab ${tabId} is closed`);
    await api.tabs.update(tabId, { active: true });
    await this.#deps.windows.show(tab.windowId);
    return {};
  }

  async getConfig() {
    const p = this.#deps.pairing();
    return { url: p.url, token: p.token, managed: !!p.managed, kind: p.kind };
  }

  async saveConfig({ url, token }) {
    this.#requireUser("pairing");
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
    await this.#deps.api.storage.set({ bridge_config: { url: u, token: t } });
    return {};
  }

  async claimCode({ url, code }) {
    this.#requireUser("pairing");
    if (!normalizeCode(code)) throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, "a pairing code looks like ABCD-2345: run `bua pair --code` to get one");
    const r = await this.#deps.claim(String(url).trim(), code);
    if (!r.ok) throw new ServiceError(SERVICE_ERRORS.CLAIM_FAILED, r.message);
    return { url: r.url };
  }

  async testConnection({ timeoutMs = TEST_TIMEOUT_MS } = {}) {
    const { timers, client } = this.#deps;
    const waiters = this.#connectionWaiters;
    const settled = new Promise((resolve) => {
      const waiter = (c) => {
        if (c.state === "connecting") return;
        waiters.delete(waiter);
        timers.clearTimeout(timer);
        resolve(c);
      };
      const timer = timers.setTimeout(() => {
        waiters.delete(waiter);
        resolve(this.#connection());
      }, timeoutMs);
      waiters.add(waiter);
    });
    client.pairingChanged();
    return settled;
  }

  async addBlocked(domain) {
    const { sessions, controller } = this.#deps;
    const v = validateDomain(domain);
    if (!v.ok) throw new ServiceError(SERVICE_ERRORS.INVALID_INPUT, v.message);
    const before = new Set(sessions.list().map((s) => s.tabId));
    await sessions.addToBlocklist([v.domain]);
    const ended = [...before].filter((id) => !sessions.get(id));
    await Promise.allSettled(ended.map((id) => controller.detach(id)));
    return { blocklist: sessions.blocklist, endedCount: ended.length };
  }

  async removeBlocked(domain) {
    const sessions = this.#deps.sessions;
    const d = normalizeDomain(domain);
    if (!sessions.blocklist.includes(d)) throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `${d || JSON.stringify(domain)} is not on the blocklist`);
    await sessions.removeFromBlocklist(d);
    return { blocklist: sessions.blocklist };
  }

  async getHistory() {
    return this.#deps.sessions.history;
  }

  async reset() {
    this.#requireUser("pairing and blocklist");
    await this.#deps.api.storage.remove("bridge_config");
    await this.#deps.sessions.reset();
    return {};
  }

  // The worker's own.

  // endAll ends every session with reason, detaches the debugger from
  // their tabs, and returns how many ended (the idle guard's: system_idle,
  // screen_locked; and Stop all's).
  async endAll(reason) {
    const { sessions, controller } = this.#deps;
    const tabIds = sessions.list().map((s) => s.tabId);
    const endedCount = sessions.endAll(reason);
    await Promise.allSettled(tabIds.map((id) => controller.detach(id)));
    return endedCount;
  }

  // setConnection takes every state ws-client publishes.
  setConnection(raw) {
    this.#rawConnection = raw || { state: "disconnected" };
    const c = this.#connection();
    for (const w of [...this.#connectionWaiters]) w(c);
    this.#schedulePush();
  }

  // handleMessage answers one runtime message: a response for the
  // contract's requests, null for anything else (another bus's).
  async handleMessage(msg) {
    const v = validateRequest(msg);
    if (v.foreign) return null;
    if (!v.ok) return errorResponse(SERVICE_ERRORS.BAD_REQUEST, v.message);
    try {
      return okResponse(await callLocal(this, v.op, v.args));
    } catch (e) {
      if (e instanceof ServiceError) return errorResponse(e.code, e.message);
      return errorResponse(SERVICE_ERRORS.INTERNAL, `the extension failed: ${e && e.message ? e.message : e}`);
    }
  }

  // connectPort serves one page's subscribeState port: the state now,
  // then at every change until the page goes.
  connectPort(port) {
    const ports = this.#ports;
    ports.add(port);
    port.onDisconnect.addListener(() => ports.delete(port));
    this.getState().then((state) => {
      if (ports.has(port)) port.postMessage({ kind: STATE_KIND, state });
    }, () => {});
  }

  // refreshBadge shows the current state on the badge now (worker start).
  refreshBadge() {
    return this.#push();
  }

  #requireUser(what) {
    if (this.#deps.pairing().managed) {
      throw new ServiceError(SERVICE_ERRORS.MANAGED, `this browser was started by \`bua browser start\`: its ${what} comes from the daemon and cannot be changed here`);
    }
  }

  #schedulePush() {
    if (this.#pushTimer !== null) return;
    this.#pushTimer = this.#deps.timers.setTimeout(() => this.#push().catch((e) => console.error("[bua] state push failed", e)), PUSH_MS);
  }

  // push sends the current state to every port and listener, and the badge.
  async #push() {
    this.#pushTimer = null;
    const state = await this.getState();
    for (const port of [...this.#ports]) {
      try {
        port.postMessage({ kind: STATE_KIND, state });
      } catch {
        this.#ports.delete(port); // its page closed
      }
    }
    for (const fn of [...this.#stateListeners]) fn(state);
    await this.#applyBadge(state);
  }

  async #applyBadge(state) {
    const api = this.#deps.api;
    if (!api.action) return;
    const b = badgeFor(state);
    const key = `${b.text}|${b.color}|${b.title}`;
    if (key === this.#lastBadge) return;
    this.#lastBadge = key;
    await Promise.all([
      api.action.setBadgeText({ text: b.text }),
      api.action.setBadgeBackgroundColor({ color: b.color }),
      api.action.setTitle({ title: b.title }),
    ]).catch(() => {
      this.#lastBadge = null;
    });
  }
}

async function titleOf(api, tabId) {
  try {
    const tab = await api.tabs.get(tabId);
    return (tab && tab.title) || "";
  } catch {
    return "";
  }
}
