import { test } from "node:test";
import assert from "node:assert/strict";
import { createHandoffRegistry } from "../src/sessions/handoff-registry.js";
import { createHandoffService, executors } from "../src/actions/handoff.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { TAB_EXECUTORS } from "../src/sessions/executors.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

function clock(start = 1000) {
  const c = { t: start, now: () => c.t };
  return c;
}

test("registry: request, list, resolve, idempotent per tab, subscribers told", () => {
  const api = createFakeApi();
  const c = clock();
  const reg = createHandoffRegistry({ storage: api.storage, now: c.now });
  const seen = [];
  const unsubscribe = reg.subscribe((l) => seen.push(l.map((e) => e.tabId)));
  const e = reg.request(7, { domain: "shop.test", obstacleType: "captcha", message: "solve it", restore: { windowId: 3, index: 0, moved: true } });
  assert.deepEqual({ tabId: e.tabId, since: e.since }, { tabId: 7, since: 1000 });
  c.t = 2000;
  reg.request(9, { domain: "b.test", obstacleType: "auth_wall", message: "" });
  c.t = 3000;
  assert.equal(reg.request(7, { domain: "other" }).since, 1000, "a second request keeps the first entry");
  assert.deepEqual(reg.list(), [
    { tabId: 7, domain: "shop.test", obstacleType: "captcha", message: "solve it", since: 1000 },
    { tabId: 9, domain: "b.test", obstacleType: "auth_wall", message: "", since: 2000 },
  ]);
  assert.equal(reg.resolve(7).restore.windowId, 3);
  assert.equal(reg.resolve(7), null, "resolving twice finds nothing");
  unsubscribe();
  reg.resolve(9);
  assert.deepEqual(seen, [[7], [7, 9], [9]]);
});

test("registry: a restarted worker finds the entries in storage.local handoffs", async () => {
  const api = createFakeApi();
  const reg = createHandoffRegistry({ storage: api.storage, now: () => 5 });
  reg.request(4, { domain: "a.test", obstacleType: "captcha", message: "m" });
  await reg.flushed();
  assert.equal(api.storeMap.get("handoffs").length, 1);
  const again = createHandoffRegistry({ storage: api.storage, now: () => 99 });
  await again.init();
  assert.deepEqual(again.list(), [{ tabId: 4, domain: "a.test", obstacleType: "captcha", message: "m", since: 5 }]);
});

// setup: the person's window (focused) and the minimized BUA window holding
// the agent's tab.
async function setup() {
  const api = createFakeApi();
  const person = api.mkWindow({ state: "maximized", focused: true });
  api.mkTab(person.id, "https://mine.test/"); // the person's own page
  const windows = createWindowManager({ api });
  const tab = await windows.openTab("https://shop.test/checkout");
  const buaId = await windows.buaWindowId();
  const c = clock();
  const registry = createHandoffRegistry({ storage: api.storage, now: c.now });
  const events = [];
  const svc = createHandoffService({ api, windows, registry, emit: (e) => events.push(e), now: c.now });
  return { api, person, tab, buaId, c, registry, events, svc };
}

test("requested moves a tab out of the BUA window into the person's window; resolved moves it back", async () => {
  const { api, person, tab, buaId, c, registry, events, svc } = await setup();
  const shown = await svc.run(tab.id, { type: "handoff", state: "requested", obstacleType: "captcha", message: "A captcha is shown" });
  assert.deepEqual(shown, { windowId: person.id, moved: true });
  assert.equal(api.tabsMap.get(tab.id).windowId, person.id);
  assert.equal(api.tabsMap.get(tab.id).active, true);
  assert.deepEqual(api.calls.find((x) => x[0] === "windows.update" && x[1] === person.id)[2], { focused: true }, "a maximized window keeps its state");
  assert.deepEqual(registry.list().map((e) => e.tabId), [tab.id]);
  assert.deepEqual(events, [{ type: "handoff_requested", tabId: tab.id, domain: "shop.test", obstacleType: "captcha", message: "A captcha is shown" }]);

  // Idempotent: a second request neither moves nor announces again.
  await svc.run(tab.id, { type: "handoff", state: "requested", obstacleType: "captcha" });
  assert.equal(api.calls.filter((x) => x[0] === "tabs.move").length, 1);
  assert.equal(events.length, 1);

  c.t += 4200;
  assert.equal(api.winsMap.has(buaId), false, "its last tab gone, Chrome closed the BUA window");
  const back = await svc.run(tab.id, { type: "handoff", state: "resolved" });
  assert.equal(back.moved, true);
  assert.equal(api.tabsMap.get(tab.id).windowId, back.windowId);
  const again = api.winsMap.get(back.windowId);
  assert.deepEqual({ state: again.state, focused: again.focused }, { state: "minimized", focused: false }, "back in a new minimized BUA window");
  assert.equal((await api.storage.get("buaWindowId")).buaWindowId, back.windowId, "which bua opens its next tabs into");
  assert.equal(api.winsMap.get(person.id).focused, true, "the person keeps the focus");
  assert.deepEqual(registry.list(), []);
  assert.deepEqual(events[1], { type: "handoff_resolved", tabId: tab.id, domain: "shop.test", outcome: "resolved", waitedMs: 4200 });
  // Idempotent too: nothing more happens.
  await svc.run(tab.id, { type: "handoff", state: "abandoned" });
  assert.equal(events.length, 2);
});

test("resolved moves the tab back into the BUA window it came from when other tabs kept it open", async () => {
  const { api, tab, buaId, svc, events } = await setup();
  const other = api.mkTab(buaId, "https://other.test/");
  await svc.run(tab.id, { type: "handoff", state: "requested", obstacleType: "captcha" });
  assert.equal(api.winsMap.has(buaId), true);
  assert.deepEqual(await svc.run(tab.id, { type: "handoff", state: "abandoned" }), { windowId: buaId, moved: true });
  assert.equal(api.tabsMap.get(tab.id).windowId, buaId);
  assert.equal(api.tabsMap.get(other.id).windowId, buaId);
  assert.equal(api.calls.filter((x) => x[0] === "windows.create").length, 1, "no second BUA window");
  assert.equal(events.at(-1).outcome, "abandoned");
});

test("requested on a tab in a window of its own focuses that window, restoring it if minimized, and moves nothing", async () => {
  const api = createFakeApi();
  const own = api.mkWindow({ state: "minimized", focused: false });
  const t = api.mkTab(own.id, "https://a.test/");
  const windows = createWindowManager({ api });
  const registry = createHandoffRegistry({ storage: api.storage });
  const events = [];
  const svc = createHandoffService({ api, windows, registry, emit: (e) => events.push(e) });
  assert.deepEqual(await svc.run(t.id, { type: "handoff", state: "requested" }), { windowId: own.id, moved: false });
  assert.deepEqual(api.winsMap.get(own.id), { ...api.winsMap.get(own.id), state: "normal", focused: true });
  assert.equal(api.calls.filter((x) => x[0] === "tabs.move").length, 0);
  assert.deepEqual(await svc.run(t.id, { type: "handoff", state: "abandoned" }), { windowId: own.id, moved: false });
  assert.equal(events[1].outcome, "abandoned");
});

test("an unknown state is invalid_action; the executor is registered and runs the worker's service", async () => {
  const { svc, tab } = await setup();
  await assert.rejects(svc.run(tab.id, { type: "handoff", state: "paused" }), { code: "invalid_action" });
  assert.equal(TAB_EXECUTORS.handoff, executors.handoff);
  const got = await executors.handoff({ tabId: 3, handoff: { run: async (id, a) => ({ id, state: a.state }) } }, { state: "resolved" });
  assert.deepEqual(got, { id: 3, state: "resolved" });
  assert.throws(() => executors.handoff({ tabId: 3 }, { state: "resolved" }), { code: "internal_error" });
});
