// The replay cache and replay-safe requests across a reconnect
// (docs/decisions/replay-cache.md, the schema's x-replay, docs/extension.md §Replay cache): the
// cache's bounds, what survives a fresh worker over the same
// chrome.storage.session, and ws-client answering a re-sent request from
// the cache or from the action still running, never by running it twice.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createWsClient } from "../src/transport/ws-client.js";
import { ANSWERED, CANCELLED, FLUSH_MS, INSTANCE_KEY, KEY_PREFIX, STARTED, createReplayCache, memoryStorage } from "../src/transport/replay-cache.js";
import { REPLAY } from "../src/generated/protocol.js";
import { parseMessage } from "../src/transport/validator.js";
import { createFakeTimers } from "./helpers/fake-chrome.js";
import { FakeWS } from "./helpers/fake-ws.js";

const tick = () => new Promise((r) => setImmediate(r));
const id = () => crypto.randomUUID();
const CLICK = { type: "click", selector: "#inc" };

// clock is a settable now().
function clock(t = 1_000_000) {
  const c = () => t;
  c.advance = (ms) => (t += ms);
  return c;
}

// cacheOn makes a cache over storage with small bounds and the test's clock.
// Its deferred writes wait on fake timers: removed(cache) runs them.
async function cacheOn(storage, now, bounds = { maxEntries: 3, maxAgeMs: 1000, maxAnswerBytes: 200 }) {
  const timers = createFakeTimers();
  const cache = createReplayCache({ storage, now, bounds, timers });
  cache.timers = timers;
  await cache.ready;
  return cache;
}

// removed runs cache's deferred writes and removes (FLUSH_MS, REMOVE_MS).
async function removed(cache) {
  for (const t of cache.timers.list("timeout")) cache.timers.fire(t.id);
  await tick();
}

const ok = (rid) => ({ type: "response", id: rid, result: { ok: true, tabId: 7 } });

// ---- the cache ----

test("x-replay's bounds: 256 entries, 5 minutes, answers up to 16 KB in storage", () => {
  assert.deepEqual({ ...REPLAY }, { maxEntries: 256, maxAgeMs: 300000, maxAnswerBytes: 16384 });
});

test("the started mark is in storage when begin resolves, then the answer", async () => {
  const storage = memoryStorage();
  const now = clock();
  const cache = await cacheOn(storage, now);
  const a = id();
  await cache.begin(a, 500);
  assert.deepEqual(storage.map.get(KEY_PREFIX + a), { startedAt: now(), expiresAt: now() + 500, state: STARTED });
  const text = JSON.stringify(ok(a));
  cache.answer(a, text);
  await cache.flush();
  assert.equal(storage.map.get(KEY_PREFIX + a).state, ANSWERED);
  assert.equal(storage.map.get(KEY_PREFIX + a).answer, text, "the answer as sent, as text: storage counts a string at its length");
  assert.equal(cache.lookup(a).answer, text);
});

test("bounded by age: an entry lives its deadlineMs, at most maxAgeMs, and goes from storage too", async () => {
  const storage = memoryStorage();
  const now = clock();
  const cache = await cacheOn(storage, now);
  const short = id();
  const long = id();
  await cache.begin(short, 100);
  await cache.begin(long, 60_000); // capped at maxAgeMs, 1000 here
  assert.equal(storage.map.get(KEY_PREFIX + long).expiresAt, now() + 1000);
  now.advance(101);
  assert.equal(cache.lookup(short), undefined, "past its deadline");
  assert.ok(cache.lookup(long));
  now.advance(900);
  assert.equal(cache.lookup(long), undefined, "past maxAgeMs");
  await cache.begin(id(), 100); // any write sweeps what expired
  await removed(cache); // in one remove, REMOVE_MS later
  assert.ok(!storage.map.has(KEY_PREFIX + short) && !storage.map.has(KEY_PREFIX + long));
  assert.equal(cache.unsure(), false, "expired entries are never asked for again");
});

test("bounded by count: the oldest answered entry goes first, and a live one evicted makes the cache unsure until its expiry", async () => {
  const storage = memoryStorage();
  const now = clock();
  const cache = await cacheOn(storage, now);
  const [a, b, c, d, e] = [id(), id(), id(), id(), id()];
  await cache.begin(a, 1000);
  await cache.begin(b, 1000);
  cache.answer(b, JSON.stringify(ok(b)));
  await cache.flush();
  await cache.begin(c, 1000);
  await cache.begin(d, 1000); // full: b, answered, goes although a is older
  assert.equal(cache.size, 3);
  assert.equal(cache.lookup(b), undefined);
  assert.ok(cache.lookup(a) && cache.lookup(c) && cache.lookup(d));
  await removed(cache);
  assert.ok(!storage.map.has(KEY_PREFIX + b));
  assert.equal(cache.unsure(), true, "b could still be re-sent");
  await cache.begin(e, 1000); // all started: the oldest, a, goes
  assert.equal(cache.lookup(a), undefined);
  await removed(cache);
  assert.equal(Object.keys(await storage.get(null)).filter((k) => k.startsWith(KEY_PREFIX)).length, 3);
  now.advance(1000);
  assert.equal(cache.unsure(), false, "sure again once every evicted entry would have expired");
});

test("an answer larger than maxAnswerBytes is kept in memory, and only its size in storage", async () => {
  const storage = memoryStorage();
  const now = clock();
  const cache = await cacheOn(storage, now);
  const a = id();
  await cache.begin(a, 1000);
  const big = JSON.stringify({ type: "response", id: a, result: { text: "x".repeat(300) } });
  cache.answer(a, big);
  await cache.flush();
  assert.equal(cache.lookup(a).answer, big);
  const kept = storage.map.get(KEY_PREFIX + a);
  assert.equal(kept.answer, undefined);
  assert.equal(kept.answerBytes, big.length);
  const fresh = await cacheOn(storage, now);
  assert.equal(fresh.lookup(a).state, ANSWERED);
  assert.equal(fresh.lookup(a).answer, undefined);
});

test("chrome.storage.session survives a fresh module instance: entries, states and the instance id come back", async () => {
  const storage = memoryStorage();
  const now = clock();
  const first = await cacheOn(storage, now);
  const [answered, started, cancelled] = [id(), id(), id()];
  await first.begin(answered, 1000);
  first.answer(answered, JSON.stringify(ok(answered)));
  await first.flush();
  await first.begin(started, 1000);
  await first.begin(cancelled, 1000);
  first.cancelled(cancelled, "cancelled by the daemon");
  await first.flush();
  assert.match(first.instance(), /^[0-9a-f-]{36}$/);

  const second = await cacheOn(storage, now); // the worker restarted
  assert.equal(second.instance(), first.instance(), "the same instance: the daemon may re-send to it");
  assert.deepEqual(JSON.parse(second.lookup(answered).answer), ok(answered));
  assert.equal(second.lookup(started).state, STARTED);
  assert.equal(second.lookup(cancelled).state, CANCELLED);
  assert.equal(second.size, 3);

  const other = await cacheOn(memoryStorage(), now); // another browser session
  assert.notEqual(other.instance(), first.instance());
});

test("an entry that expired while the worker was gone is dropped when it reads the cache back", async () => {
  const storage = memoryStorage();
  const now = clock();
  const first = await cacheOn(storage, now);
  const a = id();
  await first.begin(a, 100);
  now.advance(200);
  const second = await cacheOn(storage, now);
  assert.equal(second.lookup(a), undefined);
  assert.deepEqual(Object.keys(storage.map), [], "nothing left but the instance");
  assert.ok(storage.map.has(INSTANCE_KEY));
});

// ---- ws-client ----

// worker starts a ws-client over storage (a fresh worker each call: a new
// cache over the same chrome.storage.session), connected and acked.
// run(action, meta) is its handleRequest. The cache's deferred writes wait
// on timers of their own: flushed() runs them (FLUSH_MS, REMOVE_MS later).
async function worker(storage, run, cacheStorage = storage) {
  const timers = createFakeTimers();
  const cacheTimers = createFakeTimers();
  const cache = createReplayCache({ storage: cacheStorage, timers: cacheTimers });
  const client = createWsClient({
    clientVersion: "0.1.0",
    WebSocketImpl: FakeWS,
    parseMessage,
    getConfig: async () => ({ url: "ws://127.0.0.1:1/ws/browser", token: "tok" }),
    handleRequest: run,
    cache,
    timers,
    random: () => 1,
  });
  client.start();
  await tick();
  const ws = await acked(FakeWS.all.at(-1));
  const flushed = async () => {
    for (const t of cacheTimers.list("timeout")) cacheTimers.fire(t.id);
    await tick();
  };
  return { client, timers, ws, cache, flushed };
}

async function acked(ws) {
  ws.open();
  ws.recv({ type: "ack", protocolVersion: 4, serverVersion: "0.1.0" });
  await tick();
  return ws;
}

// reconnect drops ws and lets the client's backoff timer reconnect.
async function reconnect(w, ws) {
  ws.drop(1006);
  const [t] = w.timers.list("timeout");
  w.timers.fire(t.id);
  await tick();
  w.ws = await acked(FakeWS.all.at(-1));
  return w.ws;
}

const responses = (ws) => ws.sent.filter((m) => m.type === "response");

// deferred is a promise and its resolve.
function deferred() {
  let resolve;
  const p = new Promise((r) => (resolve = r));
  return { p, resolve };
}

test("hello names the instance and lists replay; the same instance after a worker restart", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const a = await worker(storage, async () => ({ result: {} }));
  const hello = a.ws.sent[0];
  assert.ok(hello.caps.features.includes("replay"));
  assert.match(hello.instance, /^[0-9a-f-]{36}$/);
  const b = await worker(storage, async () => ({ result: {} }));
  assert.equal(b.ws.sent[0].instance, hello.instance);
});

test("a cache that cannot be read: no instance and no replay feature, so the daemon never re-sends", async () => {
  FakeWS.all = [];
  const broken = { get: async () => { throw new Error("storage.session unavailable"); }, set: async () => {}, remove: async () => {} };
  const ran = [];
  const w = await worker(null, async (action) => { ran.push(action); return { result: { ok: true } }; }, broken);
  const hello = w.ws.sent[0];
  assert.ok(!hello.caps.features.includes("replay"));
  assert.equal(hello.instance, undefined);
  assert.ok(hello.caps.features.includes("cancel"), "every other feature stays");
  const rid = id();
  w.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  assert.deepEqual(responses(w.ws), [{ type: "response", id: rid, result: { ok: true } }], "requests still run");
});

test("the started mark goes to storage before the action runs, in one write per request with the previous answer; the action does not wait for it", async () => {
  FakeWS.all = [];
  const inner = memoryStorage();
  const writes = []; // each storage.set's keys, in order
  let write = (items) => inner.set(items); // the test swaps it to hold or fail writes
  const storage = { ...inner, set: (items) => { writes.push(Object.keys(items)); return write(items); } };
  const ran = [];
  const w = await worker(storage, async (action, meta) => {
    ran.push(meta.id);
    assert.deepEqual(writes.at(-1), [KEY_PREFIX + meta.id], "the mark was handed to storage before the action started");
    return { result: { ok: true } };
  });
  writes.length = 0;
  // storage.set answers late: the action runs anyway, its mark already
  // sent (the browser applies it before the action's first chrome.* call).
  const slow = deferred();
  write = async (items) => {
    await slow.p;
    return inner.set(items);
  };
  const [a, b] = [id(), id()];
  w.ws.recv({ type: "request", id: a, action: CLICK });
  await tick();
  assert.deepEqual(ran, [a], "the action did not wait for storage's answer");
  assert.deepEqual(responses(w.ws).map((r) => r.id), [a]);
  w.ws.recv({ type: "request", id: b, action: CLICK });
  await tick();
  assert.deepEqual(writes, [[KEY_PREFIX + a], [KEY_PREFIX + b, KEY_PREFIX + a]], "one write per request: b's mark carries a's answer");
  slow.resolve();
  await tick();
  assert.equal(inner.map.get(KEY_PREFIX + a).state, ANSWERED);
  assert.equal(inner.map.get(KEY_PREFIX + b).state, STARTED, "b's answer waits for the next write");
  await w.flushed();
  assert.equal(inner.map.get(KEY_PREFIX + b).state, ANSWERED, "or FLUSH_MS later");
  assert.equal(writes.length, 3);
});

test("once storage refuses a write, each mark is awaited, and a mark that cannot be written runs nothing", async () => {
  FakeWS.all = [];
  const inner = memoryStorage();
  let write = (items) => inner.set(items);
  const storage = { ...inner, set: (items) => write(items) };
  const ran = [];
  const w = await worker(storage, async (action, meta) => {
    ran.push(meta.id);
    return { result: { ok: true } };
  });
  write = async () => {
    throw new Error("QUOTA_BYTES quota exceeded");
  };
  const first = id();
  w.ws.recv({ type: "request", id: first, action: CLICK });
  await tick();
  assert.deepEqual(ran, [first], "storage said nothing yet: it ran");
  assert.equal(w.cache.healthy, false, "the refusal is known now");

  const refused = id();
  w.ws.recv({ type: "request", id: refused, action: CLICK });
  await tick();
  assert.deepEqual(ran, [first], "a request whose mark failed never runs");
  const r = responses(w.ws).at(-1);
  assert.equal(r.id, refused);
  assert.equal(r.error.code, "internal_error");
  assert.match(r.error.message, /QUOTA_BYTES quota exceeded.*did not run it/);

  const slow = deferred();
  write = async (items) => {
    await slow.p;
    return inner.set(items);
  };
  w.ws.recv({ type: "request", id: refused, action: CLICK, replay: true });
  await tick();
  assert.deepEqual(ran, [first], "while storage is in doubt, nothing runs before its mark is written");
  slow.resolve();
  await tick();
  await tick();
  assert.deepEqual(ran, [first, refused], "sent again once storage takes the mark, it runs: it never ran before");
  assert.equal(inner.map.get(KEY_PREFIX + refused).state, STARTED);
  assert.equal(w.cache.healthy, true, "and the next one does not wait");
});

test("a dropped connection aborts nothing; the re-sent request joins the running action, answered once on the new connection", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const finish = deferred();
  const runs = [];
  const w = await worker(storage, async (action, meta) => {
    runs.push(meta);
    await finish.p;
    return { result: { ok: true, tabId: 7 } };
  });
  const rid = id();
  const first = w.ws;
  first.recv({ type: "request", id: rid, action: CLICK, deadlineMs: 30000 });
  await tick();
  const ws = await reconnect(w, first);
  assert.equal(runs[0].signal.aborted, false, "the drop did not abort the click");
  ws.recv({ type: "request", id: rid, action: CLICK, deadlineMs: 29000, replay: true });
  await tick();
  assert.deepEqual(responses(ws), [], "joined: no answer until the click ends");
  finish.resolve();
  await tick();
  assert.deepEqual(responses(ws), [ok(rid)]);
  assert.deepEqual(responses(first), [], "nothing on the dead connection");
  assert.equal(runs.length, 1, "the click ran once");
});

test("an action that ends while the daemon is away is answered from the cache when its request comes again", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const finish = deferred();
  let runs = 0;
  const w = await worker(storage, async () => {
    runs++;
    await finish.p;
    return { result: { ok: true, tabId: 7 } };
  });
  const rid = id();
  w.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  w.ws.drop(1006);
  finish.resolve(); // ends while disconnected: its answer goes nowhere
  await tick();
  await w.flushed();
  assert.equal(storage.map.get(KEY_PREFIX + rid).state, ANSWERED);
  const [t] = w.timers.list("timeout");
  w.timers.fire(t.id);
  await tick();
  const ws = await acked(FakeWS.all.at(-1));
  ws.recv({ type: "request", id: rid, action: CLICK, replay: true });
  await tick();
  assert.deepEqual(responses(ws), [ok(rid)]);
  assert.equal(runs, 1);
});

test("a worker restarted mid-action answers the re-sent request outcome_unknown and never runs it again", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const runs = [];
  const never = () => new Promise(() => {});
  const dead = await worker(storage, async (action, meta) => {
    runs.push(meta.id);
    return never(); // the worker dies before the click answers
  });
  const rid = id();
  dead.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  dead.ws.drop(1006); // Chrome stops the worker: its socket closes, nothing of it runs on

  const fresh = await worker(storage, async (action, meta) => {
    runs.push(meta.id);
    return { result: { ok: true } };
  });
  fresh.ws.recv({ type: "request", id: rid, action: CLICK, replay: true });
  await tick();
  const [r] = responses(fresh.ws);
  assert.equal(r.id, rid);
  assert.equal(r.error.code, "internal_error");
  assert.equal(r.error.reason, "outcome_unknown");
  assert.match(r.error.message, /running when the extension's worker restarted: it may or may not have taken effect/);
  assert.deepEqual(runs, [rid], "the click ran once, in the worker that died");
});

test("a worker restarted after an answer it could not send answers the re-sent request from storage", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const finish = deferred();
  const old = await worker(storage, async () => {
    await finish.p;
    return { result: { ok: true, tabId: 7 } };
  });
  const rid = id();
  old.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  old.ws.drop(1006); // the daemon is away when the click is answered
  finish.resolve();
  await tick();
  await old.flushed(); // and then, FLUSH_MS later, Chrome stops the worker
  let ran = 0;
  const fresh = await worker(storage, async () => {
    ran++;
    return { result: {} };
  });
  fresh.ws.recv({ type: "request", id: rid, action: CLICK, replay: true });
  await tick();
  assert.equal(ran, 0);
  assert.deepEqual(responses(fresh.ws), [ok(rid)]);
});

test("a worker stopped within FLUSH_MS of an answer it could not send answers the re-sent request outcome_unknown, never runs it again", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const finish = deferred();
  const old = await worker(storage, async () => {
    await finish.p;
    return { result: { ok: true, tabId: 7 } };
  });
  const rid = id();
  old.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  old.ws.drop(1006);
  finish.resolve();
  await tick(); // Chrome stops the worker before the answer's write
  assert.equal(FLUSH_MS, 20);
  let ran = 0;
  const fresh = await worker(storage, async () => {
    ran++;
    return { result: {} };
  });
  fresh.ws.recv({ type: "request", id: rid, action: CLICK, replay: true });
  await tick();
  assert.equal(ran, 0, "the started mark holds: not run twice");
  const [r] = responses(fresh.ws);
  assert.equal(r.error.reason, "outcome_unknown");
});

test("an answer too large for storage is answered from memory after a reconnect, outcome_unknown after a worker restart", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const big = { text: "x".repeat(REPLAY.maxAnswerBytes) };
  const finish = deferred();
  const w = await worker(storage, async () => {
    await finish.p;
    return { result: big };
  });
  const rid = id();
  w.ws.recv({ type: "request", id: rid, action: { type: "extract" } });
  await tick();
  w.ws.drop(1006);
  finish.resolve();
  await tick();
  const [t] = w.timers.list("timeout");
  w.timers.fire(t.id);
  await tick();
  const ws = await acked(FakeWS.all.at(-1));
  ws.recv({ type: "request", id: rid, action: { type: "extract" }, replay: true });
  await tick();
  assert.deepEqual(responses(ws), [{ type: "response", id: rid, result: big }], "the same worker still has it");
  await w.flushed();

  const fresh = await worker(storage, async () => ({ result: {} }));
  fresh.ws.recv({ type: "request", id: rid, action: { type: "extract" }, replay: true });
  await tick();
  const [r] = responses(fresh.ws);
  assert.equal(r.error.reason, "outcome_unknown");
  assert.match(r.error.message, /too large to keep across the extension's worker restart/);
});

test("a cancel after the reconnect stops the action still running, which the cache records", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  let signal;
  const w = await worker(storage, async (action, meta) => {
    signal = meta.signal;
    return new Promise(() => {});
  });
  const rid = id();
  w.ws.recv({ type: "request", id: rid, action: CLICK });
  await tick();
  const ws = await reconnect(w, w.ws);
  ws.recv({ type: "cancel", id: rid });
  await tick();
  assert.equal(signal.aborted, true);
  assert.deepEqual(responses(ws), []);
  await w.flushed();
  assert.equal(storage.map.get(KEY_PREFIX + rid).state, CANCELLED);
  assert.match(storage.map.get(KEY_PREFIX + rid).reason, /cancelled by the daemon/);
});

test("a re-sent id the cache does not know runs (it never arrived), unless the cache had to drop live entries", async () => {
  FakeWS.all = [];
  const storage = memoryStorage();
  const ran = [];
  const w = await worker(storage, async (action, meta) => {
    ran.push(meta.id);
    return { result: { ok: true } };
  });
  const lost = id();
  w.ws.recv({ type: "request", id: lost, action: CLICK, replay: true });
  await tick();
  assert.deepEqual(ran, [lost], "a request lost on the way is run when it comes again");

  for (let i = 0; i < REPLAY.maxEntries; i++) {
    w.ws.recv({ type: "request", id: id(), action: { type: "get_tabs" }, deadlineMs: 60000 });
    await tick();
  }
  const unknown = id();
  w.ws.recv({ type: "request", id: unknown, action: CLICK, replay: true });
  await tick();
  assert.ok(!ran.includes(unknown), "not run: it may be one of the dropped entries");
  const r = responses(w.ws).at(-1);
  assert.equal(r.id, unknown);
  assert.equal(r.error.reason, "outcome_unknown");
  assert.match(r.error.message, /had to drop live entries/);
  const fresh = id();
  w.ws.recv({ type: "request", id: fresh, action: CLICK });
  await tick();
  assert.ok(ran.includes(fresh), "a request sent for the first time still runs");
});
