// The BUA window opened ahead of time (prewarm): a managed browser opens it
// at start-up, and its blank tab is handed to the first caller that needs a
// BUA-window tab (docs/architecture.md §Cold start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createDispatcher } from "../src/action-dispatcher.js";
import { createSessionManager } from "../src/session-manager.js";
import { createWindowManager } from "../src/window-manager.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

async function setup({ managed = false } = {}) {
  const api = createFakeApi();
  const sessions = createSessionManager({ storage: api.storage, emit: () => {} });
  await sessions.init();
  const windows = createWindowManager({ api, isManaged: () => managed });
  const ran = [];
  const controller = {
    run: async (tabId, action) => {
      ran.push([tabId, action.type]);
      if (action.type === "navigate") api.tabsMap.get(tabId).url = action.url;
      return { ok: true };
    },
  };
  const d = createDispatcher({ api, sessions, windows, controller, emit: () => {} });
  return { api, windows, ran, d };
}

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
