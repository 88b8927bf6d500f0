import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionManager, RECORD_WRITE_MS } from "../src/sessions/session-manager.js";
import { blockedBy, normalizeDomain, hostOf } from "../src/core/domains.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

function setup(api = createFakeApi()) {
  const events = [];
  let t = 1000;
  const sm = createSessionManager({ storage: api.storage, emit: (e) => events.push(e), now: () => t++ });
  return { api, sm, events };
}

test("blocklist matches the domain and its subdomains only", () => {
  const list = ["example.com", "blocked.localhost"];
  assert.equal(blockedBy("example.com", list), "example.com");
  assert.equal(blockedBy("a.b.example.com", list), "example.com");
  assert.equal(blockedBy("EXAMPLE.COM.", list), "example.com");
  assert.equal(blockedBy("badexample.com", list), null);
  assert.equal(blockedBy("example.com.evil.org", list), null);
  assert.equal(blockedBy("blocked.localhost", list), "blocked.localhost");
  assert.equal(blockedBy("localhost", list), null);
  assert.equal(blockedBy("", list), null);
});

test("domains normalise from what people type", () => {
  assert.equal(normalizeDomain("https://Example.com:8080/path?q"), "example.com");
  assert.equal(normalizeDomain("*.example.com"), "example.com");
  assert.equal(normalizeDomain(" Sub.Example.com. "), "sub.example.com");
  assert.equal(hostOf("http://blocked.localhost:1234/x"), "blocked.localhost");
  assert.equal(hostOf("about:blank"), "");
  assert.equal(hostOf("chrome://settings"), "");
});

test("sessions start once, count actions and end with events", async () => {
  const { sm, events } = setup();
  await sm.init();
  sm.ensureSession(7, "a.test");
  sm.ensureSession(7, "b.test"); // same tab, new domain: no second start
  sm.recordAction(7);
  sm.recordAction(7);
  assert.deepEqual(events, [{ type: "session_started", domain: "a.test", tabId: 7, startedAt: 1000 }]);
  sm.tabRemoved(7);
  assert.deepEqual(events.slice(1), [
    { type: "tab_closed", tabId: 7 },
    { type: "session_ended", domain: "b.test", tabId: 7, actionCount: 2, reason: "tab_closed" },
  ]);
  sm.tabRemoved(7);
  assert.equal(events.length, 3, "a tab without a session emits nothing");
});

test("endAll ends every session with the reason and counts them", async () => {
  const { sm, events } = setup();
  await sm.init();
  sm.ensureSession(1, "a.test");
  sm.ensureSession(2, "b.test");
  assert.equal(sm.endAll("system_idle"), 2);
  assert.deepEqual(events.filter((e) => e.type === "session_ended").map((e) => [e.tabId, e.reason]), [[1, "system_idle"], [2, "system_idle"]]);
  assert.equal(sm.list().length, 0);
});

test("blocking a domain ends its live sessions", async () => {
  const { sm, events } = setup();
  await sm.init();
  sm.ensureSession(1, "shop.example.com");
  sm.ensureSession(2, "other.test");
  await sm.addToBlocklist(["example.com"]);
  assert.deepEqual(sm.list().map((s) => s.tabId), [2]);
  assert.equal(events.at(-1).reason, "domain_blocked");
});

test("state rehydrates from storage after a worker restart", async () => {
  const api = createFakeApi();
  const first = setup(api);
  await first.sm.init();
  await first.sm.addToBlocklist(["Blocked.Localhost"]);
  first.sm.ensureSession(5, "a.test");
  first.sm.recordAction(5);
  first.sm.ensureSession(6, "b.test");
  first.sm.endSession(6, "user_stopped");
  await first.sm.flush();

  const second = setup(api); // a new worker over the same storage
  await second.sm.init();
  assert.deepEqual(second.sm.blocklist, ["blocked.localhost"]);
  const s = second.sm.get(5);
  assert.equal(s.domain, "a.test");
  assert.equal(s.actionCount, 1);
  assert.equal(second.sm.get(6), null);
  assert.equal(second.sm.history.length, 1);
  assert.equal(second.sm.history[0].reason, "user_stopped");
  second.sm.tabRemoved(5);
  assert.equal(second.events.at(-1).actionCount, 1, "the count survives the restart");
});

test("recorded actions reach storage in one deferred write; a restart before it loses only their counts", async () => {
  const api = createFakeApi();
  const writes = [];
  const set = api.storage.set;
  api.storage.set = (items) => {
    writes.push(Object.keys(items));
    return set(items);
  };
  const timers = [];
  const fakeTimers = {
    setTimeout: (fn, ms) => timers.push({ fn, ms }) - 1,
    clearTimeout: (id) => {
      if (timers[id]) timers[id].fn = null;
    },
  };
  const sm = createSessionManager({ storage: api.storage, emit: () => {}, timers: fakeTimers });
  await sm.init();
  sm.ensureSession(5, "a.test");
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 1, "a new session is written at once");
  for (let i = 0; i < 20; i++) sm.recordAction(5);
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 1, "no write per action");
  assert.equal(timers.filter((t) => t.fn).length, 1, "one write pending");
  assert.equal(timers[0].ms, RECORD_WRITE_MS);

  const restarted = createSessionManager({ storage: api.storage, emit: () => {} }); // the worker killed now
  await restarted.init();
  assert.equal(restarted.get(5).actionCount, 0, "the session survives; the last second's count does not");

  const fire = timers[0].fn; // the timer fires
  timers[0].fn = null;
  fire();
  await sm.flush();
  assert.equal(writes.length, 2);
  const again = createSessionManager({ storage: api.storage, emit: () => {} });
  await again.init();
  assert.equal(again.get(5).actionCount, 20);

  sm.recordAction(5);
  sm.endSession(5, "user_stopped"); // ends are written at once, and carry the count
  await sm.flush();
  assert.equal(timers.filter((t) => t.fn).length, 0, "the end's write replaced the pending one");
  const after = createSessionManager({ storage: api.storage, emit: () => {} });
  await after.init();
  assert.equal(after.get(5), null);
  assert.equal(after.history.at(-1).actionCount, 21);
});

test("the blocklist merges and never duplicates", async () => {
  const { sm } = setup();
  await sm.init();
  await sm.addToBlocklist(["a.test", "b.test"]);
  await sm.addToBlocklist(["A.test", "c.test"]);
  assert.deepEqual(sm.blocklist, ["a.test", "b.test", "c.test"]);
});
