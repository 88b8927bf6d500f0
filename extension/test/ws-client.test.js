import { test } from "node:test";
import assert from "node:assert/strict";
import { createWsClient, backoffDelay, HEARTBEAT_MS, TERMINAL_CLOSE_CODES } from "../src/transport/ws-client.js";
import { ACTIONS, CLOSE_CODES, FEATURES, PROTOCOL_VERSION } from "../src/generated/protocol.js";
import { parseMessage } from "../src/transport/validator.js";
import { createFakeTimers } from "./helpers/fake-chrome.js";
import { FakeWS } from "./helpers/fake-ws.js";


const ID = "3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f";
const tick = () => new Promise((r) => setImmediate(r));

function setup(over = {}) {
  FakeWS.all = [];
  const timers = createFakeTimers();
  const states = [];
  const handled = [];
  const metas = [];
  const client = createWsClient({
    clientVersion: "0.1.0",
    WebSocketImpl: FakeWS,
    parseMessage,
    getConfig: async () => ({ url: "ws://127.0.0.1:1/ws/browser", token: "tok" }),
    handleRequest: over.handleRequest || (async (action, meta) => { handled.push(action); metas.push(meta); return { result: { ok: true } }; }),
    setState: async (s) => states.push(s),
    timers,
    random: () => 1,
  });
  return { client, timers, states, handled, metas };
}

async function connected(env) {
  env.client.start();
  await tick();
  const ws = FakeWS.all.at(-1);
  ws.open();
  ws.recv({ type: "ack", protocolVersion: 4, serverVersion: "0.1.0" });
  return ws;
}

test("hello carries version, token and caps, and nothing else goes before ack", async () => {
  const env = setup();
  env.client.start();
  await tick();
  const ws = FakeWS.all[0];
  env.client.sendEvent({ type: "tab_closed", tabId: 1 });
  ws.open();
  ws.recv({ type: "request", id: ID, action: { type: "get_tabs" } });
  await tick();
  assert.equal(ws.sent.length, 1, JSON.stringify(ws.sent));
  const hello = ws.sent[0];
  assert.deepEqual(
    { type: hello.type, v: hello.protocolVersion, cv: hello.clientVersion, t: hello.pairingToken },
    { type: "hello", v: PROTOCOL_VERSION, cv: "0.1.0", t: "tok" },
  );
  assert.deepEqual(hello.caps.actions, [...ACTIONS], "caps.actions is the schema's action list, reload included");
  assert.ok(hello.caps.actions.includes("reload"));
  assert.equal(parseMessage(JSON.stringify(hello)).ok, true);
  assert.equal(env.handled.length, 0, "a request before ack must not run");
  ws.recv({ type: "ack", protocolVersion: 4, serverVersion: "x" });
  assert.deepEqual(ws.sent[1], { type: "event", event: { type: "tab_closed", tabId: 1 } }, "queued event flushed after ack");
  assert.equal(env.states.at(-1).state, "connected");
});

test("hello lists every feature of the schema, upload_windows_paths among them", async () => {
  const env = setup();
  const ws = await connected(env);
  const features = ws.sent[0].caps.features;
  assert.ok(features.includes("upload_windows_paths"), JSON.stringify(features));
  for (const f of FEATURES) {
    if (f !== "replay") assert.ok(features.includes(f), `hello does not list ${f}`); // replay: only with a cache (replay.test.js)
  }
});

test("heartbeat is scheduled every 20 s after ack and stops on close", async () => {
  const env = setup();
  const ws = await connected(env);
  const hb = env.timers.list("interval");
  assert.equal(hb.length, 1);
  assert.equal(hb[0].ms, HEARTBEAT_MS);
  assert.equal(HEARTBEAT_MS, 20000);
  env.timers.fire(hb[0].id);
  assert.deepEqual(ws.sent.at(-1), { type: "event", event: { type: "heartbeat" } });
  ws.drop(1006);
  assert.equal(env.timers.list("interval").length, 0);
});

test("requests are dispatched and answered; replays are answered from cache", async () => {
  const env = setup();
  const ws = await connected(env);
  ws.recv({ type: "request", id: ID, action: { type: "get_tabs" } });
  await tick();
  assert.deepEqual(ws.sent.at(-1), { type: "response", id: ID, result: { ok: true } });
  ws.recv({ type: "request", id: ID, action: { type: "get_tabs" } });
  await tick();
  assert.equal(env.handled.length, 1, "the same id must not run twice");
  assert.deepEqual(ws.sent.at(-1), { type: "response", id: ID, result: { ok: true } });
});

test("handler errors and invalid requests become error responses", async () => {
  const env = setup({ handleRequest: async () => { throw new Error("boom"); } });
  const ws = await connected(env);
  ws.recv({ type: "request", id: ID, action: { type: "click", uid: "e1", selector: "a" } });
  await tick();
  const r = ws.sent.at(-1);
  assert.equal(r.id, ID);
  assert.equal(r.error.code, "invalid_action");
  assert.match(r.error.message, /selector, uid or role/);
  const ID2 = ID.replace("3f", "4f");
  ws.recv({ type: "request", id: ID2, action: { type: "get_tabs" } });
  await tick();
  assert.deepEqual(ws.sent.at(-1), { type: "response", id: ID2, error: { code: "internal_error", message: "boom" } });
  const before = ws.sent.length;
  ws.recv("{not json");
  ws.recv({ type: "event", event: { type: "heartbeat" } });
  assert.equal(ws.sent.length, before, "invalid non-requests are dropped silently");
});

test("reconnects with jittered backoff doubling to a 5 s cap", async () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, () => 1)), [500, 1000, 2000, 4000, 5000, 5000]);
  assert.equal(backoffDelay(0, () => 0), 375);
  const env = setup();
  env.client.start();
  await tick();
  const delays = [];
  for (let i = 0; i < 5; i++) {
    FakeWS.all.at(-1).drop(1006);
    const [t] = env.timers.list("timeout");
    delays.push(t.ms);
    env.timers.fire(t.id);
    await tick();
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 5000]);
  assert.equal(FakeWS.all.length, 6);
  // a successful ack resets the backoff
  FakeWS.all.at(-1).open();
  FakeWS.all.at(-1).recv({ type: "ack", protocolVersion: 4, serverVersion: "x" });
  FakeWS.all.at(-1).drop(1006);
  assert.equal(env.timers.list("timeout")[0].ms, 500);
});

test("reject is terminal until the pairing changes", async () => {
  const env = setup();
  env.client.start();
  await tick();
  const ws = FakeWS.all[0];
  ws.open();
  ws.recv({ type: "reject", requiredMinProtocolVersion: 4, error: { code: "invalid_action", message: "bad pairing token" } });
  ws.drop(4002);
  assert.equal(env.timers.list("timeout").length, 0, "no reconnect after reject");
  assert.deepEqual(
    { state: env.states.at(-1).state, reason: env.states.at(-1).reason, closeCode: env.states.at(-1).closeCode },
    { state: "rejected", reason: "bad pairing token", closeCode: 4002 },
  );
  env.client.ensureConnected(); // the alarm must not revive it either
  await tick();
  assert.equal(FakeWS.all.length, 1);
  env.client.pairingChanged();
  await tick();
  assert.equal(FakeWS.all.length, 2, "a new pairing reconnects");
});

test("close 4001, 4002 and 4003 stop reconnecting, even without a reject", async () => {
  for (const code of [4003, 4001, 4002]) {
    const env = setup();
    const ws = await connected(env);
    ws.drop(code, "replaced");
    assert.equal(env.timers.list("timeout").length, 0, `code ${code}`);
    env.client.ensureConnected();
    await tick();
    assert.equal(FakeWS.all.length, 1);
    assert.equal(env.states.at(-1).closeCode, code);
  }
});

test("close 4029 (rate-limited) is not terminal: it reconnects with the usual backoff", async () => {
  const env = setup();
  env.client.start();
  await tick();
  const delays = [];
  for (let i = 0; i < 6; i++) {
    const ws = FakeWS.all.at(-1);
    ws.open();
    ws.drop(CLOSE_CODES.rateLimited, "too many failed handshakes: try later"); // no reject before it
    assert.equal(env.client.terminal, null, `after 4029 #${i + 1}`);
    const st = env.states.at(-1);
    assert.deepEqual({ state: st.state, closeCode: st.closeCode }, { state: "disconnected", closeCode: 4029 });
    const timers = env.timers.list("timeout");
    assert.equal(timers.length, 1, "one reconnect scheduled");
    delays.push(timers[0].ms);
    env.timers.fire(timers[0].id);
    await tick();
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 5000, 5000], "jittered backoff (random=1), capped at 5 s");
  assert.equal(FakeWS.all.length, 7);
  // The flood is over: the next hello is acked and the backoff resets.
  const ws = FakeWS.all.at(-1);
  ws.open();
  assert.equal(ws.sent[0].type, "hello");
  ws.recv({ type: "ack", protocolVersion: 4, serverVersion: "x" });
  assert.equal(env.states.at(-1).state, "connected");
  ws.drop(1006);
  assert.equal(env.timers.list("timeout")[0].ms, 500);
});

test("a reject before 4002 stays terminal", async () => {
  const env = setup();
  env.client.start();
  await tick();
  const ws = FakeWS.all[0];
  ws.open();
  ws.recv({ type: "reject", requiredMinProtocolVersion: 4, error: { code: "invalid_action", message: "wrong pairing token" } });
  ws.drop(CLOSE_CODES.badToken);
  assert.equal(env.client.terminal.state, "rejected");
  assert.equal(env.timers.list("timeout").length, 0);
});

test("the alarm reconnects a closed client at once", async () => {
  const env = setup();
  const ws = await connected(env);
  ws.drop(1001);
  assert.equal(env.timers.list("timeout").length, 1);
  env.client.ensureConnected();
  await tick();
  assert.equal(FakeWS.all.length, 2);
  assert.equal(env.timers.list("timeout").length, 0, "the pending backoff timer is cancelled");
});

test("terminal close codes are the schema's versionMismatch, badToken and replaced", () => {
  assert.deepEqual([...TERMINAL_CLOSE_CODES].sort(), [4001, 4002, 4003]);
  assert.equal(CLOSE_CODES.rateLimited, 4029);
  assert.equal(TERMINAL_CLOSE_CODES.has(CLOSE_CODES.rateLimited), false);
  assert.equal(TERMINAL_CLOSE_CODES.has(CLOSE_CODES.unsupportedData), false);
});

test("a request's deadlineMs and id reach handleRequest", async () => {
  const env = setup();
  const ws = await connected(env);
  ws.recv({ type: "request", id: ID, deadlineMs: 42000, action: { type: "reload" } });
  await tick();
  assert.deepEqual(env.handled, [{ type: "reload" }]);
  assert.deepEqual(env.metas.map(({ id, deadlineMs }) => ({ id, deadlineMs })), [{ id: ID, deadlineMs: 42000 }]);
  assert.ok(env.metas[0].signal instanceof AbortSignal, "every request runs under its own AbortSignal");
  assert.deepEqual(ws.sent.at(-1), { type: "response", id: ID, result: { ok: true } });
});
