// Session lifecycle on the extension side (docs/protocol.md#sessions,
// docs/cancellation.md#cancellation): a session ends for exactly seven reasons, each
// with session_ended {domain, tabId, actionCount, reason}; a request in
// flight on it ends at once (internal_error with error.reason, or
// tab_not_found for a closed tab); a tab the person stopped refuses later
// actions with session_not_found; Stop all sends global_stop.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { createSessionManager, STOP_REASONS } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { createLocalUiService } from "../src/services/ui-service-local.js";
import { createIdleGuard, IDLE_DETECTION_S } from "../src/sessions/idle-guard.js";
import { BridgeError } from "../src/core/errors.js";
import { budgetFor } from "../src/core/budget.js";
import { sleep } from "../src/core/cdp.js";
import { END_REASONS } from "../src/generated/protocol.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

const never = () => new Promise(() => {});

async function setup() {
  const api = createFakeApi();
  const win = api.mkWindow({ focused: true });
  const tab = api.mkTab(win.id, "http://shop.example.com/cart");
  const other = api.mkTab(win.id, "http://news.test/");
  const events = [];
  const emit = (e) => events.push(e);
  const sessions = createSessionManager({ storage: api.storage, emit });
  await sessions.init();
  const detached = [];
  const controller = {
    run: async (tabId, action) => (action.type === "wait_for" ? never() : { ok: true }),
    detach: async (tabId) => {
      detached.push(tabId);
    },
  };
  const d = createDispatcher({ api, sessions, windows: createWindowManager({ api }), controller, emit });
  const service = createLocalUiService({
    api,
    sessions,
    client: { pairingChanged() {} },
    pairing: () => ({ kind: "user", managed: false, url: "ws://127.0.0.1:1/ws/browser", token: "t" }),
    controller,
    emit,
    claim: async () => ({ ok: false, message: "no" }),
  });
  const request = (action) => d.dispatch(action, budgetFor(action, 20000));
  return { api, tab, other, events, sessions, d, service, detached, request, controller };
}

// settled resolves to {value} or {error} and fails when p takes over ms.
async function settled(p, ms) {
  const out = await Promise.race([p.then((value) => ({ value }), (error) => ({ error })), sleep(ms).then(() => ({ late: true }))]);
  assert.ok(!out.late, `did not settle within ${ms} ms`);
  return out;
}

// inFlight starts a wait_for that hangs on tabId once its session exists,
// and returns {p}, its promise.
async function inFlight(request, tabId) {
  await request({ type: "evaluate", expression: "return 1", tabId });
  const p = request({ type: "wait_for", selector: "#never", tabId });
  await sleep(10);
  return { p };
}

const ended = (events) => events.filter((e) => e.type === "session_ended");

test("the seven end reasons are the protocol's, and the person's three mark the tab stopped", () => {
  assert.deepEqual(Object.values(END_REASONS).sort(), ["debugger_detached", "domain_blocked", "global_stop", "screen_locked", "system_idle", "tab_closed", "user_stopped"]);
  assert.deepEqual([...STOP_REASONS].sort(), ["debugger_detached", "global_stop", "user_stopped"]);
});

// Each reason that ends a session with a request in flight: how it is
// caused, and what the request and the next action on that tab get.
const cases = [
  { reason: "user_stopped", cause: ({ service, tab }) => service.stopSession(tab.id), message: /the person stopped/, next: "session_not_found" },
  { reason: "global_stop", cause: ({ service }) => service.stopAll(), message: /the person pressed Stop all/, next: "session_not_found" },
  { reason: "debugger_detached", cause: ({ sessions, tab }) => sessions.endSession(tab.id, "debugger_detached"), message: /cancelled the debugger/, next: "session_not_found" },
  { reason: "domain_blocked", cause: ({ service }) => service.addBlocked("example.com"), message: /added to the blocklist/, next: "domain_blocked" },
  { reason: "system_idle", cause: ({ service }) => service.endAll("system_idle"), message: /went idle/, next: null },
  { reason: "screen_locked", cause: ({ service }) => service.endAll("screen_locked"), message: /screen was locked/, next: null },
];

for (const c of cases) {
  test(`${c.reason}: the request in flight fails at once with internal_error, reason ${c.reason}; session_ended says so`, async () => {
    const env = await setup();
    const { tab, events, request, sessions } = env;
    const { p } = await inFlight(request, tab.id);
    const pending = await Promise.race([p.then(() => "settled", () => "settled"), sleep(30).then(() => "hanging")]);
    assert.equal(pending, "hanging", "the wait_for must hang before the session ends");
    await c.cause(env);
    // At once: settled before anything else the event loop runs (a
    // setImmediate), not at the request's 20 s deadline; no wall clock,
    // which a loaded machine stretches.
    const out = await Promise.race([p.then((value) => ({ value }), (error) => ({ error })), new Promise((r) => setImmediate(() => r({ late: true })))]);
    assert.ok(!out.late, "answered at once, not at the request's deadline");
    assert.ok(out.error instanceof BridgeError, String(out.error));
    assert.equal(out.error.code, "internal_error");
    assert.equal(out.error.reason, c.reason);
    assert.match(out.error.message, c.message);
    assert.deepEqual(ended(events).at(-1), { type: "session_ended", domain: "shop.example.com", tabId: tab.id, actionCount: 1, reason: c.reason });
    assert.equal(sessions.get(tab.id), null);

    const next = await settled(request({ type: "evaluate", expression: "return 2", tabId: tab.id }), 200);
    if (c.next === null) {
      assert.deepEqual(next.value, { ok: true, tabId: tab.id }, "idle and lock end sessions; the next action starts a new one");
    } else {
      assert.equal(next.error && next.error.code, c.next, String(next.error));
    }
  });
}

test("tab_closed: the request in flight is tab_not_found, as before; tab_closed then session_ended", async () => {
  const { api, tab, events, request, d, sessions } = await setup();
  const { p } = await inFlight(request, tab.id);
  await api.tabs.remove(tab.id); // background.js: dispatcher.tabClosed, then sessions.tabRemoved
  d.tabClosed(tab.id);
  sessions.tabRemoved(tab.id);
  const out = await settled(p, 100);
  assert.equal(out.error.code, "tab_not_found");
  assert.deepEqual(events.slice(-2).map((e) => [e.type, e.reason]), [["tab_closed", undefined], ["session_ended", "tab_closed"]]);
});

test("Stop detaches the debugger; later actions on that tab are session_not_found, other tabs go on", async () => {
  const { tab, other, request, service, detached, events, sessions } = await setup();
  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  await request({ type: "evaluate", expression: "return 1", tabId: other.id });
  assert.deepEqual(await service.stopSession(tab.id), { endedCount: 1 });
  assert.deepEqual(detached, [tab.id]);
  for (const action of [{ type: "evaluate", expression: "return 1" }, { type: "navigate", url: "http://ok.test/" }, { type: "extract" }]) {
    const out = await settled(request({ ...action, tabId: tab.id }), 200);
    assert.equal(out.error.code, "session_not_found", `${action.type}: ${out.error}`);
    assert.match(out.error.message, new RegExp(`tab ${tab.id} with Stop \\(user_stopped\\).*open_tab`));
  }
  assert.equal(ended(events).length, 1, "refused actions start no session");
  assert.deepEqual((await settled(request({ type: "evaluate", expression: "return 1", tabId: other.id }), 200)).value, { ok: true, tabId: other.id });
  // Without a tabId, the stopped tab is never picked: the one live session is.
  assert.deepEqual((await settled(request({ type: "evaluate", expression: "return 1" }), 200)).value, { ok: true, tabId: other.id });
  await assert.rejects(service.stopSession(tab.id), (e) => e.code === "not_found" && /ended already/.test(e.message));
  // A tab that closes forgets its stop (its id is never reused while Chrome runs).
  sessions.tabRemoved(tab.id);
  assert.equal(sessions.stoppedReason(tab.id), null);
});

test("work still running when the session is stopped detaches the tab again once it is over", async () => {
  const env = await setup();
  const { tab, request, service, detached } = env;
  let finish;
  const slow = new Promise((r) => (finish = r));
  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  // The controller's run stands for an attach still in progress at Stop.
  env.controller.run = async () => {
    await slow;
    return { ok: true };
  };
  const p = request({ type: "click", selector: "#a", tabId: tab.id });
  await sleep(10);
  await service.stopSession(tab.id);
  assert.equal((await settled(p, 100)).error.reason, "user_stopped");
  assert.deepEqual(detached, [tab.id], "Stop detached once");
  finish(); // the leftover attach completes after the Stop's detach
  await sleep(10);
  assert.deepEqual(detached, [tab.id, tab.id], "and the tab is let go again when it is over");
});

test("Stop all ends and detaches every session, sends global_stop {endedCount}, and fails their requests at once", async () => {
  const { tab, other, request, service, detached, events } = await setup();
  const { p: a } = await inFlight(request, tab.id);
  const { p: b } = await inFlight(request, other.id);
  assert.deepEqual(await service.stopAll(), { endedCount: 2 });
  for (const p of [a, b]) {
    const out = await settled(p, 100);
    assert.equal(out.error.reason, "global_stop");
  }
  assert.deepEqual(detached.sort(), [tab.id, other.id].sort());
  const stopAt = events.findIndex((e) => e.type === "global_stop");
  assert.deepEqual(events[stopAt], { type: "global_stop", endedCount: 2 });
  assert.ok(events.slice(0, stopAt).every((e) => e.type !== "session_ended"), "global_stop goes out before the sessions end, so the daemon answers their requests first");
  assert.deepEqual(ended(events).map((e) => e.reason), ["global_stop", "global_stop"]);
  assert.deepEqual(await service.stopAll(), { endedCount: 0 });
  assert.deepEqual(events.at(-1), { type: "global_stop", endedCount: 0 }, "Stop all with nothing live still tells the daemon");
});

test("blocking the current domain ends its sessions; later attempts get domain_blocked, even open_tab", async () => {
  const { tab, other, request, service, detached } = await setup();
  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  await request({ type: "evaluate", expression: "return 1", tabId: other.id });
  const r = await service.addBlocked("https://Shop.Example.com/x");
  assert.deepEqual(r, { blocklist: ["shop.example.com"], endedCount: 1 });
  assert.deepEqual(detached, [tab.id]);
  assert.equal((await settled(request({ type: "evaluate", expression: "return 1", tabId: tab.id }), 200)).error.code, "domain_blocked");
  assert.equal((await settled(request({ type: "open_tab", url: "http://a.shop.example.com/" }), 200)).error.code, "domain_blocked");
  assert.deepEqual((await settled(request({ type: "evaluate", expression: "return 1", tabId: other.id }), 200)).value, { ok: true, tabId: other.id });
});

test("the request whose own blocklist check ends its session answers domain_blocked, not internal_error", async () => {
  const { api, tab, request, sessions } = await setup();
  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  api.tabsMap.get(tab.id).url = "http://blocked.test/"; // the page moved by itself
  await sessions.addToBlocklist(["blocked.test"]); // the session's domain is still shop.example.com: it lives on
  assert.ok(sessions.get(tab.id));
  const out = await settled(request({ type: "evaluate", expression: "return 1", tabId: tab.id }), 200);
  assert.equal(out.error.code, "domain_blocked");
  assert.equal(sessions.get(tab.id), null);
});

// A fake chrome.idle: setDetectionInterval recorded, onStateChanged fired
// by the test, as background.js wires it.
function fakeIdle() {
  const listeners = [];
  return {
    interval: null,
    setDetectionInterval(s) {
      this.interval = s;
    },
    onStateChanged: { addListener: (fn) => listeners.push(fn) },
    fire: (state) => Promise.all(listeners.map((fn) => fn(state))),
  };
}

test("chrome.idle: locked ends every session with screen_locked, idle with system_idle, active with nothing", async () => {
  const { tab, other, request, service, events, detached } = await setup();
  const idle = fakeIdle();
  const guard = createIdleGuard({ idle, endAll: (r) => service.endAll(r), isManaged: () => false });
  guard.start();
  idle.onStateChanged.addListener((s) => guard.onState(s));
  assert.equal(idle.interval, IDLE_DETECTION_S);
  assert.equal(IDLE_DETECTION_S, 1800);

  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  await idle.fire("active");
  assert.equal(ended(events).length, 0);
  const { p } = await inFlight(request, other.id);
  await idle.fire("locked");
  assert.equal((await settled(p, 100)).error.reason, "screen_locked");
  assert.deepEqual(ended(events).map((e) => [e.tabId, e.reason]), [[tab.id, "screen_locked"], [other.id, "screen_locked"]]);
  assert.deepEqual(detached.sort(), [tab.id, other.id].sort());

  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  await idle.fire("idle");
  assert.deepEqual(ended(events).at(-1), { type: "session_ended", domain: "shop.example.com", tabId: tab.id, actionCount: 1, reason: "system_idle" });
});

test("chrome.idle: a managed browser never ends sessions on idle or lock, nor sets an interval", async () => {
  const { tab, request, service, events } = await setup();
  const idle = fakeIdle();
  const guard = createIdleGuard({ idle, endAll: (r) => service.endAll(r), isManaged: () => true });
  guard.start();
  assert.equal(idle.interval, null);
  await request({ type: "evaluate", expression: "return 1", tabId: tab.id });
  assert.equal(await guard.onState("locked"), 0);
  assert.equal(await guard.onState("idle"), 0);
  assert.equal(ended(events).length, 0);
});
