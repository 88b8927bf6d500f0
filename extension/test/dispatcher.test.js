import { test } from "node:test";
import assert from "node:assert/strict";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { isListable } from "../src/actions/tabs.js";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { BridgeError } from "../src/core/errors.js";
import { budgetFor } from "../src/core/budget.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

async function setup({ run, managed = false, recorder } = {}) {
  const api = createFakeApi();
  const userWin = api.mkWindow({ focused: true });
  const events = [];
  let t = 1;
  const sessions = createSessionManager({ storage: api.storage, emit: (e) => events.push(e), now: () => t++ });
  await sessions.init();
  const windows = createWindowManager({ api, isManaged: () => managed });
  const ran = [];
  const controller = {
    run: run || (async (tabId, action) => {
      ran.push([tabId, action.type]);
      if (action.type === "navigate") api.tabsMap.get(tabId).url = action.url;
      return { ok: true };
    }),
  };
  const d = createDispatcher({ api, sessions, windows, controller, emit: (e) => events.push(e), recorder });
  return { api, userWin, events, sessions, windows, ran, d };
}

async function code(p) {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof BridgeError, `not a BridgeError: ${e}`);
    return e.code;
  }
  assert.fail("expected a BridgeError");
}

test("record_start through the dispatcher reads the tab, starts its session, then the recorder; a missing tab is tab_not_found", async () => {
  const started = [];
  const recorder = { start: async (tab) => (started.push(tab.id), { ok: true, tabId: tab.id, url: tab.url }) };
  const { sessions, d } = await setup({ recorder });
  const { tabId } = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const r = await d.dispatch({ type: "record_start", tabId });
  assert.deepEqual([r.tabId, r.url, started], [tabId, "http://site.test/a", [tabId]]);
  assert.equal(sessions.get(tabId).domain, "site.test");
  assert.equal(await code(d.dispatch({ type: "record_start", tabId: 999999 })), "tab_not_found");
  assert.deepEqual(started, [tabId]);
});

test("open_tab lands in one minimized, unfocused BUA window and starts a session", async () => {
  const { api, d, events, userWin } = await setup();
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const b = await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  assert.equal(a.windowId, b.windowId, "both tabs share the BUA window");
  assert.notEqual(a.windowId, userWin.id);
  assert.equal(a.domain, "site.test");
  const creates = api.calls.filter(([c]) => c === "windows.create");
  assert.equal(creates.length, 1);
  assert.deepEqual({ state: creates[0][1].state, focused: creates[0][1].focused }, { state: "minimized", focused: false });
  assert.deepEqual((await api.storage.get("buaWindowId")).buaWindowId, a.windowId, "the window id survives a worker restart");
  assert.deepEqual(events.filter((e) => e.type === "session_started").map((e) => e.tabId), [a.tabId, b.tabId]);
});

test("an input action makes its BUA-window tab the active one first, and fails on a background tab of the person's", async () => {
  const { api, d, userWin } = await setup();
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  for (const type of ["hover", "click", "type", "press_key"]) {
    await d.dispatch({ type: "open_tab", url: `http://site.test/${type}` }); // a goes behind it
    assert.equal(api.tabsMap.get(a.tabId).active, false);
    await d.dispatch({ type, tabId: a.tabId, selector: "#x" });
    assert.equal(api.tabsMap.get(a.tabId).active, true, `${type}: the BUA tab was brought up in its window`);
  }
  const theirs = api.mkTab(userWin.id, "http://mine.test/", { active: false });
  for (const type of ["hover", "click", "type", "press_key"]) {
    let err;
    try {
      await d.dispatch({ type, tabId: theirs.id, selector: "#x" });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof BridgeError, `${type} on the person's background tab must fail`);
    assert.deepEqual([err.code, err.reason], ["invalid_action", "background_tab"]);
    assert.match(err.message, /background tab of the person's own window.*did not run/);
    assert.equal(api.tabsMap.get(theirs.id).active, false, "the person's tab was not switched to");
  }
  const r = await d.dispatch({ type: "scroll", tabId: theirs.id, direction: "down" });
  assert.equal(r.tabId, theirs.id, "scroll runs in the page, which works in a background tab");
});

test("open_tab's window key opens a window of the caller's own, apart from the BUA window, whose background tabs are bua's to switch", async () => {
  const { api, d, userWin } = await setup();
  const bua = await d.dispatch({ type: "open_tab", url: "http://site.test/bua" });
  const a1 = await d.dispatch({ type: "open_tab", url: "http://site.test/a1", window: "w-a" });
  const b1 = await d.dispatch({ type: "open_tab", url: "http://site.test/b1", window: "w-b" });
  const a2 = await d.dispatch({ type: "open_tab", url: "http://site.test/a2", window: "w-a" });
  const ids = new Set([bua.windowId, a1.windowId, b1.windowId, userWin.id]);
  assert.equal(ids.size, 4, "the BUA window, each key's window and the person's are four windows");
  assert.equal(a2.windowId, a1.windowId, "a key's tabs share its window");
  for (const id of [a1.windowId, b1.windowId]) {
    const w = api.winsMap.get(id);
    assert.deepEqual({ state: w.state, focused: w.focused }, { state: "minimized", focused: false }, "made as the BUA window is");
  }
  assert.equal(api.winsMap.get(userWin.id).focused, true, "the person keeps the focus");
  assert.equal(api.tabsMap.get(b1.tabId).active, true, "each key's window has its own active tab");
  assert.equal(api.tabsMap.get(a1.tabId).active, false);
  await d.dispatch({ type: "click", tabId: a1.tabId, selector: "#x" });
  assert.equal(api.tabsMap.get(a1.tabId).active, true, "a background tab of a key's window is brought up, not refused");

  await api.tabs.remove(b1.tabId); // the person closes w-b's window with its last tab
  const b2 = await d.dispatch({ type: "open_tab", url: "http://site.test/b2", window: "w-b" });
  assert.ok(!ids.has(b2.windowId), "a key whose window closed gets a new one");
});

test("a second open_tab never restores or focuses the minimized BUA window", async () => {
  const { api, d, userWin } = await setup();
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const b = await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  const bua = api.winsMap.get(a.windowId);
  assert.deepEqual({ state: bua.state, focused: bua.focused }, { state: "minimized", focused: false });
  assert.equal(api.winsMap.get(userWin.id).focused, true);
  assert.equal(api.tabsMap.get(b.tabId).active, true, "the new tab is its window's active one, so input reaches it");
  const create = api.calls.find(([c]) => c === "tabs.create");
  assert.equal(create[1].active, false, "created in the background (created active, Chrome restores its window)");
});

test("a click in the minimized BUA window gives the focus back and minimizes it again", async () => {
  let pressed = 0;
  const s = await setup({
    run: async (tabId, action) => {
      // Chrome activates the window of a page that gets a mouse press.
      if (action.type === "click") {
        pressed++;
        s.api.focusWindow(s.api.tabsMap.get(tabId).windowId);
      }
      return { ok: true };
    },
  });
  const { api, d, userWin } = s;
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  await d.dispatch({ type: "click", tabId: a.tabId, selector: "#go" });
  assert.equal(pressed, 1);
  const bua = api.winsMap.get(a.windowId);
  assert.deepEqual({ state: bua.state, focused: bua.focused }, { state: "minimized", focused: false }, "the BUA window is minimized again");
  assert.equal(api.winsMap.get(userWin.id).focused, true, "the person's window has the focus back");
  const updates = api.calls.filter(([c]) => c === "windows.update").map(([, id, p]) => [id, p]);
  assert.deepEqual(updates, [[a.windowId, { state: "minimized" }], [userWin.id, { focused: true }]]);

  // A click in the window that has the focus touches no window.
  const mine = api.mkTab(userWin.id, "http://mine.test/");
  const n = api.calls.length;
  await d.dispatch({ type: "click", tabId: mine.id, selector: "#go" });
  assert.equal(pressed, 2);
  assert.equal(api.calls.slice(n).filter(([c]) => c === "windows.update").length, 0);
});

test("in a managed browser a click reads no window and keeps no focus: nobody sits at it", async () => {
  const { api, d } = await setup({ managed: true });
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const reads = [];
  for (const [ns, fn] of [["windows", "get"], ["windows", "getAll"]]) {
    const orig = api[ns][fn];
    api[ns][fn] = (...args) => (reads.push(`${ns}.${fn}`), orig(...args));
  }
  await d.dispatch({ type: "click", tabId: a.tabId, selector: "#go" });
  assert.deepEqual(reads, [], "a managed click costs no window read");
});

test("a click that leaves its window as it was touches no window", async () => {
  const { api, d } = await setup();
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const n = api.calls.length;
  await d.dispatch({ type: "click", tabId: a.tabId, selector: "#go" });
  assert.equal(api.calls.slice(n).filter(([c]) => c === "windows.update").length, 0);
});

test("concurrent open_tabs never create two BUA windows", async () => {
  const { api, d } = await setup();
  const rs = await Promise.all([1, 2, 3].map((i) => d.dispatch({ type: "open_tab", url: `http://s.test/${i}` })));
  assert.equal(new Set(rs.map((r) => r.windowId)).size, 1);
  assert.equal(api.calls.filter(([c]) => c === "windows.create").length, 1);
});

test("open_tab with focus goes to the person's focused window", async () => {
  const { d, userWin } = await setup();
  const r = await d.dispatch({ type: "open_tab", url: "http://s.test/", focus: true });
  assert.equal(r.windowId, userWin.id);
});

test("explicit tabId wins, and a missing one is tab_not_found", async () => {
  const { api, d, ran, userWin } = await setup();
  const user = api.mkTab(userWin.id, "http://mine.test/");
  await d.dispatch({ type: "open_tab", url: "http://bua.test/" });
  const r = await d.dispatch({ type: "click", selector: "a", tabId: user.id });
  assert.deepEqual(r, { ok: true, tabId: user.id });
  assert.deepEqual(ran.at(-1), [user.id, "click"]);
  assert.equal(await code(d.dispatch({ type: "click", selector: "a", tabId: 9999 })), "tab_not_found");
  assert.equal(await code(d.dispatch({ type: "close_tab", tabId: 9999 })), "tab_not_found");
});

test("without tabId the most recently used BUA-window session wins", async () => {
  const { api, d, ran, userWin } = await setup();
  const user = api.mkTab(userWin.id, "http://mine.test/");
  await d.dispatch({ type: "click", selector: "a", tabId: user.id }); // a user-tab session
  const a = await d.dispatch({ type: "open_tab", url: "http://bua.test/a" });
  const b = await d.dispatch({ type: "open_tab", url: "http://bua.test/b" });
  await d.dispatch({ type: "extract" });
  assert.deepEqual(ran.at(-1), [b.tabId, "extract"]);
  await d.dispatch({ type: "extract", tabId: a.tabId });
  await d.dispatch({ type: "scroll", direction: "down" });
  assert.deepEqual(ran.at(-1), [a.tabId, "scroll"], "a is now the most recent");
});

test("no session: navigate opens a BUA tab, anything else is session_not_found", async () => {
  const { d, ran, api } = await setup();
  assert.equal(await code(d.dispatch({ type: "extract" })), "session_not_found");
  const r = await d.dispatch({ type: "navigate", url: "http://new.test/" });
  const tab = api.tabsMap.get(r.tabId);
  const { buaWindowId } = await api.storage.get("buaWindowId");
  assert.equal(tab.windowId, buaWindowId);
  assert.deepEqual(ran, [[r.tabId, "navigate"]]);
  await d.dispatch({ type: "extract" });
  assert.deepEqual(ran.at(-1), [r.tabId, "extract"]);
});

test("several sessions outside the BUA window and none in it are ambiguous", async () => {
  const { api, d, userWin } = await setup();
  const t1 = api.mkTab(userWin.id, "http://one.test/");
  const t2 = api.mkTab(userWin.id, "http://two.test/");
  await d.dispatch({ type: "extract", tabId: t1.id });
  assert.deepEqual(await d.dispatch({ type: "extract" }), { ok: true, tabId: t1.id }, "one user session is not ambiguous");
  await d.dispatch({ type: "extract", tabId: t2.id });
  let msg;
  try {
    await d.dispatch({ type: "click", selector: "a" });
  } catch (e) {
    assert.equal(e.code, "session_not_found");
    msg = e.message;
  }
  assert.match(msg, /2 sessions/);
});

test("with the debugger attached, the blocklist reads its committed URL, not the tabs API", async () => {
  const { api, d, sessions, ran, userWin } = await setup();
  await sessions.addToBlocklist(["blocked.localhost"]);
  const t = api.mkTab(userWin.id, "http://fine.test/");
  let committed = null; // not attached yet
  let n = 0;
  const get = api.tabs.get;
  api.tabs.get = (id) => (n++, get(id));
  const gets = () => n;
  const c = { run: async (tabId, action) => (ran.push([tabId, action.type]), { ok: true }), committedUrl: () => committed };
  const d2 = createDispatcher({ api, sessions, windows: createWindowManager({ api }), controller: c, emit: () => {} });
  const before = gets();
  await d2.dispatch({ type: "click", selector: "a", tabId: t.id });
  assert.equal(gets() - before, 1, "not attached: one tabs.get");
  committed = "http://fine.test/next";
  await d2.dispatch({ type: "screenshot", tabId: t.id });
  assert.equal(gets() - before, 1, "attached: no tabs.get");
  await d2.dispatch({ type: "click", selector: "a", tabId: t.id });
  assert.equal(gets() - before, 2, "attached: an input action reads only whether its tab is the active one");
  committed = "http://sub.blocked.localhost/"; // the page navigated there
  assert.equal(await code(d2.dispatch({ type: "click", selector: "a", tabId: t.id })), "domain_blocked");
  assert.equal(ran.length, 3);
  assert.ok(d, "the default setup still builds");
});

test("the blocklist refuses actions, open_tab and navigate targets, with an event", async () => {
  const { api, d, events, sessions, ran, userWin } = await setup();
  await sessions.addToBlocklist(["blocked.localhost"]);
  assert.equal(await code(d.dispatch({ type: "open_tab", url: "http://sub.blocked.localhost:8080/" })), "domain_blocked");
  assert.deepEqual(events.at(-1), { type: "domain_blocked", domain: "sub.blocked.localhost", attemptedAction: "open_tab" });
  assert.equal(api.calls.filter(([c]) => c === "windows.create").length, 0, "nothing was opened");

  const t = api.mkTab(userWin.id, "http://blocked.localhost/");
  assert.equal(await code(d.dispatch({ type: "click", selector: "a", tabId: t.id })), "domain_blocked");
  assert.deepEqual(events.at(-1), { type: "domain_blocked", domain: "blocked.localhost", attemptedAction: "click", tabId: t.id });

  const ok = await d.dispatch({ type: "open_tab", url: "http://fine.test/" });
  assert.equal(await code(d.dispatch({ type: "navigate", url: "http://blocked.localhost/x", tabId: ok.tabId })), "domain_blocked");
  assert.equal(ran.length, 0, "the controller never ran");
  assert.equal(api.tabsMap.get(ok.tabId).url, "http://fine.test/");
});

test("get_tabs hides blocklisted and non-web tabs", async () => {
  const { api, d, sessions, userWin } = await setup();
  await sessions.addToBlocklist(["blocked.localhost"]);
  api.mkTab(userWin.id, "http://ok.test/");
  api.mkTab(userWin.id, "about:blank");
  api.mkTab(userWin.id, "chrome://settings/");
  api.mkTab(userWin.id, "http://x.blocked.localhost/");
  const tabs = await d.dispatch({ type: "get_tabs" });
  assert.deepEqual(tabs.map((t) => t.url), ["http://ok.test/", "about:blank"]);
  assert.deepEqual(Object.keys(tabs[0]).sort(), ["domain", "tabId", "title", "url", "windowId"]);
  assert.ok(isListable("https://a") && !isListable("file:///etc/passwd"));
});

test("actions on one tab run one at a time, in order", async () => {
  const log = [];
  let release;
  const gate = new Promise((r) => (release = r));
  const { api, d, userWin } = await setup({
    run: async (tabId, action) => {
      log.push(`start ${action.selector}`);
      if (action.selector === "first") await gate;
      log.push(`end ${action.selector}`);
      return { ok: true };
    },
  });
  const t = api.mkTab(userWin.id, "http://q.test/");
  const p1 = d.dispatch({ type: "click", selector: "first", tabId: t.id });
  const p2 = d.dispatch({ type: "click", selector: "second", tabId: t.id });
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(log, ["start first"], "the second waits for the first");
  release();
  await Promise.all([p1, p2]);
  assert.deepEqual(log, ["start first", "end first", "start second", "end second"]);
});

test("get_trace answers at once beside a running action, starts no session, and fails for a closed tab", async () => {
  let release;
  const gate = new Promise((r) => (release = r));
  const { api, d, userWin, sessions } = await setup({
    run: async (tabId, action) => {
      if (action.type === "get_trace") return { events: [], nextSeq: 1, dropped: 0 };
      await gate;
      return { ok: true };
    },
  });
  const t = api.mkTab(userWin.id, "http://q.test/");
  assert.deepEqual(await d.dispatch({ type: "get_trace", tabId: t.id }), { events: [], nextSeq: 1, dropped: 0, tabId: t.id });
  assert.equal(sessions.get(t.id), null, "reading the trace starts no session");
  const slow = d.dispatch({ type: "wait_for", selector: "#late", tabId: t.id });
  const read = await Promise.race([d.dispatch({ type: "get_trace", tabId: t.id }), new Promise((r) => setTimeout(() => r("queued"), 200))]);
  assert.notEqual(read, "queued", "get_trace did not wait behind wait_for");
  release();
  await slow;
  assert.equal(await code(d.dispatch({ type: "get_trace", tabId: 9999 })), "tab_not_found");
});

test("a failing action does not block the tab's queue", async () => {
  const { api, d, userWin } = await setup({
    run: async (tabId, action) => {
      if (action.selector === "bad") throw new BridgeError("element_not_found", "no match");
      return { ok: true };
    },
  });
  const t = api.mkTab(userWin.id, "http://q.test/");
  const bad = d.handle({ type: "click", selector: "bad", tabId: t.id });
  const good = d.handle({ type: "click", selector: "good", tabId: t.id });
  assert.deepEqual(await bad, { error: { code: "element_not_found", message: "no match" } });
  assert.deepEqual(await good, { result: { ok: true, tabId: t.id } });
});

test("unexpected throws map to internal_error", async () => {
  const { api, d, userWin } = await setup({ run: async () => { throw new TypeError("x is undefined"); } });
  const t = api.mkTab(userWin.id, "http://q.test/");
  assert.deepEqual(await d.handle({ type: "hover", selector: "a", tabId: t.id }), { error: { code: "internal_error", message: "x is undefined" } });
});

test("close_tab removes the tab; the session ends via tabRemoved", async () => {
  const { api, d, events, sessions } = await setup();
  const r = await d.dispatch({ type: "open_tab", url: "http://c.test/" });
  assert.deepEqual(await d.dispatch({ type: "close_tab", tabId: r.tabId }), { ok: true, tabId: r.tabId });
  assert.equal(api.tabsMap.has(r.tabId), false);
  sessions.tabRemoved(r.tabId); // what background.js does on tabs.onRemoved
  assert.deepEqual(events.slice(-2).map((e) => e.type), ["tab_closed", "session_ended"]);
  assert.equal(await code(d.dispatch({ type: "extract" })), "session_not_found");
});

test("a session whose tab vanished while the worker slept is cleaned up", async () => {
  const { api, d, sessions, events } = await setup();
  const r = await d.dispatch({ type: "open_tab", url: "http://c.test/" });
  api.tabsMap.delete(r.tabId); // no onRemoved delivered
  assert.equal(await code(d.dispatch({ type: "extract" })), "session_not_found");
  assert.equal(sessions.get(r.tabId), null);
  assert.equal(events.at(-1).reason, "tab_closed");
});

test("a restarted worker reuses the BUA window it persisted, and replaces a closed one", async () => {
  const { api, d } = await setup();
  const first = await d.dispatch({ type: "open_tab", url: "http://w.test/1" });
  const again = createWindowManager({ api }); // a fresh worker over the same storage
  const tab = await again.openTab("http://w.test/2");
  assert.equal(tab.windowId, first.windowId);
  assert.equal(api.calls.filter(([c]) => c === "windows.create").length, 1);
  await api.tabs.remove(first.tabId);
  await api.tabs.remove(tab.id); // the window closes with its last tab
  const fresh = await again.openTab("http://w.test/3");
  assert.notEqual(fresh.windowId, first.windowId);
  assert.equal((await api.storage.get("buaWindowId")).buaWindowId, fresh.windowId);
});

test("routing is by scope: reload goes to the controller and gets tabId once; an unknown type is invalid_action", async () => {
  const { api, d, ran, userWin } = await setup();
  const t = api.mkTab(userWin.id, "http://r.test/");
  assert.deepEqual(await d.dispatch({ type: "reload", tabId: t.id }), { ok: true, tabId: t.id });
  assert.deepEqual(ran.at(-1), [t.id, "reload"]);
  assert.equal(await code(d.dispatch({ type: "drag", tabId: t.id })), "invalid_action");
  assert.equal(await code(d.dispatch({ type: "toString" })), "invalid_action");
});

test("the queue wait comes out of the budget, and an action whose budget ran out while queued never runs", async () => {
  let release;
  const gate = new Promise((r) => (release = r));
  const left = [];
  const { api, d, userWin } = await setup({
    run: async (tabId, action, budget) => {
      left.push([action.selector, budget.remaining()]);
      if (action.selector === "first") await gate;
      return { ok: true };
    },
  });
  const t = api.mkTab(userWin.id, "http://q.test/");
  const first = d.dispatch({ type: "click", selector: "first", tabId: t.id });
  const secondAction = { type: "click", selector: "second", tabId: t.id };
  const second = d.dispatch(secondAction, budgetFor(secondAction, 10000));
  const thirdAction = { type: "click", selector: "third", tabId: t.id };
  const third = d.handle(thirdAction, budgetFor(thirdAction, 60)); // 30 ms budget
  await new Promise((r) => setTimeout(r, 80));
  release();
  await first;
  await second;
  // The watchdog gets what is left of the 30 ms when the dispatch starts:
  // 30 on a quiet machine, a little less on a loaded one.
  const thirdOut = await third;
  assert.equal(thirdOut.error && thirdOut.error.code, "timeout");
  assert.match(thirdOut.error.message, /^click did not finish within ([12]\d|30) ms$/);
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(left.map(([s]) => s), ["first", "second"], "third never ran");
  const secondLeft = left[1][1];
  assert.ok(secondLeft <= budgetFor(secondAction, 10000).ms - 70, `second had ${secondLeft} ms left after ~80 ms in the queue`);
});

test("browser actions run within the budget too", async () => {
  const { api, d } = await setup();
  const r = await d.dispatch({ type: "open_tab", url: "http://o.test/" });
  api.tabsMap.get(r.tabId).status = "loading";
  // open_tab answers with a still-loading tab once its load wait (from the
  // budget) is spent, rather than failing.
  const t0 = Date.now();
  const again = { type: "open_tab", url: "http://o2.test/" };
  const origCreate = api.tabs.create;
  api.tabs.create = async (props) => {
    const tab = await origCreate(props);
    api.tabsMap.get(tab.id).status = "loading";
    return tab;
  };
  // Answered, not failed: past its budget the dispatcher's watchdog would
  // have ended it with timeout (both are timers, so the order holds however
  // late a loaded machine runs them).
  const r2 = await d.dispatch(again, budgetFor(again, 900)); // 450 ms budget, 200 ms load wait
  const took = Date.now() - t0;
  assert.equal(r2.domain, "o2.test");
  assert.ok(took >= 150, `open_tab took ${took} ms: it did not wait for the load`);
});
