// waitUntil (actions/nav.js), the dialogs policy (actions/dialog.js,
// actions/tabs.js) and the tab an input opens (input/new-tab.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { navigate, reload } from "../src/actions/nav.js";
import { createDebuggerController } from "../src/sessions/controller.js";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { committed, watchNewTab } from "../src/input/new-tab.js";
import { settleAfter } from "../src/input/settle.js";
import { budgetFor } from "../src/core/budget.js";
import { BridgeError } from "../src/core/errors.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

// navCtx is an executor ctx whose Page.navigate (or Page.reload) answers
// at once and then plays `events` (CDP method, params, ms after the
// command), as the tab would.
function navCtx(events, { deadlineMs = 3000, action = { type: "navigate" } } = {}) {
  const listeners = new Set();
  const emit = (m, p) => [...listeners].forEach((fn) => fn(m, p));
  const play = () => {
    for (const [m, p, ms] of events) setTimeout(() => emit(m, p), ms);
  };
  return {
    tabId: 7,
    timers: globalThis,
    budget: budgetFor(action, deadlineMs, Date.now()),
    async send(method) {
      if (method === "Page.navigate") {
        play();
        return { frameId: "MAIN", loaderId: "L2" };
      }
      if (method === "Page.reload") play();
      return {};
    },
    on(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    emit,
    mainFrame: async () => ({ id: "MAIN", loaderId: "L1" }),
    mainFrameId: () => "MAIN",
    clearUids() {},
  };
}

// settledAfter runs navigate with waitUntil `until` and plays the page's
// load one event at a time, returning the index of the event after which
// navigate answered: a check of the order, whatever the machine's load.
async function settledAfter(until, events) {
  const ctx = navCtx([]);
  const action = { type: "navigate", url: "http://h.test/", waitUntil: until };
  let done = false;
  const p = navigate(ctx, action).then(() => (done = true));
  await flush();
  for (let i = 0; i < events.length; i++) {
    ctx.emit(...events[i]);
    await flush();
    if (done) return i;
  }
  ctx.emit("Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "load" }); // let it end
  await p;
  return -1;
}

const flush = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test("navigate answers at the point waitUntil names: commit, domcontentloaded, load (the default), networkidle", async () => {
  const page = [
    ["Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } }],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" }],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "load" }],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "networkIdle" }],
  ];
  for (const [until, want] of [
    ["commit", 0],
    ["domcontentloaded", 1],
    [undefined, 2],
    ["load", 2],
    ["networkidle", 3],
  ]) {
    assert.equal(await settledAfter(until, page), want, `waitUntil ${until}`);
  }
  // Chromium may report network idle before load (nothing in flight while
  // a script runs): networkidle still waits for load.
  const early = [page[0], page[3], ["Page.loadEventFired", {}]];
  assert.equal(await settledAfter("networkidle", early), 2);
  // The old document's events are not the new one's.
  const stale = [["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L1", name: "load" }], page[0], page[2]];
  assert.equal(await settledAfter("load", stale), 2);
});

test("a wait that runs out names the point it missed; load alone settles for DOMContentLoaded", async () => {
  // A budget of 500 ms (deadlineMs 1 s), whose inner waits get 250 ms.
  const quick = [
    ["Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } }, 5],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" }, 10],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "load" }, 15],
  ];
  const cases = [
    ["networkidle", quick.slice(0, 2), /^http:\/\/h\.test\/ did not load \(and so never went network-idle\) within \d+ ms$/],
    ["networkidle", quick, /loaded but its network did not go idle \(no connection for 500 ms\) within \d+ ms$/],
    ["domcontentloaded", quick.slice(0, 1), /committed but did not reach DOMContentLoaded within/],
    ["commit", [], /did not commit \(no response from its server\) within/],
  ];
  for (const [until, events, re] of cases) {
    const action = { type: "navigate", url: "http://h.test/", waitUntil: until };
    await assert.rejects(navigate(navCtx(events, { deadlineMs: 1000, action }), action), (e) => e instanceof BridgeError && e.code === "timeout" && re.test(e.message), `${until}: ${re}`);
  }
  const action = { type: "navigate", url: "http://h.test/" };
  assert.deepEqual(await navigate(navCtx(quick.slice(0, 2), { deadlineMs: 1000, action }), action), { ok: true }, "load: DOMContentLoaded is enough at the budget's end");
});

test("reload takes waitUntil too", async () => {
  // A page that never fires load: only DOMContentLoaded can end the wait
  // before the budget (load would settle for it only at the end, ~4.7 s).
  const events = [
    ["Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } }, 10],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" }, 30],
  ];
  const action = { type: "reload", waitUntil: "domcontentloaded" };
  const t0 = Date.now();
  assert.deepEqual(await reload(navCtx(events, { action, deadlineMs: 6000 }), action), { ok: true });
  assert.ok(Date.now() - t0 < 3000, `reload waitUntil domcontentloaded took ${Date.now() - t0} ms`);
});

// dialogTab is a scripted chrome.debugger for one tab whose page opens a
// dialog while the command `opens` runs (or has one open already), and
// records what bua answered.
function dialogTab({ opens = null, dialog = { type: "alert", message: "Hi" } } = {}) {
  const calls = [];
  let c;
  const dbg = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method, params) => {
      calls.push([method, params]);
      if (method === "Page.getFrameTree") return { frameTree: { frame: { id: "MAIN", loaderId: "L1" } } };
      if (method === opens) {
        setTimeout(() => c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", dialog), 1);
        // The page goes on once the dialog is answered.
        setTimeout(() => {
          c.handleDebuggerEvent({ tabId: 7 }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } });
          c.handleDebuggerEvent({ tabId: 7 }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "load" });
        }, 20);
        return method === "Page.navigate" ? { frameId: "MAIN", loaderId: "L2" } : {};
      }
      return {};
    },
  };
  c = createDebuggerController({ chromeApi: { debugger: dbg }, emitEvent: () => {} });
  const answers = () => calls.filter(([m]) => m === "Page.handleJavaScriptDialog").map(([, p]) => p.accept);
  const traced = () => c.traces.read(7).events.filter((e) => e.answer).map((e) => `${e.level} ${e.text || ""}: ${e.answer} by ${e.action}`.replace(" :", ":"));
  return { c, calls, answers, traced };
}

test("navigate with dialogs answers a dialog left open, goes, and lists the answer", async () => {
  const { c, answers } = dialogTab();
  c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "confirm", message: "Leave?" });
  await assert.rejects(c.run(7, { type: "navigate", url: "http://h.test/" }), (e) => e.reason === "dialog_open");
  await assert.rejects(c.run(7, { type: "navigate", url: "http://h.test/", dialogs: "leave" }), (e) => e.reason === "dialog_open");
  assert.deepEqual(answers(), [], "leave: nothing answered");
  const dbg = dialogTab({ opens: "Page.navigate" });
  dbg.c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "confirm", message: "Leave?" });
  const r = await dbg.c.run(7, { type: "navigate", url: "http://h.test/", dialogs: "dismiss" });
  assert.deepEqual(r, {
    ok: true,
    dialogs: [
      { dialogType: "confirm", message: "Leave?", accepted: false },
      { dialogType: "alert", message: "Hi", accepted: false },
    ],
  });
  assert.deepEqual(dbg.answers(), [false, false]);
  assert.deepEqual(dbg.traced(), ["confirm Leave?: dismissed by navigate", "alert Hi: dismissed by navigate"]);
  assert.equal(dbg.c.hasOpenDialog(7), false);
  assert.equal(dbg.c.sessions.get(7).policy, null, "the policy ends with the action");
});

test("a beforeunload is accepted under dismiss too; a dialog after the action is left open again", async () => {
  const { c, answers, traced } = dialogTab({ opens: "Page.reload", dialog: { type: "beforeunload", message: "" } });
  const r = await c.run(7, { type: "reload", dialogs: "dismiss" });
  assert.deepEqual(r.dialogs, [{ dialogType: "beforeunload", message: "", accepted: true }]);
  assert.deepEqual(answers(), [true]);
  assert.deepEqual(traced(), ["beforeunload: accepted by reload"]);
  c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "alert", message: "later" });
  assert.equal(c.hasOpenDialog(7), true, "outside the action the dialog is left open");
});

test("only the actions that leave the page take the policy", async () => {
  const { c } = dialogTab();
  c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "alert", message: "Hi" });
  await assert.rejects(c.run(7, { type: "extract", dialogs: "accept" }), (e) => e.reason === "dialog_open");
});

test("handle_dialog and evaluate's own answers are traced too", async () => {
  const { c, traced } = dialogTab();
  c.handleDebuggerEvent({ tabId: 7 }, "Page.javascriptDialogOpening", { type: "prompt", message: "Name?" });
  await c.run(7, { type: "handle_dialog", accept: true, promptText: "Ada" });
  assert.deepEqual(traced(), ["prompt Name?: accepted by handle_dialog"]);
});

test("close_tab: a beforeunload fails it at once without a policy, and is accepted with one", async () => {
  const api = createFakeApi();
  const win = api.mkWindow({});
  const tab = api.mkTab(win.id, "http://h.test/");
  let c;
  let pendingClose = null;
  const remove = api.tabs.remove;
  // As Chrome does for a page with a beforeunload handler: tabs.remove
  // waits until the dialog it raises is answered.
  let leaving = false; // a beforeunload was accepted: the page goes without asking again
  api.tabs.remove = (id) =>
    new Promise((resolve, reject) => {
      pendingClose = () => remove(id).then(resolve, reject);
      if (leaving) return pendingClose();
      c.handleDebuggerEvent({ tabId: id }, "Page.javascriptDialogOpening", { type: "beforeunload", message: "" });
    });
  api.debugger = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method, params) => {
      if (method === "Page.getFrameTree") return { frameTree: { frame: { id: "MAIN", loaderId: "L1" } } };
      if (method === "Runtime.evaluate") return { result: { type: "number", value: 1 } };
      if (method === "Page.handleJavaScriptDialog" && params.accept && pendingClose) {
        leaving = true;
        c.handleDebuggerEvent({ tabId: target.tabId }, "Page.javascriptDialogClosed", { result: true });
        setTimeout(pendingClose, 1);
      }
      return {};
    },
  };
  c = createDebuggerController({ chromeApi: api, emitEvent: () => {} });
  let t = 1;
  const sessions = createSessionManager({ storage: api.storage, emit: () => {}, now: () => t++ });
  await sessions.init();
  const d = createDispatcher({ api, sessions, windows: createWindowManager({ api }), controller: c, emit: () => {} });
  await d.dispatch({ type: "evaluate", tabId: tab.id, expression: "return 1" }); // attached
  await assert.rejects(d.dispatch({ type: "close_tab", tabId: tab.id }), (e) => e.reason === "dialog_opened" && /a beforeunload is open/.test(e.message));
  assert.ok(api.tabsMap.has(tab.id), "the tab waits on its dialog");
  await assert.rejects(d.dispatch({ type: "close_tab", tabId: tab.id }), (e) => e.reason === "dialog_open");
  // The policy accepts the beforeunload the first close raised, which
  // lets that close finish: the tab is gone, as asked.
  const r = await d.dispatch({ type: "close_tab", tabId: tab.id, dialogs: "dismiss" });
  assert.deepEqual(r, { ok: true, tabId: tab.id, dialogs: [{ dialogType: "beforeunload", message: "", accepted: true }] });
  assert.equal(api.tabsMap.has(tab.id), false);
});

// newTabCtx is the ctx watchNewTab reads, with a webNavigation event and a
// tabs.get the test drives.
function newTabCtx({ tabs = {}, deadlineMs = 3000 } = {}) {
  const listeners = new Set();
  const targets = new Set();
  return {
    tabId: 7,
    timers: globalThis,
    budget: budgetFor({ type: "click" }, deadlineMs, Date.now()),
    on(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    emit: (m, p) => [...listeners].forEach((fn) => fn(m, p)),
    tabs: {
      async get(id) {
        if (!tabs[id]) throw new Error("No tab");
        return typeof tabs[id] === "function" ? tabs[id]() : tabs[id];
      },
    },
    webNavigation: {
      onCreatedNavigationTarget: {
        addListener: (fn) => targets.add(fn),
        removeListener: (fn) => targets.delete(fn),
      },
    },
    target: (d) => [...targets].forEach((fn) => fn(d)),
    targets,
  };
}

test("new tab: the tab a navigation from this tab opened, once its page committed", async () => {
  let reads = 0;
  const ctx = newTabCtx({ tabs: { 9: () => (++reads < 3 ? { url: "", pendingUrl: "http://h.test/b" } : { url: "http://h.test/b", status: "loading" }) } });
  const w = watchNewTab(ctx);
  ctx.emit("Page.windowOpen", { url: "http://h.test/b" });
  // Another tab's navigation target is not ours.
  ctx.target({ sourceTabId: 8, tabId: 10 });
  setTimeout(() => ctx.target({ sourceTabId: 7, tabId: 9 }), 30);
  assert.equal(await w.opened(), 9);
  assert.equal(reads, 3, "waited for the commit");
  w.off();
  assert.equal(ctx.targets.size, 0, "the listener goes with the action");
});

test("new tab: none without Page.windowOpen, none for a blocked popup, none for a tab closed at once", async () => {
  const quiet = newTabCtx();
  assert.equal(await watchNewTab(quiet).opened(), null);
  // A budget of 500 ms, whose inner waits get 250 ms (less than NEW_TAB_MS).
  const blocked = newTabCtx({ deadlineMs: 1000 });
  const w = watchNewTab(blocked);
  blocked.emit("Page.windowOpen", { url: "http://h.test/b", userGesture: false });
  // The wait is what is left of the inner time when it starts: read it
  // then, not from the budget's start, which a loaded machine moves away.
  const left = blocked.budget.inner();
  const t0 = Date.now();
  assert.equal(await w.opened(), null);
  assert.ok(Date.now() - t0 >= left - 1, `waited ${Date.now() - t0} ms for a tab that never came, with ${left} ms of the budget left`);
  const gone = newTabCtx();
  const g = watchNewTab(gone);
  gone.target({ sourceTabId: 7, tabId: 11 });
  assert.equal(await g.opened(), null);
});

test("settle: an input that navigated says where to (url), within the document too; one that did not says nothing", async () => {
  const input = (events) => {
    const ctx = navCtx(events, { action: { type: "click" } });
    ctx.send = async () => ({ result: {} }); // the settle's round trip to the page
    return settleAfter(ctx, "click", async () => events.forEach(([m, p]) => ctx.emit(m, p)));
  };
  const page = [
    ["Page.frameRequestedNavigation", { frameId: "MAIN" }],
    ["Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2", url: "http://h.test/welcome", urlFragment: "#top" } }],
    ["Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" }],
  ];
  assert.deepEqual(await input(page), { ok: true, url: "http://h.test/welcome#top" });
  assert.deepEqual(await input([["Page.navigatedWithinDocument", { frameId: "MAIN", url: "http://h.test/a#b" }]]), { ok: true, url: "http://h.test/a#b" });
  assert.deepEqual(await input([]), { ok: true });
  // A frame's navigation is not the tab's.
  assert.deepEqual(await input([["Page.frameNavigated", { frame: { id: "F", parentId: "MAIN", loaderId: "L3", url: "http://h.test/ad" } }]]), { ok: true });
});

test("committed: a pending navigation or the blank start page is not yet the tab's page", () => {
  assert.equal(committed({ url: "", pendingUrl: "http://h.test/" }), false);
  assert.equal(committed({ url: "about:blank", status: "loading" }), false);
  assert.equal(committed({ url: "about:blank", status: "complete" }), true);
  assert.equal(committed({ url: "http://h.test/", status: "loading" }), true);
});

test("a click's new tab gets a session and the debugger, and the clicked tab stays the current one", async () => {
  const api = createFakeApi();
  let t = 1;
  const sessions = createSessionManager({ storage: api.storage, emit: () => {}, now: () => t++ });
  await sessions.init();
  const windows = createWindowManager({ api });
  const prepared = [];
  let opened;
  const controller = {
    run: async (tabId, action) => {
      if (action.type !== "click") return { ok: true };
      opened = api.mkTab(api.tabsMap.get(tabId).windowId, action.selector === "#ad" ? "http://blocked.test/" : "http://h.test/new");
      return { ok: true, newTabId: opened.id };
    },
    prepare: (id) => prepared.push(id),
  };
  await sessions.addToBlocklist(["blocked.test"]);
  const d = createDispatcher({ api, sessions, windows, controller, emit: () => {} });
  const { tabId } = await d.dispatch({ type: "open_tab", url: "http://h.test/" });
  const r = await d.dispatch({ type: "click", tabId, selector: "#a" });
  assert.deepEqual(r, { ok: true, newTabId: opened.id, newTabUrl: "http://h.test/new", tabId });
  assert.ok(sessions.get(opened.id), "the new tab has a session");
  assert.ok(prepared.includes(opened.id), "and the debugger is attaching to it");
  const cur = await d.dispatch({ type: "evaluate", expression: "return 1" });
  assert.equal(cur.tabId, tabId, "an action without a tabId still goes to the clicked tab");
  const ad = await d.dispatch({ type: "click", tabId, selector: "#ad" });
  assert.deepEqual(ad, { ok: true, tabId }, "a tab on a blocklisted domain is not reported");
  assert.equal(sessions.get(opened.id), null);
});

test("open_tab attaches the debugger to a blank tab before it loads the page, so a dialog the page's first script opens is seen", async () => {
  const api = createFakeApi();
  const sessions = createSessionManager({ storage: api.storage, emit: () => {} });
  await sessions.init();
  const windows = createWindowManager({ api });
  const order = [];
  const update = api.tabs.update.bind(api.tabs);
  api.tabs.update = async (id, props) => {
    if (props.url) order.push(`load ${props.url}`);
    return update(id, props);
  };
  let attached;
  const controller = {
    run: async () => ({ ok: true }),
    prepare: (id) =>
      new Promise((resolve) => {
        order.push(`attach ${api.tabsMap.get(id).url}`);
        attached = () => (order.push("attached"), resolve());
      }),
  };
  const d = createDispatcher({ api, sessions, windows, controller, emit: () => {} });
  const opening = d.dispatch({ type: "open_tab", url: "http://h.test/alert" });
  while (!attached) await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ["attach about:blank"], "the page waits for the attach");
  attached();
  const { tabId } = await opening;
  assert.deepEqual(order, ["attach about:blank", "attached", "load http://h.test/alert"]);
  assert.equal(api.tabsMap.get(tabId).url, "http://h.test/alert");
});
