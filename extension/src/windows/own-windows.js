// The windows of open_tab's window keys (the own_windows feature): a key
// names a window of a caller's own, such as a worker of `bua run
// --parallel` in a person's Chrome, where workers sharing the BUA window
// would take its one active tab from each other. Each key's window is made
// as the BUA window is (minimized, unfocused, kept hidden: the window
// manager's newWindow) and is bua's as the BUA window is (has), so its
// background tabs may be switched to. The keys live in this worker's
// memory only: after a restart a key gets a new window.

export class OwnWindows {
  #api;
  #keyed = new Map(); // key -> window id

  constructor(api) {
    this.#api = api;
  }

  // has says whether windowId is a key's window.
  has(windowId) {
    return [...this.#keyed.values()].includes(windowId);
  }

  // open opens url in key's window, made with newWindow({url}) on first
  // use. Returns the chrome Tab, its window's active one.
  async open(url, key, newWindow) {
    const api = this.#api;
    const id = this.#keyed.get(key);
    if (id != null && (await api.windows.get(id).then(() => true, () => false))) {
      // Created active, a tab restores its minimized window: as the BUA
      // window's tabs, created in the background, then made active.
      const tab = await api.tabs.create({ windowId: id, url, active: false });
      return api.tabs.update(tab.id, { active: true });
    }
    const win = await newWindow({ url });
    this.#keyed.set(key, win.id);
    return (win.tabs && win.tabs[0]) || (await api.tabs.query({ windowId: win.id }))[0];
  }

  // removed forgets a window Chrome closed.
  removed(windowId) {
    for (const [key, id] of this.#keyed) if (id === windowId) this.#keyed.delete(key);
  }
}
