// Cancellation (docs/cancellation.md#cancellation, docs/extension.md §Cancellation):
// cancel {id} from the daemon, the watchdog and a closed tab each end a
// request at once, free its tab, and stop its leftover work.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createWsClient } from "../src/transport/ws-client.js";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { createDebuggerController } from "../src/sessions/controller.js";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { BridgeError, CancelledError } from "../src/core/errors.js";
import { abortable, sleep, withDeadline } from "../src/core/cdp.js";
import { budgetFor } from "../src/core/budget.js";
import { parseMessage } from "../src/transport/validator.js";
import { createFakeApi, createFakeTimers } from "./helpers/fake-chrome.js";
import { FakeWS } from "./helpers/fake-ws.js";


const ID = "3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f";
const ID2 = "0b8f2d6e-3c4a-4f1e-9a7b-2d5c8e1f4a6b";
const tick = () => new Promise((r) => setImmediate(r));
const never = () => new Promise(() => {});
const waitAbort = (signal) => new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));

// settledWithin resolves to how p settled ({value} or {error}) and how long
// it took, failing the test when it takes longer than ms.
async function settledWithin(p, ms) {
  const t0 = Date.now();
  const out = await Promise.race([
    p.then((value) => ({ value }), (error) => ({ error })),
    sleep(ms).then(() => ({ late: true })),
  ]);
  assert.ok(!out.late, `did not settle within ${ms} ms`);
  return { ...out, ms: Date.now() - t0 };
}

function assertCode(out, code) {
  assert.ok(out.error instanceof BridgeError, `want BridgeError ${code}, got ${out.error && out.error.stack}`);
  assert.equal(out.error.code, code, out.error.message);
}

// ---- lib ----

test("sleep and abortable reject with the signal's reason the moment it aborts", async () => {
  const ac = new AbortController();
  const why = new CancelledError("stop");
  const s = sleep(60000, globalThis, ac.signal);
  const a = abortable(never(), ac.signal);
  ac.abort(why);
  assert.equal((await settledWithin(s, 100)).error, why);
  assert.equal((await settledWithin(a, 100)).error, why);
  await assert.rejects(sleep(10, globalThis, ac.signal), (e) => e === why, "an aborted signal rejects at once");
  const b = budgetFor({ type: "wait_for" }, 5000, Date.now(), ac.signal);
  assert.throws(() => b.check(), (e) => e === why);
  assert.equal(b.withSignal(undefined).signal, undefined);
  assert.doesNotThrow(() => budgetFor({ type: "wait_for" }).check(), "no signal never aborts");
});

test("withDeadline's timer goes the moment its wait ends: p settles, or the signal aborts", async () => {
  const timers = createFakeTimers();
  assert.equal(await withDeadline(Promise.resolve(1), 60000, "read", timers), 1);
  assert.deepEqual(timers.list(), [], "settled: no timer left");
  const ac = new AbortController();
  const why = new CancelledError("stop");
  const w = withDeadline(never(), 60000, "read", timers, ac.signal);
  assert.equal(timers.list().length, 1);
  ac.abort(why);
  assert.equal((await settledWithin(w, 50)).error, why);
  assert.deepEqual(timers.list(), [], "aborted: no timer left armed for the rest of its 60 s");
  const late = withDeadline(never(), 5, "read", timers);
  timers.fire(timers.list()[0].id);
  const out = await settledWithin(late, 50);
  assertCode(out, "timeout");
  assert.match(out.error.message, /^read did not finish within 5 ms$/);
});

// ---- ws-client ----

async function wsClient(handleRequest) {
  FakeWS.all = [];
  const client = createWsClient({
    clientVersion: "0.1.0",
    WebSocketImpl: FakeWS,
    parseMessage,
    getConfig: async () => ({ url: "ws://127.0.0.1:1/ws/browser", token: "tok" }),
    handleRequest,
    timers: createFakeTimers(),
    random: () => 1,
  });
  client.start();
  await tick();
  const ws = FakeWS.all.at(-1);
  ws.open();
  ws.recv({ type: "ack", protocolVersion: 4, serverVersion: "0.1.0" });
  return { client, ws };
}

const responses = (ws) => ws.sent.filter((m) => m.type === "response");

test("hello lists the cancel feature", async () => {
  const { ws } = await wsClient(async () => ({ result: {} }));
  assert.ok(ws.sent[0].caps.features.includes("cancel"), JSON.stringify(ws.sent[0].caps));
});

test("cancel {id} aborts that request's signal, and the request gets no response even if its handler answers", async () => {
  const signals = new Map();
  const { ws } = await wsClient(async (action, meta) => {
    signals.set(meta.id, meta.signal);
    await waitAbort(meta.signal);
    return { result: { ok: true } }; // a handler that answers anyway
  });
  ws.recv({ type: "request", id: ID, action: { type: "wait_for", selector: "#x" } });
  ws.recv({ type: "request", id: ID2, action: { type: "wait_for", selector: "#y" } });
  await tick();
  ws.recv({ type: "cancel", id: ID });
  await tick();
  await tick();
  assert.equal(signals.get(ID).aborted, true);
  assert.ok(signals.get(ID).reason instanceof CancelledError);
  assert.equal(signals.get(ID2).aborted, false, "only the cancelled id stops");
  assert.deepEqual(responses(ws), []);
  ws.recv({ type: "request", id: ID, action: { type: "wait_for", selector: "#x" }, replay: true });
  await tick();
  const again = responses(ws);
  assert.equal(again.length, 1);
  assert.equal(again[0].error.reason, "outcome_unknown", "a cancelled id re-sent is answered, not run again");
  assert.match(again[0].error.message, /stopped while it ran/);
  assert.equal(signals.size, 2, "the handler ran once per id");
});

test("a cancel for an answered or unknown id changes nothing", async () => {
  const { ws } = await wsClient(async () => ({ result: { ok: true } }));
  ws.recv({ type: "request", id: ID, action: { type: "get_tabs" } });
  await tick();
  ws.recv({ type: "cancel", id: ID });
  ws.recv({ type: "cancel", id: ID2 });
  await tick();
  assert.deepEqual(responses(ws), [{ type: "response", id: ID, result: { ok: true } }]);
});

test("the daemon connection closing aborts nothing: the action runs on for the daemon's re-sent request", async () => {
  let signal;
  const { ws } = await wsClient(async (action, meta) => {
    signal = meta.signal;
    return never();
  });
  ws.recv({ type: "request", id: ID, action: { type: "wait_for", selector: "#x" } });
  await tick();
  ws.drop(1006);
  assert.equal(signal.aborted, false);
});

// ---- dispatcher ----

// dispatcherWith builds a dispatcher whose controller.run is the test's,
// on the given timers (the real ones by default).
async function dispatcherWith(run, timers = globalThis) {
  const api = createFakeApi();
  const win = api.mkWindow({ focused: true });
  const tab = api.mkTab(win.id, "http://site.test/");
  const sessions = createSessionManager({ storage: api.storage, emit: () => {} });
  await sessions.init();
  const windows = createWindowManager({ api });
  const d = createDispatcher({ api, sessions, windows, controller: { run }, emit: () => {}, timers });
  return { api, d, tab, win };
}

// request dispatches action on tab with a signal the test can abort, like
// ws-client's for one request.
function request(d, action, deadlineMs = 20000) {
  const ac = new AbortController();
  const p = d.dispatch(action, budgetFor(action, deadlineMs, Date.now(), ac.signal));
  p.catch(() => {});
  return { p, cancel: () => ac.abort(new CancelledError()) };
}

test("a cancelled action frees its tab at once, even when its work ignores the signal", async () => {
  const ran = [];
  const { d, tab } = await dispatcherWith(async (tabId, action) => {
    ran.push(action.type);
    if (action.type === "wait_for") return never(); // orphaned work that never notices
    return { ok: true };
  });
  const a = request(d, { type: "wait_for", selector: "#never", tabId: tab.id });
  await sleep(20);
  const b = request(d, { type: "evaluate", expression: "return 1", tabId: tab.id });
  await sleep(20);
  assert.deepEqual(ran, ["wait_for"], "evaluate waits behind wait_for");
  a.cancel();
  assert.ok((await settledWithin(a.p, 50)).error instanceof CancelledError);
  const out = await settledWithin(b.p, 100);
  assert.deepEqual(out.value, { ok: true, tabId: tab.id });
  assert.deepEqual(ran, ["wait_for", "evaluate"]);
});

test("handle answers null for a cancelled request: ws-client sends nothing", async () => {
  const { d, tab } = await dispatcherWith(async () => never());
  const ac = new AbortController();
  const action = { type: "wait_for", selector: "#never", tabId: tab.id };
  const h = d.handle(action, budgetFor(action, 20000, Date.now(), ac.signal));
  await sleep(10);
  ac.abort(new CancelledError());
  assert.equal((await settledWithin(h, 50)).value, null);
});

test("a queued action that is cancelled never runs, and the ones behind it still wait their turn", async () => {
  const ran = [];
  let releaseFirst;
  const { d, tab } = await dispatcherWith(async (tabId, action) => {
    ran.push(action.selector);
    if (action.selector === "#a") await new Promise((r) => (releaseFirst = r));
    return { ok: true };
  });
  const a = request(d, { type: "click", selector: "#a", tabId: tab.id });
  await sleep(10);
  const b = request(d, { type: "click", selector: "#b", tabId: tab.id });
  const c = request(d, { type: "click", selector: "#c", tabId: tab.id });
  await sleep(10);
  b.cancel();
  assert.ok((await settledWithin(b.p, 50)).error instanceof CancelledError);
  await sleep(20);
  assert.deepEqual(ran, ["#a"], "#c still waits for #a");
  releaseFirst();
  await settledWithin(a.p, 100);
  await settledWithin(c.p, 100);
  assert.deepEqual(ran, ["#a", "#c"], "#b never ran");
});

test("the watchdog frees the tab at once and aborts the signal the action's work sees", async () => {
  let seen;
  const ran = [];
  // The watchdog fires when the test says, once the work has started: on
  // a loaded machine the way to the executor can take longer than a short
  // budget.
  const timers = createFakeTimers();
  const { d, tab } = await dispatcherWith(async (tabId, action, budget) => {
    ran.push(action.type);
    if (action.type === "wait_for") {
      seen = budget.signal;
      return never();
    }
    return { ok: true };
  }, timers);
  // deadlineMs 400: a 200 ms budget (core/budget.js keeps half of a short deadline).
  const a = request(d, { type: "wait_for", selector: "#never", tabId: tab.id }, 400);
  const b = request(d, { type: "scroll", direction: "down", tabId: tab.id });
  for (let i = 0; !seen && i < 1000; i++) await sleep(5);
  assert.ok(seen, "wait_for's work started");
  const [watchdog, ...others] = timers.list("timeout").filter((w) => w.ms <= 200);
  assert.ok(watchdog && watchdog.ms > 0 && others.length === 0, `the watchdogs armed: ${JSON.stringify(timers.list())}`);
  timers.fire(watchdog.id);
  assertCode(await settledWithin(a.p, 1000), "timeout");
  assert.equal(seen.aborted, true, "the orphaned work was told to stop");
  assert.deepEqual((await settledWithin(b.p, 100)).value, { ok: true, tabId: tab.id });
});

test("close_tab never waits behind an action, and ends the tab's running and queued actions with tab_not_found", async () => {
  const { api, d, tab } = await dispatcherWith(async () => never());
  const a = request(d, { type: "wait_for", selector: "#never", tabId: tab.id });
  const b = request(d, { type: "click", selector: "#b", tabId: tab.id });
  await sleep(10);
  const closed = await settledWithin(d.dispatch({ type: "close_tab", tabId: tab.id }), 100);
  assert.deepEqual(closed.value, { ok: true, tabId: tab.id });
  assert.equal(api.tabsMap.has(tab.id), false);
  assertCode(await settledWithin(a.p, 50), "tab_not_found");
  assertCode(await settledWithin(b.p, 50), "tab_not_found");
});

test("a tab closed by the person or the page ends its pending actions with tab_not_found", async () => {
  const { api, d, tab } = await dispatcherWith(async () => never());
  const a = request(d, { type: "wait_for", selector: "#never", tabId: tab.id });
  await sleep(10);
  await api.tabs.remove(tab.id); // what background.js hears as tabs.onRemoved
  assert.equal(d.tabClosed(tab.id), 1);
  const out = await settledWithin(a.p, 50);
  assertCode(out, "tab_not_found");
  assert.match(out.error.message, new RegExp(`tab ${tab.id} was closed`));
});

test("a debugger failure on a tab that is gone is tab_not_found", async () => {
  const { api, d, tab } = await dispatcherWith(async (tabId) => {
    await api.tabs.remove(tabId);
    throw new BridgeError("internal_error", `debugger detached from tab ${tabId} during Runtime.evaluate`);
  });
  assertCode(await settledWithin(d.dispatch({ type: "wait_for", selector: "#x", tabId: tab.id }), 100), "tab_not_found");
});

test("get_tabs and open_tab answer while an action hangs on a tab", async () => {
  const { d, tab } = await dispatcherWith(async () => never());
  const hung = request(d, { type: "wait_for", selector: "#never", tabId: tab.id });
  await sleep(10);
  const tabs = await settledWithin(d.dispatch({ type: "get_tabs" }), 100);
  assert.ok(tabs.value.some((t) => t.tabId === tab.id));
  const opened = await settledWithin(d.dispatch({ type: "open_tab", url: "http://site.test/b" }), 500);
  assert.ok(Number.isInteger(opened.value.tabId));
  hung.cancel(); // as the daemon would when its caller leaves: its watchdog goes with it
  assert.ok((await settledWithin(hung.p, 50)).error instanceof CancelledError);
});

// ---- controller: inner loops stop on abort ----

function fakeDebugger(handlers) {
  const calls = [];
  const dbg = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method, params) => {
      calls.push(method);
      const h = handlers[method];
      return h ? (await h(params || {})) || {} : {};
    },
  };
  const c = createDebuggerController({ chromeApi: { debugger: dbg }, managed: true });
  return { c, calls };
}

const frameTree = () => ({ frameTree: { frame: { id: "MAIN", loaderId: "L1" }, childFrames: [] } });

// runAborted runs action on the controller, aborts its signal after ms,
// and returns how the run settled and when.
async function runAborted(c, action, ms = 100) {
  const ac = new AbortController();
  const p = c.run(7, action, budgetFor(action, 20000, Date.now(), ac.signal));
  await sleep(ms);
  const why = new CancelledError();
  ac.abort(why);
  const out = await settledWithin(p, 50);
  assert.equal(out.error, why);
  return out;
}

test("wait_for stops polling the moment its request is cancelled", async () => {
  const { c, calls } = fakeDebugger({
    "Page.getFrameTree": frameTree,
    "Runtime.evaluate": (p) => (p.expression.includes("querySelector") ? { result: { type: "boolean", value: false } } : { result: {} }),
  });
  await runAborted(c, { type: "wait_for", selector: "#never", timeoutMs: 10000 });
  const polls = () => calls.filter((m) => m === "Runtime.evaluate").length;
  const before = polls();
  assert.ok(before >= 2, `polled ${before} times before the cancel`);
  await sleep(300);
  assert.equal(polls(), before, "no poll after the cancel");
});

test("evaluate stops waiting for a promise that never settles, without terminating the page's scripts", async () => {
  const { c, calls } = fakeDebugger({
    "Page.getFrameTree": frameTree,
    "Runtime.evaluate": (p) => (p.expression.includes("return 1") ? never() : { result: {} }),
  });
  await runAborted(c, { type: "evaluate", expression: "return 1" });
  assert.ok(!calls.includes("Runtime.terminateExecution"), calls.join(" "));
});

test("navigate stops waiting for a load that never comes", async () => {
  const { c, calls } = fakeDebugger({
    "Page.getFrameTree": frameTree,
    "Page.navigate": () => ({ frameId: "MAIN", loaderId: "L2" }),
  });
  await runAborted(c, { type: "navigate", url: "http://site.test/slow" });
  assert.ok(calls.includes("Page.navigate"));
});

test("click stops its actionability polling when cancelled", async () => {
  const { c, calls } = fakeDebugger({
    "Page.getFrameTree": frameTree,
    "Runtime.evaluate": () => ({ result: { type: "object", subtype: "node", objectId: "obj-101" } }),
    "DOM.describeNode": () => ({ node: { backendNodeId: 101 } }),
    "DOM.getBoxModel": () => ({ model: { width: 20, height: 10, border: [10, 10, 30, 10, 30, 20, 10, 20] } }),
    // never visible: the probe keeps waiting
    "Runtime.callFunctionOn": () => ({ result: { type: "object", value: { connected: true, visible: false, enabled: true, editable: true, animating: false } } }),
  });
  await runAborted(c, { type: "click", selector: "#hidden" }, 150);
  const n = calls.length;
  await sleep(300);
  assert.equal(calls.length, n, "no CDP call after the cancel");
});
