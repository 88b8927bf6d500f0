// A fake of chrome-api.js's object with just enough tab and window state to
// exercise the worker's modules in node. Not a test file itself.

import { memoryStorage } from "../../src/transport/replay-cache.js";

export function createFakeApi({ files = {} } = {}) {
  const store = new Map();
  let nextTab = 100;
  let nextWin = 10;
  const tabs = new Map(); // id -> tab
  const wins = new Map(); // id -> {id, state, focused}
  const calls = [];

  function mkWindow(props = {}) {
    const w = { id: nextWin++, state: props.state || "normal", focused: props.focused !== false, type: "normal" };
    wins.set(w.id, w);
    return w;
  }
  // mkTab adds a tab to windowId, its window's active tab unless
  // active: false (the fake keeps no tab order, so several may be active).
  function mkTab(windowId, url, { active = true } = {}) {
    const t = { id: nextTab++, windowId, url, title: "", status: "complete", active };
    tabs.set(t.id, t);
    return t;
  }
  // activate makes tab id its window's one active tab.
  function activate(id) {
    const t = tabs.get(id);
    for (const o of tabs.values()) if (o.windowId === t.windowId) o.active = o.id === id;
  }
  // focusWindow gives the focus to window id, restoring it if minimized,
  // as Chrome does when it activates a window.
  function focusWindow(id) {
    for (const w of wins.values()) w.focused = w.id === id;
    if (wins.get(id).state === "minimized") wins.get(id).state = "normal";
  }
  const clone = (x) => JSON.parse(JSON.stringify(x));

  const api = {
    calls,
    tabsMap: tabs,
    winsMap: wins,
    storeMap: store,
    mkWindow,
    mkTab,
    focusWindow,
    runtime: {
      getURL: (p) => `chrome-extension://fake/${p}`,
      getManifest: () => ({ version: "0.1.0" }),
      id: "fake",
    },
    // chrome.storage.session: a Map of its own (sessionMap), kept by a
    // fresh worker over the same fake, as Chrome keeps it.
    storageSession: memoryStorage(),
    storage: {
      async get(keys) {
        const ks = keys == null ? [...store.keys()] : Array.isArray(keys) ? keys : [keys];
        const out = {};
        for (const k of ks) if (store.has(k)) out[k] = clone(store.get(k));
        return out;
      },
      async set(items) {
        for (const [k, v] of Object.entries(items)) store.set(k, clone(v));
      },
      async remove(keys) {
        for (const k of Array.isArray(keys) ? keys : [keys]) store.delete(k);
      },
    },
    tabs: {
      async get(id) {
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        return { ...tabs.get(id) };
      },
      async query(q = {}) {
        return [...tabs.values()].filter((t) => q.windowId === undefined || t.windowId === q.windowId).map((t) => ({ ...t }));
      },
      async create(props) {
        calls.push(["tabs.create", props]);
        if (!wins.has(props.windowId)) throw new Error("No window");
        const t = mkTab(props.windowId, props.url, { active: props.active !== false });
        // As Chrome does: a tab created active activates its window.
        if (t.active) {
          activate(t.id);
          focusWindow(props.windowId);
        }
        return { ...t };
      },
      async update(id, props) {
        calls.push(["tabs.update", id, props]);
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        Object.assign(tabs.get(id), props);
        if (props.active) activate(id); // switches tabs, never the window's state
        return { ...tabs.get(id) };
      },
      async move(id, props) {
        calls.push(["tabs.move", id, props]);
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        if (!wins.has(props.windowId)) throw new Error("No window");
        const from = tabs.get(id).windowId;
        tabs.get(id).windowId = props.windowId;
        // As Chrome does: a window whose last tab left it closes.
        if (![...tabs.values()].some((t) => t.windowId === from)) wins.delete(from);
        return { ...tabs.get(id) };
      },
      async remove(id) {
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        const w = tabs.get(id).windowId;
        tabs.delete(id);
        if (![...tabs.values()].some((t) => t.windowId === w)) wins.delete(w);
      },
    },
    windows: {
      async get(id) {
        if (!wins.has(id)) throw new Error(`No window with id: ${id}.`);
        return { ...wins.get(id) };
      },
      async getAll() {
        return [...wins.values()].map((w) => ({ ...w }));
      },
      async getLastFocused() {
        const w = [...wins.values()].reverse().find((x) => x.focused);
        if (!w) throw new Error("no window");
        return { ...w };
      },
      async create(props) {
        calls.push(["windows.create", props]);
        const w = mkWindow(props);
        if (props.tabId !== undefined) {
          // Moves the tab into the new window, as Chrome does.
          const t = tabs.get(props.tabId);
          const from = t.windowId;
          t.windowId = w.id;
          if (![...tabs.values()].some((x) => x.windowId === from)) wins.delete(from);
          return { ...w, tabs: [{ ...t }] };
        }
        const t = mkTab(w.id, props.url || "about:blank");
        return { ...w, tabs: [{ ...t }] };
      },
      async update(id, props) {
        calls.push(["windows.update", id, props]);
        Object.assign(wins.get(id), props);
        // As Chrome does: one window has the focus, and a minimized one never.
        if (props.focused) focusWindow(id);
        if (props.state === "minimized") wins.get(id).focused = false;
        return { ...wins.get(id) };
      },
      async remove(id) {
        wins.delete(id);
      },
    },
    alarms: { async create() {}, async clear() {} },
    idle: { setDetectionInterval() {} },
    async fetch(url) {
      const name = url.replace("chrome-extension://fake/", "");
      if (!(name in files)) throw new TypeError("Failed to fetch");
      return { ok: true, status: 200, json: async () => files[name] };
    },
  };
  return api;
}

// createFakeTimers records timers instead of running them; fire(kind) runs
// the earliest pending one.
export function createFakeTimers() {
  let next = 1;
  const pending = new Map();
  return {
    pending,
    setTimeout(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms, kind: "timeout" });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id);
    },
    setInterval(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms, kind: "interval" });
      return id;
    },
    clearInterval(id) {
      pending.delete(id);
    },
    list(kind) {
      return [...pending.entries()].filter(([, t]) => !kind || t.kind === kind).map(([id, t]) => ({ id, ...t }));
    },
    fire(id) {
      const t = pending.get(id);
      if (t.kind === "timeout") pending.delete(id);
      t.fn();
    },
  };
}
