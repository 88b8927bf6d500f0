// The BUA window: one minimized, unfocused window that agent tabs open into,
// so a person's own windows are never disturbed (docs/extension.md#focus-and-input-in-the-bua-window).
// Its id is persisted in buaWindowId so a restarted worker finds it again;
// every open goes through one lock so concurrent open_tabs cannot create two
// windows (an orphan would stay minimized forever).
//
// A managed browser opens the window at start-up (prewarm), while the
// worker says hello, so the first open_tab or navigate finds it ready: its
// blank first tab is the spare, handed to the first caller that needs a
// BUA-window tab instead of opening another (docs/architecture.md §Cold
// start). Until then get_tabs does not list it (isSpare).
//
// open_tab's window (the own_windows feature) names a window of a caller's
// own: a worker of `bua run --parallel` in a person's Chrome, where workers
// sharing the BUA window would take its one active tab from each other. Each
// key's window is made as the BUA window is (minimized, unfocused) and is
// bua's as the BUA window is (isOwn); the keys live in this worker's memory
// only: after a restart a key gets a new window.

// VIEWPORT is the page size of a managed browser's windows, Playwright's
// default: a page is laid out as under Playwright (Chromium's own default
// window left 780×493). A person's windows keep the size they have.
export const VIEWPORT = Object.freeze({ width: 1280, height: 720 });

// HIDE_WATCH_MS is how long the BUA window of a person's browser is kept
// hidden after bua did something the window manager may answer late: a
// new BUA window (openbox maps it, normal and focused, after
// windows.create has answered minimized) or a click's press in it (which
// makes Chrome activate the window, sometimes after the click has
// answered). Within it, Chrome reporting the window focused or not
// minimized puts it back: minimized, the focus on the person's window.
// Under openbox on a loaded 2-core machine (load 10-20) the late focus
// came 0.14 s after the click's answer and 0.5 s after its press; 3 s
// leaves room for a slower machine, and the person's own restore of the
// window stands once it is over.
export const HIDE_WATCH_MS = 3000;

// WINDOW_ID_NONE is chrome.windows.WINDOW_ID_NONE: onFocusChanged's id when
// no Chrome window has the focus.
const WINDOW_ID_NONE = -1;

export function createWindowManager({ api, isManaged = () => false, now = Date.now }) {
  let lock = Promise.resolve();
  let cachedId = null;
  let spareId = null; // the prewarmed window's blank tab, not yet handed out
  const keyed = new Map(); // open_tab's window key -> window id
  // watch is the hidden window last made or clicked in (the BUA window or
  // an own_windows key's), kept hidden: {id, until, back}, back the
  // window to give the focus back to (null: none of Chrome's had it).
  let watch = null;

  // keepHidden watches window id for HIDE_WATCH_MS from now (a person's
  // browser only); back is the window that has the focus.
  function keepHidden(id, back) {
    if (isManaged()) return;
    watch = { id, back: back == null ? null : back, until: now() + HIDE_WATCH_MS };
  }

  // watching is the live watch on windowId, or null (an expired one is
  // dropped).
  function watching(windowId) {
    if (watch && now() > watch.until) watch = null;
    return watch && watch.id === windowId ? watch : null;
  }

  // putBack minimizes the watched window again and gives the focus back.
  // A window gone meanwhile is nobody's concern.
  async function putBack(w) {
    await api.windows.update(w.id, { state: "minimized" }).catch(() => {});
    if (w.back != null) await api.windows.update(w.back, { focused: true }).catch(() => {});
  }

  function withLock(fn) {
    const run = lock.then(fn, fn);
    lock = run.catch(() => {});
    return run;
  }

  async function liveWindowId() {
    if (cachedId == null) {
      const { buaWindowId } = await api.storage.get("buaWindowId");
      cachedId = Number.isInteger(buaWindowId) ? buaWindowId : null;
    }
    if (cachedId == null) return null;
    try {
      await api.windows.get(cachedId);
      return cachedId;
    } catch {
      cachedId = null;
      await api.storage.remove("buaWindowId");
      return null;
    }
  }

  // newBuaWindow opens the minimized, unfocused BUA window with props
  // ({url} or {tabId}) and remembers it. A managed browser's is not
  // minimized: nobody sees it, and headless Chromium hides every tab of a
  // minimized window once one of its tabs is made active again (a hover or
  // a capture of a background tab), after which queryAXTree, captures and
  // out-of-process frames' input wait for frames that never come.
  async function newBuaWindow(props) {
    const win = await newHiddenWindow(props);
    cachedId = win.id;
    // Not awaited: only a restarted worker reads it back, and a fresh
    // profile's first write costs the first tab ~20 ms.
    api.storage.set({ buaWindowId: win.id }).catch(() => {});
    return win;
  }

  // newHiddenWindow opens a window as the BUA window is opened.
  async function newHiddenWindow(props) {
    const state = isManaged() ? "normal" : "minimized";
    const back = isManaged() ? null : await focusedWindow();
    let win = await createWindow({ ...props, state, focused: false, type: "normal" });
    // A window made around an existing tab ({tabId}, a handoff's return)
    // can come up normal under some window managers: minimize it again, or
    // the person would see the BUA window appear. The window manager may
    // also map it later, normal and focused: keepHidden watches for that.
    if (win.state && win.state !== state) win = { ...win, ...(await api.windows.update(win.id, { state })) };
    keepHidden(win.id, back);
    return win;
  }

  // createWindow is windows.create(props), and in a managed browser a
  // window whose pages are VIEWPORT: windows.create sizes the window, its
  // tab strip, toolbar and frame included, and a tab's width and height
  // are its page's, so one update by the difference makes the page the
  // size asked for, headless or under any window manager. A person's
  // window is created as Chrome sizes it and never resized.
  async function createWindow(props) {
    if (!isManaged()) return api.windows.create(props);
    const win = await api.windows.create({ ...props, width: VIEWPORT.width, height: VIEWPORT.height });
    const tab = (win.tabs && win.tabs[0]) || (await api.tabs.query({ windowId: win.id }))[0];
    if (!tab || !tab.width || !tab.height) return win;
    const dw = VIEWPORT.width - tab.width;
    const dh = VIEWPORT.height - tab.height;
    if (dw === 0 && dh === 0) return win;
    return { ...win, ...(await api.windows.update(win.id, { width: win.width + dw, height: win.height + dh })) };
  }

  // focusedWindow is the id of the Chrome window that has the focus, or
  // null when none has (the person is in another program).
  async function focusedWindow() {
    try {
      const w = await api.windows.getLastFocused();
      return w && w.focused ? w.id : null;
    } catch {
      return null;
    }
  }

  // personWindow is the person's last focused normal window, or null when
  // that is the BUA window (buaId) or there is none.
  async function personWindow(buaId) {
    try {
      const w = await api.windows.getLastFocused({ windowTypes: ["normal"] });
      return w && w.id !== buaId ? w : null;
    } catch {
      return null;
    }
  }

  async function createBuaWindow(url) {
    const win = await newBuaWindow({ url });
    const tab = win.tabs && win.tabs[0];
    if (tab) return tab;
    const [first] = await api.tabs.query({ windowId: win.id });
    return first;
  }

  // claimSpare hands out the prewarmed tab, loading url in it; null when
  // there is none, or it is no longer a tab of the BUA window.
  async function claimSpare(url, windowId) {
    const id = spareId;
    spareId = null;
    if (id == null) return null;
    let tab;
    try {
      tab = await api.tabs.get(id);
    } catch {
      return null;
    }
    if (tab.windowId !== windowId) return null;
    return url === "about:blank" ? tab : api.tabs.update(id, { url, active: true });
  }

  async function openInBuaWindow(url) {
    const id = await liveWindowId();
    if (id == null) return createBuaWindow(url);
    const spare = await claimSpare(url, id);
    if (spare) return spare;
    // Created active, a tab restores and focuses its minimized window;
    // created in the background and then made active, it does not. It
    // must be the active one: Chrome drops input to a background tab.
    const tab = await api.tabs.create({ windowId: id, url, active: false });
    return api.tabs.update(tab.id, { active: true });
  }

  // prewarm opens the BUA window with a blank spare tab unless a BUA window
  // exists; it returns the spare tab, or null.
  async function prewarm() {
    if ((await liveWindowId()) != null) return null;
    const tab = await createBuaWindow("about:blank");
    spareId = tab ? tab.id : null;
    return tab || null;
  }

  // openInKeyedWindow opens url in the window of key, made on first use.
  async function openInKeyedWindow(url, key) {
    const id = keyed.get(key);
    if (id != null && (await api.windows.get(id).then(() => true, () => false))) {
      const tab = await api.tabs.create({ windowId: id, url, active: false });
      return api.tabs.update(tab.id, { active: true }); // as openInBuaWindow's
    }
    const win = await newHiddenWindow({ url });
    keyed.set(key, win.id);
    return (win.tabs && win.tabs[0]) || (await api.tabs.query({ windowId: win.id }))[0];
  }

  async function openFocused(url) {
    const target = await personWindow(await liveWindowId());
    if (!target) {
      const win = await createWindow({ url, focused: true, type: "normal" });
      return win.tabs && win.tabs[0] ? win.tabs[0] : (await api.tabs.query({ windowId: win.id }))[0];
    }
    const tab = await api.tabs.create({ windowId: target.id, url, active: true });
    await api.windows.update(target.id, { focused: true });
    return tab;
  }

  return {
    // prewarm opens the BUA window ahead of the first open_tab (managed
    // browsers, at start-up). Returns its spare tab, or null when a BUA
    // window already exists.
    prewarm: () => withLock(prewarm),
    // isSpare says whether tabId is the prewarmed tab nobody has asked for
    // yet: get_tabs leaves it out.
    isSpare: (tabId) => tabId === spareId,
    // buaWindowId is the live BUA window's id, or null when there is none.
    buaWindowId: () => withLock(liveWindowId),
    // personWindow is the person's last focused normal window (never the
    // BUA window), or null.
    personWindow: () => withLock(async () => personWindow(await liveWindowId())),
    // openTab opens url in the BUA window (created lazily), or with focus in
    // the person's last focused normal window, or in the window of a key
    // of the caller's own (open_tab's window). Returns the chrome Tab.
    openTab(url, { focus = false, window } = {}) {
      if (focus) return withLock(() => openFocused(url));
      return withLock(() => (window ? openInKeyedWindow(url, window) : openInBuaWindow(url)));
    },
    // isOwn says whether windowId is a window of a caller's own key: bua's,
    // as the BUA window is, so its background tabs may be switched to.
    isOwn: (windowId) => [...keyed.values()].includes(windowId),
    // takeBack puts tabId back into the BUA window at index (a handoff's
    // end): into the live one, or into a new minimized, unfocused one
    // when the tab was its last and Chrome closed it as the tab left.
    // Returns the BUA window's id.
    takeBack(tabId, index = -1) {
      return withLock(async () => {
        const id = await liveWindowId();
        if (id != null) {
          await api.tabs.move(tabId, { windowId: id, index });
          return id;
        }
        return (await newBuaWindow({ tabId })).id;
      });
    },
    // keepHidden keeps the BUA window windowId minimized and unfocused for
    // HIDE_WATCH_MS (a person's browser): after a click's press in it,
    // whose activation can come after the click answered. back is the
    // window that had the focus (null: none of Chrome's).
    keepHidden,
    // show brings windowId in front of the person (showWindow), which
    // ends any watch keeping it hidden: bua shows the BUA window itself
    // when a handoff's tab has no other window to go to, or the person
    // asks for a handoff's tab from the popup.
    show(windowId) {
      if (watching(windowId)) watch = null;
      return showWindow(api, windowId);
    },
    // focusChanged is chrome.windows.onFocusChanged: the watched BUA
    // window taking the focus is put back; the focus going to another of
    // Chrome's windows (the person's, or `bua open --focus`'s) makes that
    // the one to give it back to.
    focusChanged(windowId) {
      if (watch && now() > watch.until) watch = null;
      if (!watch) return null;
      if (windowId === watch.id) return putBack(watch);
      if (windowId !== WINDOW_ID_NONE) watch.back = windowId;
      return null;
    },
    // boundsChanged is chrome.windows.onBoundsChanged: the watched BUA
    // window shown without the focus is put back too.
    boundsChanged(win) {
      const w = win && watching(win.id);
      return w && win.state && win.state !== "minimized" ? putBack(w) : null;
    },
    // windowRemoved forgets the BUA window when Chrome closes it (its last
    // tab closed, or the person closed it).
    windowRemoved(windowId) {
      if (watching(windowId)) watch = null;
      for (const [key, id] of keyed) if (id === windowId) keyed.delete(key);
      if (windowId === cachedId) {
        cachedId = null;
        spareId = null;
        api.storage.remove("buaWindowId").catch(() => {});
      }
    },
  };
}

// showWindow brings windowId in front of the person: focused, and
// restored first when minimized (a focus alone leaves it minimized).
export async function showWindow(api, windowId) {
  const win = await api.windows.get(windowId).catch(() => null);
  await api.windows.update(windowId, win && win.state === "minimized" ? { focused: true, state: "normal" } : { focused: true });
}
