// The BUA window: one minimized, unfocused window that agent tabs open into,
// so a person's own windows are never disturbed (spec 001 §BuaWindowManager).
// Its id is persisted in buaWindowId so a restarted worker finds it again;
// every open goes through one lock so concurrent open_tabs cannot create two
// windows (an orphan would stay minimized forever).

export function createWindowManager({ api }) {
  let lock = Promise.resolve();
  let cachedId = null;

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

  async function openInBuaWindow(url) {
    const id = await liveWindowId();
    if (id != null) {
      // Created active, a tab restores and focuses its minimized window;
      // created in the background and then made active, it does not. It
      // must be the active one: Chrome drops input to a background tab.
      const tab = await api.tabs.create({ windowId: id, url, active: false });
      return api.tabs.update(tab.id, { active: true });
    }
    const win = await api.windows.create({ url, state: "minimized", focused: false, type: "normal" });
    cachedId = win.id;
    await api.storage.set({ buaWindowId: win.id });
    const tab = win.tabs && win.tabs[0];
    if (tab) return tab;
    const [first] = await api.tabs.query({ windowId: win.id });
    return first;
  }

  async function openFocused(url) {
    const buaId = await liveWindowId();
    let target = null;
    try {
      const w = await api.windows.getLastFocused({ windowTypes: ["normal"] });
      if (w && w.id !== buaId) target = w;
    } catch {
      target = null;
    }
    if (!target) {
      const win = await api.windows.create({ url, focused: true, type: "normal" });
      return win.tabs && win.tabs[0] ? win.tabs[0] : (await api.tabs.query({ windowId: win.id }))[0];
    }
    const tab = await api.tabs.create({ windowId: target.id, url, active: true });
    await api.windows.update(target.id, { focused: true });
    return tab;
  }

  return {
    // buaWindowId is the live BUA window's id, or null when there is none.
    buaWindowId: () => withLock(liveWindowId),
    // openTab opens url in the BUA window (created lazily), or with focus in
    // the person's last focused normal window. Returns the chrome Tab.
    openTab(url, { focus = false } = {}) {
      return withLock(() => (focus ? openFocused(url) : openInBuaWindow(url)));
    },
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
        const win = await api.windows.create({ tabId, state: "minimized", focused: false, type: "normal" });
        cachedId = win.id;
        await api.storage.set({ buaWindowId: win.id });
        return win.id;
      });
    },
    // windowRemoved forgets the BUA window when Chrome closes it (its last
    // tab closed, or the person closed it).
    windowRemoved(windowId) {
      if (windowId === cachedId) {
        cachedId = null;
        api.storage.remove("buaWindowId").catch(() => {});
      }
    },
  };
}
