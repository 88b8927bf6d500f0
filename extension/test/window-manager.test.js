// The BUA window opened ahead of time (prewarm): a managed browser opens it
// at start-up, and its blank tab is handed to the first caller that needs a
// BUA-window tab (docs/cold-start.md#what-a-cold-start-overlaps).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager, HIDE_WATCH_MS } from "../src/windows/window-manager.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

async function setup({ managed = false } = {}) {
  const api = createFakeApi();
  const sessions = createSessionManager({ storage: api.storage, emit: () => {} });
  await sessions.init();
  const windows = createWindowManager({ api, isManaged: () => managed });
  const ran = [];
  const prepared = []; // the tabs the debugger attached to ahead of an action
  const controller = {
    run: async (tabId, action) => {
      ran.push([tabId, action.type]);
      if (action.type === "navigate") api.tabsMap.get(tabId).url = action.url;
      return { ok: true };
    },
    prepare: async (tabId) => {
      prepared.push(tabId);
      api.calls.push(["prepare", tabId]);
    },
  };
  const d = createDispatcher({ api, sessions, windows, controller, emit: () => {} });
  return { api, windows, ran, prepared, d };
}

const settle = () => new Promise((r) => setImmediate(r));

const count = (api, call) => api.calls.filter(([c]) => c === call).length;

test("prewarm opens the minimized BUA window; the first open_tab gets its tab, the next a new one", async () => {
  const { api, windows, d } = await setup();
  const spare = await windows.prewarm();
  assert.ok(spare, "prewarm returned the spare tab");
  const [, props] = api.calls.find(([c]) => c === "windows.create");
  assert.deepEqual({ url: props.url, state: props.state, focused: props.focused }, { url: "about:blank", state: "minimized", focused: false });
  assert.equal(windows.isSpare(spare.id), true);
  assert.deepEqual(await d.dispatch({ type: "get_tabs" }), [], "get_tabs does not list the spare nobody asked for");

  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  assert.equal(a.tabId, spare.id, "the first open_tab is handed the spare");
  assert.equal(api.tabsMap.get(spare.id).url, "http://site.test/a");
  assert.equal(windows.isSpare(spare.id), false);
  assert.deepEqual((await d.dispatch({ type: "get_tabs" })).map((t) => t.tabId), [spare.id], "once handed out it is listed");
  assert.equal(count(api, "tabs.create"), 0);

  const b = await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  assert.notEqual(b.tabId, a.tabId);
  assert.equal(b.windowId, a.windowId, "later tabs join the same BUA window");
  assert.equal(count(api, "tabs.create"), 1);
  assert.equal(count(api, "windows.create"), 1);
});

test("navigate without a tab runs in the spare", async () => {
  const { api, windows, d, ran } = await setup();
  const spare = await windows.prewarm();
  const r = await d.dispatch({ type: "navigate", url: "http://site.test/n" });
  assert.equal(r.tabId, spare.id);
  assert.deepEqual(ran, [[spare.id, "navigate"]]);
  assert.equal(count(api, "tabs.create") + count(api, "windows.create"), 1, "only prewarm opened anything");
});

test("prewarm opens nothing when a BUA window exists", async () => {
  const { api, windows, d } = await setup();
  await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  assert.equal(await windows.prewarm(), null);
  // A restarted worker finds the window through storage.
  await new Promise((r) => setImmediate(r)); // the unawaited buaWindowId write
  assert.equal(await createWindowManager({ api }).prewarm(), null);
  assert.equal(count(api, "windows.create"), 1);
});

test("a closed BUA window takes its spare with it", async () => {
  const { api, windows, d } = await setup();
  const spare = await windows.prewarm();
  await api.tabs.remove(spare.id); // the window closes with its last tab
  windows.windowRemoved(spare.windowId);
  assert.equal(windows.isSpare(spare.id), false);
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  assert.notEqual(a.windowId, spare.windowId);
  assert.equal(count(api, "windows.create"), 2);
});

test("open_tab on the spare waits until the tab has left about:blank", async () => {
  const { api, windows, d } = await setup();
  const spare = await windows.prewarm();
  // Chrome may still report the blank document, complete, right after
  // tabs.update: open_tab must not answer with it.
  let reads = 0;
  const get = api.tabs.get;
  api.tabs.get = async (id) => {
    const tab = await get(id);
    if (id === spare.id && ++reads <= 2) return { ...tab, url: "about:blank", status: "complete" };
    return tab;
  };
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  assert.equal(a.tabId, spare.id);
  assert.ok(reads > 2, `open_tab answered after ${reads} reads, while the tab still showed about:blank`);
});

test("a managed browser's BUA window is a normal, unfocused one, and a screenshot of its background tab makes that tab active first", async () => {
  const { api, windows, d } = await setup({ managed: true });
  await windows.prewarm();
  const [, props] = api.calls.find(([c]) => c === "windows.create");
  assert.deepEqual({ state: props.state, focused: props.focused }, { state: "normal", focused: false });
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  assert.equal(api.tabsMap.get(a.tabId).active, false, "the first tab is in the background");
  await d.dispatch({ type: "screenshot", tabId: a.tabId });
  assert.equal(api.tabsMap.get(a.tabId).active, true, "the screenshot's tab was made active");
  const clicks = api.calls.length;
  await d.dispatch({ type: "click", tabId: a.tabId, selector: "#x" });
  assert.equal(api.calls.slice(clicks).filter(([c]) => c.startsWith("windows.")).length, 0, "a click in a managed browser reads no windows");
});

test("a managed browser's windows are sized so their pages are 1280×720; a person's are created as Chrome sizes them and never resized", async () => {
  for (const managed of [true, false]) {
    const { api, windows } = await setup({ managed });
    // As Chrome does: a window's size includes its tab strip and toolbar
    // (87 px headless), and its tabs report the page's size.
    const create = api.windows.create;
    api.windows.create = async (props) => {
      const w = await create(props);
      Object.assign(w, { width: props.width || 800, height: props.height || 600 });
      w.tabs = w.tabs.map((t) => ({ ...t, width: w.width, height: w.height - 87 }));
      return w;
    };
    await windows.openTab("http://site.test/a");
    await windows.openTab("http://site.test/b", { focus: true });
    const creates = api.calls.filter(([c]) => c === "windows.create").map(([, p]) => [p.width, p.height]);
    const resizes = api.calls.filter(([c, , p]) => c === "windows.update" && (p.width !== undefined || p.height !== undefined)).map(([, , p]) => [p.width, p.height]);
    if (managed) {
      assert.deepEqual(creates, [[1280, 720], [1280, 720]], "managed windows are asked for at 1280×720");
      assert.deepEqual(resizes, [[1280, 807], [1280, 807]], "then grown by the toolbar, so the page is 1280×720");
    } else {
      assert.deepEqual(creates, [[undefined, undefined], [undefined, undefined]], "a person's windows get no size");
      assert.deepEqual(resizes, [], "and are never resized");
    }
  }
});

// A person's BUA window made around a tab (a handoff's return): the window
// manager (openbox) may map it, normal and focused, after windows.create
// answered minimized. personSetup is the person's focused window with the
// handed-back tab, a window manager on a clock the test moves, and the
// new BUA window around that tab.
async function personSetup({ managed = false } = {}) {
  const api = createFakeApi();
  const person = api.mkWindow({ focused: true });
  api.mkTab(person.id, "http://mine.test/");
  const tab = api.mkTab(person.id, "http://shop.test/");
  const clock = { t: 1000 };
  const windows = createWindowManager({ api, isManaged: () => managed, now: () => clock.t });
  const buaId = await windows.takeBack(tab.id);
  const shown = () => {
    const w = api.winsMap.get(buaId);
    return { state: w.state, focused: w.focused };
  };
  return { api, person, clock, windows, buaId, shown };
}

const HIDDEN = { state: "minimized", focused: false };

test("a person's new BUA window that the window manager shows late is minimized again, the focus back on the person's window", async () => {
  const { api, person, clock, windows, buaId, shown } = await personSetup();
  assert.deepEqual(shown(), HIDDEN);
  clock.t += HIDE_WATCH_MS - 1;
  api.focusWindow(buaId); // openbox maps it normal and focused
  await windows.focusChanged(buaId);
  assert.deepEqual(shown(), HIDDEN);
  assert.equal(api.winsMap.get(person.id).focused, true, "the person's window has the focus back");

  // Shown without the focus: onBoundsChanged reports it.
  api.winsMap.get(buaId).state = "normal";
  await windows.boundsChanged({ id: buaId, state: "normal", focused: false });
  assert.equal(api.winsMap.get(buaId).state, "minimized");
  // A bounds change of another window, or of the minimized BUA window, is no business of the watch.
  const n = api.calls.length;
  await windows.boundsChanged({ id: person.id, state: "normal", focused: true });
  await windows.boundsChanged({ id: buaId, state: "minimized", focused: false });
  assert.equal(api.calls.length, n);
});

test("the focus goes back to the window the person (or bua open --focus) focused last, none when they left Chrome", async () => {
  const { api, windows, buaId, shown } = await personSetup();
  const other = api.mkWindow({ focused: false });
  api.focusWindow(other.id);
  windows.focusChanged(other.id);
  windows.focusChanged(-1); // the focus passes through no window on its way
  api.focusWindow(buaId);
  await windows.focusChanged(buaId);
  assert.deepEqual(shown(), HIDDEN);
  assert.equal(api.winsMap.get(other.id).focused, true);

  // The person was in another program when the window was made: it is
  // minimized again, and no Chrome window takes the focus from that program.
  const api2 = createFakeApi();
  const mine = api2.mkWindow({ focused: false });
  const tab = api2.mkTab(mine.id, "http://shop.test/");
  api2.mkTab(mine.id, "http://mine.test/");
  const w2 = createWindowManager({ api: api2 });
  const id2 = await w2.takeBack(tab.id);
  api2.focusWindow(id2);
  await w2.focusChanged(id2);
  assert.deepEqual({ state: api2.winsMap.get(id2).state, focused: api2.winsMap.get(id2).focused }, HIDDEN);
  assert.equal(api2.calls.some(([c, id, p]) => c === "windows.update" && id === mine.id && p.focused), false);
});

test("bua's own show of the BUA window is not fought, nor the person's once the watch is over, nor anything in a managed browser", async () => {
  // A handoff's tab with no other window to go to, or the popup's "bua
  // needs you" button: windows.show ends the watch.
  {
    const { api, windows, buaId, shown } = await personSetup();
    await windows.show(buaId);
    assert.deepEqual(shown(), { state: "normal", focused: true });
    const n = api.calls.length;
    await windows.focusChanged(buaId);
    assert.deepEqual(shown(), { state: "normal", focused: true });
    assert.equal(api.calls.length, n, "nothing undone");
  }
  // The person restores the window after the watch.
  {
    const { api, clock, windows, buaId, shown } = await personSetup();
    clock.t += HIDE_WATCH_MS + 1;
    api.focusWindow(buaId);
    await windows.focusChanged(buaId);
    assert.deepEqual(shown(), { state: "normal", focused: true });
  }
  // Nobody sits at a managed browser: its BUA window is never watched.
  {
    const { api, windows, buaId } = await personSetup({ managed: true });
    api.focusWindow(buaId);
    const n = api.calls.length;
    await windows.focusChanged(buaId);
    assert.equal(api.calls.length, n);
  }
});

test("a click's activation that comes after the click answered is undone, as one that came before it", async () => {
  const api = createFakeApi();
  const person = api.mkWindow({ focused: true });
  const sessions = createSessionManager({ storage: api.storage, emit: () => {} });
  await sessions.init();
  const clock = { t: 1000 };
  const windows = createWindowManager({ api, now: () => clock.t });
  const d = createDispatcher({ api, sessions, windows, controller: { run: async () => ({ ok: true }) }, emit: () => {} });
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  clock.t += HIDE_WATCH_MS + 1; // the new window's own watch is over
  await d.dispatch({ type: "click", tabId: a.tabId, selector: "#go" });
  assert.deepEqual({ state: api.winsMap.get(a.windowId).state, focused: api.winsMap.get(a.windowId).focused }, HIDDEN);
  // The window manager applies Chrome's activation of the clicked page's
  // window now, after the click's answer.
  api.focusWindow(a.windowId);
  await windows.focusChanged(a.windowId);
  assert.deepEqual({ state: api.winsMap.get(a.windowId).state, focused: api.winsMap.get(a.windowId).focused }, HIDDEN);
  assert.equal(api.winsMap.get(person.id).focused, true);
});

test("a managed browser readies the next open_tab's spare in the background, attached before it is handed out and loaded", async () => {
  const { api, windows, prepared, d } = await setup({ managed: true });
  const first = await windows.prewarm();
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  assert.equal(a.tabId, first.id);
  await settle();
  const spareCreate = api.calls.filter(([c]) => c === "tabs.create");
  assert.equal(spareCreate.length, 1, "one spare opened after the open_tab");
  assert.deepEqual({ url: spareCreate[0][1].url, active: spareCreate[0][1].active }, { url: "about:blank", active: false }, "blank, in the background");
  const spare = [...api.tabsMap.values()].find((t) => t.id !== a.tabId);
  assert.equal(windows.isSpare(spare.id), true);
  assert.deepEqual(prepared, [a.tabId, spare.id], "the spare is attached ahead of need");
  assert.deepEqual((await d.dispatch({ type: "get_tabs" })).map((t) => t.tabId), [a.tabId], "get_tabs leaves it out");

  const from = api.calls.length;
  const b = await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  assert.equal(b.tabId, spare.id, "the next open_tab is handed the spare");
  assert.equal(api.tabsMap.get(b.tabId).url, "http://site.test/b");
  assert.equal(api.tabsMap.get(b.tabId).active, true, "made the active tab: Chrome drops input to a background one");
  const calls = api.calls.slice(from).filter(([c]) => c === "prepare" || c === "tabs.update");
  const attached = calls.findIndex(([c, id]) => c === "prepare" && id === spare.id);
  const loaded = calls.findIndex(([c, id, props]) => c === "tabs.update" && id === spare.id && props.url === "http://site.test/b");
  assert.ok(attached >= 0 && attached < loaded, `the debugger was attached before the page loaded: ${JSON.stringify(calls)}`);
  await settle();
  assert.equal(count(api, "tabs.create"), 2, "and another spare follows");
});

test("the person's Chrome never gets a spare tab: an attached one would show Chrome's debugging bar", async () => {
  const { api, windows, prepared, d } = await setup({ managed: false });
  const a = await d.dispatch({ type: "open_tab", url: "http://site.test/a" });
  const b = await d.dispatch({ type: "open_tab", url: "http://site.test/b" });
  await settle();
  assert.equal(await windows.replenish(), null);
  await settle();
  assert.deepEqual([...api.tabsMap.keys()].sort(), [a.tabId, b.tabId].sort(), "no tab but the two asked for");
  assert.deepEqual(prepared, [a.tabId, b.tabId], "the debugger attached to no other tab");
});
