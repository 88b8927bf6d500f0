import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionManager, blockedBy, normalizeDomain, hostOf } from "../src/session-manager.js";
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

test("the blocklist merges and never duplicates", async () => {
  const { sm } = setup();
  await sm.init();
  await sm.addToBlocklist(["a.test", "b.test"]);
  await sm.addToBlocklist(["A.test", "c.test"]);
  assert.deepEqual(sm.blocklist, ["a.test", "b.test", "c.test"]);
});
