// The BUA window's spare tab: a blank tab nobody has asked for yet, handed
// to the next caller that needs a BUA-window tab (window-manager.js). A
// managed browser's worker opens the BUA window with one at start-up
// (prewarm), and opens the next one, in the background, after each
// open_tab takes it (replenish); its caller attaches the debugger to it
// then (the controller's prepare). open_tab attaches before the page loads,
// to see a dialog its first script opens, and that attach was ~60 ms of
// every open_tab: with a spare it is done ahead of need. Never in the
// person's Chrome: an attached tab shows Chrome's debugging bar there.
// The spare keeps the BUA window open when a flow closes its last tab.

export class SpareTab {
  #api;
  #id = null;

  constructor(api) {
    this.#api = api;
  }

  // set makes tab the spare (null: none).
  set(tab) {
    this.#id = tab ? tab.id : null;
  }

  // is says whether tabId is the spare: get_tabs leaves it out.
  is(tabId) {
    return tabId === this.#id;
  }

  // waiting says whether a spare waits to be handed out.
  waiting() {
    return this.#id != null;
  }

  // open opens a new spare, blank and in the background, in windowId (the
  // live BUA window; null: none, nothing opened). Returns the tab or null.
  async open(windowId) {
    if (windowId == null) return null;
    const tab = await this.#api.tabs.create({ windowId, url: "about:blank", active: false });
    this.#id = tab.id;
    return tab;
  }

  // claim hands out the spare, made the active tab of its window and
  // loading url (about:blank: left blank); null when there is none, or it
  // is no longer a tab of windowId.
  async claim(url, windowId) {
    const id = this.#id;
    this.#id = null;
    if (id == null) return null;
    let tab;
    try {
      tab = await this.#api.tabs.get(id);
    } catch {
      return null;
    }
    if (tab.windowId !== windowId) return null;
    // A replenished spare waits in the background: it must be the active
    // tab once handed out, as Chrome drops input to a background tab.
    if (url === "about:blank") return tab.active ? tab : this.#api.tabs.update(id, { active: true });
    return this.#api.tabs.update(id, { url, active: true });
  }
}
