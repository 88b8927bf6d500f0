// The contract → service layering (docs/extension.md#layering): the
// runtime messages' validation, the runtime proxy talking to the local
// service through a fake chrome.runtime, state pushes to ports, the badge,
// and the service's config, blocklist, history and reset calls.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  METHODS,
  MESSAGE_KIND,
  OPS,
  STATE_PORT,
  ServiceError,
  request,
  unwrapResponse,
  validateRequest,
} from "../src/services/ui-service.js";
import { createLocalUiService, PUSH_MS } from "../src/services/ui-service-local.js";
import { connectionView } from "../src/services/connection-view.js";
import { createRuntimeUiService } from "../src/services/ui-service-runtime.js";
import { badgeFor, BADGE_COLORS } from "../src/services/badge.js";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { sleep } from "../src/core/cdp.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

// fakeHandoffs is the handoff registry's interface ({list, subscribe}),
// with add() for the test.
function fakeHandoffs() {
  const items = [];
  const fns = new Set();
  return {
    list: () => items.slice(),
    subscribe(fn) {
      fns.add(fn);
      return () => fns.delete(fn);
    },
    add(h) {
      items.push(h);
      for (const fn of fns) fn();
    },
  };
}

async function setup({ managed = false, stored = {} } = {}) {
  const api = createFakeApi();
  for (const [k, v] of Object.entries(stored)) api.storeMap.set(k, v);
  const badge = [];
  api.action = {
    setBadgeText: async (d) => badge.push(["text", d.text]),
    setBadgeBackgroundColor: async (d) => badge.push(["color", d.color]),
    setTitle: async (d) => badge.push(["title", d.title]),
  };
  const win = api.mkWindow({ focused: false, state: "minimized" });
  const tab = api.mkTab(win.id, "http://a.test/");
  api.tabsMap.get(tab.id).title = "Page A";
  const events = [];
  const sessions = createSessionManager({ storage: api.storage, emit: (e) => events.push(e) });
  await sessions.init();
  const handoffs = fakeHandoffs();
  const client = { reconnects: 0, pairingChanged() { this.reconnects++; } };
  const pairing = managed
    ? { kind: "managed", managed: true, url: "ws://127.0.0.1:9/ws/browser", token: "m" }
    : { kind: "user", managed: false, url: "ws://127.0.0.1:9/ws/browser", token: "tok" };
  const claims = [];
  const local = createLocalUiService({
    api,
    sessions,
    client,
    pairing: () => pairing,
    handoffs,
    controller: { detach: async () => {} },
    windows: createWindowManager({ api }),
    emit: (e) => events.push(e),
    claim: async (url, code) => {
      claims.push([url, code]);
      return code === "ABCD-2345" ? { ok: true, url } : { ok: false, message: "pairing refused: code used or expired" };
    },
  });
  return { api, badge, win, tab, sessions, handoffs, client, local, events, claims };
}

// fakeRuntime connects a runtime proxy to the local service the way
// chrome.runtime does: sendMessage through JSON (structured clone), and
// ports with onMessage/onDisconnect.
function fakeRuntime(local) {
  const sent = [];
  return {
    sent,
    async sendMessage(msg) {
      sent.push(msg);
      const resp = await local.handleMessage(JSON.parse(JSON.stringify(msg)));
      return resp === null ? undefined : JSON.parse(JSON.stringify(resp));
    },
    connect({ name }) {
      assert.equal(name, STATE_PORT);
      const pageListeners = [];
      const workerDisconnect = [];
      const workerSide = {
        name,
        postMessage: (m) => pageListeners.forEach((fn) => fn(JSON.parse(JSON.stringify(m)))),
        onDisconnect: { addListener: (fn) => workerDisconnect.push(fn) },
      };
      local.connectPort(workerSide);
      return {
        onMessage: { addListener: (fn) => pageListeners.push(fn) },
        onDisconnect: { addListener() {} },
        disconnect: () => workerDisconnect.forEach((fn) => fn()),
      };
    },
  };
}

test("the contract: every method has its own op, requests are checked, foreign messages left alone", () => {
  const ops = Object.values(METHODS).map((m) => m.op);
  assert.deepEqual([...new Set(ops)].sort(), Object.values(OPS).sort(), "one op per method, every op used");
  assert.ok(Object.isFrozen(OPS) && Object.isFrozen(METHODS));
  const cases = [
    [{ kind: "something_else", op: "stop_all" }, { foreign: true }],
    [null, { foreign: true }],
    [request(OPS.STOP_ALL), { ok: true }],
    [request(OPS.STOP_SESSION, { tabId: 5 }), { ok: true }],
    [request(OPS.STOP_SESSION, { tabId: "5" }), { message: /tabId must be a tab id/ }],
    [request(OPS.STOP_SESSION, {}), { message: /tabId must be/ }],
    [request(OPS.STOP_ALL, { tabId: 1 }), { message: /unexpected argument "tabId"/ }],
    [request("launch_missiles"), { message: /unknown op "launch_missiles"/ }],
    [{ kind: MESSAGE_KIND, op: OPS.ADD_BLOCKED, args: ["x"] }, { message: /args must be an object/ }],
    [request(OPS.TEST_CONNECTION), { ok: true }],
    [request(OPS.TEST_CONNECTION, { timeoutMs: 0 }), { message: /1-60000 ms/ }],
    [request(OPS.SAVE_CONFIG, { url: "ws://x", token: 3 }), { message: /token must be a string/ }],
  ];
  for (const [msg, want] of cases) {
    const v = validateRequest(msg);
    if (want.foreign) assert.equal(v.foreign, true, JSON.stringify(msg));
    else if (want.ok) assert.equal(v.ok, true, `${JSON.stringify(msg)}: ${v.message}`);
    else {
      assert.equal(v.ok, false, JSON.stringify(msg));
      assert.match(v.message, want.message);
    }
  }
  assert.throws(() => unwrapResponse("get_state", undefined), (e) => e instanceof ServiceError && e.code === "disconnected" && /did not answer get_state/.test(e.message));
  assert.throws(() => unwrapResponse("x", { ok: false, error: { code: "invalid_input", message: "bad" } }), (e) => e.code === "invalid_input");
});

test("the runtime proxy implements every contract method, and the local service answers each", async () => {
  const { local } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  for (const m of [...Object.keys(METHODS), "subscribeState"]) {
    assert.equal(typeof remote[m], "function", `runtime service lacks ${m}`);
    assert.equal(typeof local[m], "function", `local service lacks ${m}`);
  }
  assert.equal(await local.handleMessage({ kind: "other" }), null, "another bus's message gets no answer");
  const bad = await local.handleMessage({ kind: MESSAGE_KIND, op: "nope" });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, "bad_request");
});

test("getState over the runtime: connection with reason and fix, sessions with titles, handoffs, blocklist", async () => {
  const { local, sessions, tab, handoffs } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  sessions.ensureSession(tab.id, "a.test");
  sessions.recordAction(tab.id);
  await sessions.addToBlocklist(["blocked.test"]);
  handoffs.add({ tabId: tab.id, domain: "a.test", obstacleType: "captcha", message: "solve it", since: 5 });
  local.setConnection({ state: "rejected", reason: "bad pairing token", closeCode: 4002 });
  const s = await remote.getState();
  assert.equal(s.connection.state, "rejected");
  assert.equal(s.connection.reason, "bad pairing token");
  assert.equal(s.connection.closeCode, 4002);
  assert.match(s.connection.fix, /bua pair --code/);
  assert.equal(s.connection.url, "ws://127.0.0.1:9/ws/browser");
  assert.equal(s.connection.kind, "user");
  assert.deepEqual(s.sessions.map(({ tabId, domain, title, actionCount }) => ({ tabId, domain, title, actionCount })), [{ tabId: tab.id, domain: "a.test", title: "Page A", actionCount: 1 }]);
  assert.ok(Number.isInteger(s.sessions[0].startedAt));
  assert.deepEqual(s.handoffs, [{ tabId: tab.id, domain: "a.test", obstacleType: "captcha", message: "solve it", since: 5 }]);
  assert.deepEqual(s.blocklist, ["blocked.test"]);
});

test("connection states map to the contract's five, each not-connected one with a fix", () => {
  const p = { kind: "user", url: "ws://u" };
  const cases = [
    [{ state: "connected" }, "connected", null],
    [{ state: "connecting" }, "connecting", null],
    [{ state: "disconnected", reason: "closed with 1006", closeCode: 1006 }, "disconnected", /bua serve/],
    [{ state: "replaced", closeCode: 4003 }, "replaced", /Test connection/],
    [{ state: "rejected", closeCode: 4001 }, "rejected", /bua extension path/],
    [{ state: "error", reason: "bad daemon URL" }, "rejected", /Fix the daemon URL/],
  ];
  for (const [raw, state, fix] of cases) {
    const v = connectionView(raw, p);
    assert.equal(v.state, state, JSON.stringify(raw));
    if (fix) assert.match(v.fix, fix);
    else assert.equal(v.fix, undefined);
  }
  assert.match(connectionView({ state: "rejected", closeCode: 4002 }, { kind: "managed" }).fix, /bua browser start/);
});

test("subscribeState: the page hears the state at once and every change, coalesced; the badge follows", async () => {
  const { local, sessions, tab, badge, handoffs } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  const seen = [];
  const off = remote.subscribeState((s) => seen.push(s));
  await sleep(5);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].sessions, []);
  local.setConnection({ state: "connected" });
  sessions.ensureSession(tab.id, "a.test");
  for (let i = 0; i < 10; i++) sessions.recordAction(tab.id);
  await sleep(PUSH_MS * 3);
  assert.equal(seen.length, 2, "eleven changes in a burst are one push");
  assert.equal(seen[1].sessions[0].actionCount, 10);
  assert.equal(seen[1].connection.state, "connected");
  assert.deepEqual(badge.slice(-3), [["text", "1"], ["color", BADGE_COLORS.live], ["title", "bua bridge: connected, 1 live session"]]);

  handoffs.add({ tabId: tab.id, domain: "a.test", obstacleType: "auth_wall", message: "log in", since: 1 });
  await sleep(PUSH_MS * 3);
  assert.equal(seen.at(-1).handoffs.length, 1);
  assert.deepEqual(badge.slice(-3), [["text", "?"], ["color", BADGE_COLORS.handoff], ["title", "bua needs you: auth_wall on a.test"]]);

  off();
  const n = seen.length;
  sessions.endSession(tab.id, "user_stopped");
  await sleep(PUSH_MS * 3);
  assert.equal(seen.length, n, "an unsubscribed page hears nothing");
});

test("badgeFor: handoff beats everything, then a recording, then rejected/replaced, then waiting, then the live count", () => {
  const s = (state, n = 0, h = 0, r = 0) => ({
    connection: { state },
    sessions: Array.from({ length: n }, (_, i) => ({ tabId: i })),
    handoffs: Array.from({ length: h }, () => ({ domain: "x.test", obstacleType: "captcha" })),
    recordings: Array.from({ length: r }, (_, i) => ({ tabId: i, lastTab: i, title: i ? "" : "Sign in", steps: 3 })),
  });
  const cases = [
    [s("connected", 0), "", BADGE_COLORS.live],
    [s("connected", 3), "3", BADGE_COLORS.live],
    [s("connecting", 2), "…", BADGE_COLORS.waiting],
    [s("disconnected"), "…", BADGE_COLORS.waiting],
    [s("rejected"), "!", BADGE_COLORS.error],
    [s("replaced", 1), "!", BADGE_COLORS.error],
    [s("connected", 2, 1), "?", BADGE_COLORS.handoff],
    [s("rejected", 0, 1), "?", BADGE_COLORS.handoff],
    [s("connected", 1, 0, 1), "REC", BADGE_COLORS.recording],
    [s("disconnected", 1, 0, 2), "REC", BADGE_COLORS.recording],
    [s("connected", 1, 1, 1), "?", BADGE_COLORS.handoff],
    [null, "…", BADGE_COLORS.waiting],
  ];
  for (const [state, text, color] of cases) {
    const b = badgeFor(state);
    assert.equal(b.text, text, JSON.stringify(state));
    assert.equal(b.color, color, JSON.stringify(state));
  }
  assert.equal(new Set(Object.values(BADGE_COLORS)).size, 5, "five distinct colours");
  assert.equal(badgeFor(s("connected", 1, 0, 1)).title, 'bua is recording what you do on "Sign in": open this popup to stop');
  assert.match(badgeFor(s("connected", 2, 0, 2)).title, /\(and 1 more\)/);
});

test("focusTab brings a tab forward, restoring a minimized window; a closed tab is not_found", async () => {
  const { local, tab, win, api } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  await remote.focusTab(tab.id);
  assert.equal(api.tabsMap.get(tab.id).active, true);
  assert.equal(api.winsMap.get(win.id).focused, true);
  assert.equal(api.winsMap.get(win.id).state, "normal");
  await assert.rejects(remote.focusTab(99999), (e) => e.code === "not_found" && /tab 99999 is closed/.test(e.message));
});

test("config: save validates and stores bridge_config; claim goes through the daemon; a managed browser refuses both", async () => {
  const { local, api, claims } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  assert.deepEqual(await remote.getConfig(), { url: "ws://127.0.0.1:9/ws/browser", token: "tok", managed: false, kind: "user" });
  await assert.rejects(remote.saveConfig({ url: "http://127.0.0.1:1/", token: "t" }), (e) => e.code === "invalid_input" && /ws:\/\/ or wss:\/\//.test(e.message));
  await assert.rejects(remote.saveConfig({ url: "not a url", token: "t" }), (e) => e.code === "invalid_input");
  await assert.rejects(remote.saveConfig({ url: "ws://127.0.0.1:1/ws/browser", token: " " }), (e) => e.code === "invalid_input" && /bua pair/.test(e.message));
  assert.equal(api.storeMap.has("bridge_config"), false);
  await remote.saveConfig({ url: " ws://127.0.0.1:1/ws/browser ", token: " abc " });
  assert.deepEqual(api.storeMap.get("bridge_config"), { url: "ws://127.0.0.1:1/ws/browser", token: "abc" });

  await assert.rejects(remote.claimCode({ url: "ws://h/ws/browser", code: "nope" }), (e) => e.code === "invalid_input" && /ABCD-2345/.test(e.message));
  assert.equal(claims.length, 0, "a malformed code never reaches the daemon");
  await assert.rejects(remote.claimCode({ url: "ws://h/ws/browser", code: "WXYZ-2345" }), (e) => e.code === "claim_failed" && /used or expired/.test(e.message));
  assert.deepEqual(await remote.claimCode({ url: "ws://h/ws/browser", code: "ABCD-2345" }), { url: "ws://h/ws/browser" });

  const m = await setup({ managed: true });
  const mr = createRuntimeUiService(fakeRuntime(m.local));
  await assert.rejects(mr.saveConfig({ url: "ws://127.0.0.1:1/ws/browser", token: "x" }), (e) => e.code === "managed" && /bua browser start/.test(e.message));
  await assert.rejects(mr.reset(), (e) => e.code === "managed");
});

test("testConnection reconnects and answers the state the connection settles in", async () => {
  const { local, client } = await setup();
  const p = local.testConnection({ timeoutMs: 2000 });
  assert.equal(client.reconnects, 1);
  local.setConnection({ state: "connecting" });
  local.setConnection({ state: "rejected", reason: "bad pairing token", closeCode: 4002 });
  const c = await p;
  assert.equal(c.state, "rejected");
  assert.equal(c.reason, "bad pairing token");
  const t0 = Date.now();
  const slow = await local.testConnection({ timeoutMs: 50 });
  assert.equal(slow.state, "rejected", "no new state within the timeout: the current one");
  assert.ok(Date.now() - t0 < 1000);
});

test("blocklist: add validates and normalises, remove says when the entry is not there", async () => {
  const { local } = await setup();
  const remote = createRuntimeUiService(fakeRuntime(local));
  for (const bad of ["", "   ", "exa mple.com", "-bad.com", "a..b"]) {
    await assert.rejects(remote.addBlocked(bad), (e) => e.code === "invalid_input", JSON.stringify(bad));
  }
  assert.deepEqual(await remote.addBlocked("*.Example.COM."), { blocklist: ["example.com"], endedCount: 0 });
  assert.deepEqual((await remote.addBlocked("bücher.de")).blocklist, ["example.com", "xn--bcher-kva.de"]);
  assert.deepEqual(await remote.removeBlocked("example.com"), { blocklist: ["xn--bcher-kva.de"] });
  await assert.rejects(remote.removeBlocked("example.com"), (e) => e.code === "not_found" && /not on the blocklist/.test(e.message));
});

test("the audit log keeps the last 1,000 sessions, each {tabId, domain, startedAt, endedAt, actionCount, reason}", async () => {
  // 998 sessions already in the log (a worker that starts reads them
  // back), then five more: 1,003 in all. Seeding the log instead of
  // ending 998 sessions keeps the test to five whole-log writes.
  const old = Array.from({ length: 998 }, (_, i) => ({ tabId: i, domain: `s${i}.test`, startedAt: i, endedAt: i, actionCount: 0, reason: "tab_closed" }));
  const { local, sessions, api } = await setup({ stored: { sessionHistory: old } });
  for (let i = 998; i < 1003; i++) {
    sessions.ensureSession(i, `s${i}.test`);
    if (i % 2) sessions.recordAction(i);
    sessions.endSession(i, i % 2 ? "user_stopped" : "tab_closed");
  }
  await sessions.flush();
  const h = await local.getHistory();
  assert.equal(h.length, 1000);
  assert.equal(h[0].domain, "s3.test", "the oldest three were dropped");
  assert.equal(h.at(-1).domain, "s1002.test");
  for (const e of h.slice(-5)) assert.deepEqual(Object.keys(e).sort(), ["actionCount", "domain", "endedAt", "reason", "startedAt", "tabId"]);
  assert.deepEqual([h.at(-2).actionCount, h.at(-2).reason], [1, "user_stopped"]);
  assert.deepEqual([h.at(-1).actionCount, h.at(-1).reason], [0, "tab_closed"]);
  assert.equal(api.storeMap.get("sessionHistory").length, 1000, "stored capped too");
});

test("reset clears the pairing, the blocklist and the history, not the live sessions", async () => {
  const { local, sessions, api, tab } = await setup();
  await api.storage.set({ bridge_config: { url: "ws://x/ws/browser", token: "t" } });
  await sessions.addToBlocklist(["b.test"]);
  sessions.ensureSession(1, "x.test");
  sessions.endSession(1, "user_stopped");
  sessions.ensureSession(tab.id, "a.test");
  await local.reset();
  await sessions.flush();
  assert.equal(api.storeMap.has("bridge_config"), false);
  assert.deepEqual(api.storeMap.get("blocklist"), []);
  assert.deepEqual(api.storeMap.get("sessionHistory"), []);
  assert.deepEqual(sessions.list().map((s) => s.tabId), [tab.id]);
});
