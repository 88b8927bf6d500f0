// The BUA window: one minimized, unfocused window that agent tabs open into,
// so a person's own windows are never disturbed
// (docs/extension.md#focus-and-input-in-the-bua-window).
// Its id is persisted in buaWindowId so a restarted worker finds it again;
// every open goes through one lock so concurrent open_tabs cannot create two
// windows (an orphan would stay minimized forever).
//
// A managed browser opens the window at start-up (prewarm), while the
// worker says hello, so the first open_tab or navigate finds it ready: its
// blank first tab is the spare, handed to the first caller that needs a
// BUA-window tab instead of opening another
// (docs/cold-start.md#what-a-cold-start-overlaps). Until then get_tabs
// does not list it (isSpare). A managed browser then keeps one spare
// ready, attached ahead of need (replenish, spare-tab.js).
//
// open_tab's window keys (own_windows) get windows of their own, made as
// the BUA window is (own-windows.js).
//
// The focus policy is here too (showTab, docs/extension.md §Focus and
// input in the BUA window): a tab is shown before input reaches it, a
// click's window is given back as it was, and a person's BUA window is
// kept hidden a while after it is made and after a click in it, against a
// window manager that shows it late (window-focus.js).

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { REASONS } from "../generated/protocol.js";
import { HIDE_WATCH_MS, HiddenWatch, holdFocus, showWindow } from "./window-focus.js";
import { OwnWindows } from "./own-windows.js";
import { SpareTab } from "./spare-tab.js";

// HIDE_WATCH_MS (window-focus.js) is how long a person's BUA window is
// kept hidden after it is made and after a click in it.
export { HIDE_WATCH_MS };

// VIEWPORT is the page size of a managed browser's windows, Playwright's
// default: a page is laid out as under Playwright (Chromium's own default
// window left 780×493). A person's windows keep the size they have.
export const VIEWPORT = Object.freeze({ width: 1280, height: 720 });

// INPUT_ACTIONS send input through the Input domain (actions/pointer.js,
// actions/keyboard.js), which Chrome delivers only to a page it shows.
// scroll is not one: it runs window.scrollBy in the page, which works in
// any tab.
const INPUT_ACTIONS = new Set(["click", "hover", "type", "press_key"]);

// createWindowManager({api, isManaged, timers, now}): api is
// chrome-api.js's object; isManaged (optional) says whether the browser is
// a managed one (no person sits at it); timers paces the wait for the
// focus to come back; now is the hidden watch's clock (ms).
export function createWindowManager({ api, isManaged = () => false, timers = globalThis, now = Date.now }) {
  return new WindowManager(api, isManaged, timers, now);
}

class WindowManager {
  #api;
  #isManaged;
  #timers;
  #lock = Promise.resolve();
  #cachedId = null;
  #spare; // the BUA window's blank tab nobody has asked for (spare-tab.js)
  #own;
  #watch;

  constructor(api, isManaged, timers, now) {
    this.#api = api;
    this.#isManaged = isManaged;
    this.#timers = timers;
    this.#watch = new HiddenWatch(api, now);
    this.#own = new OwnWindows(api);
    this.#spare = new SpareTab(api);
  }

  // prewarm opens the BUA window ahead of the first open_tab (managed
  // browsers, at start-up), with a blank spare tab. Returns the spare tab,
  // or null when a BUA window already exists.
  prewarm() {
    return this.#withLock(async () => {
      if ((await this.#liveWindowId()) != null) return null;
      const tab = await this.#createBuaWindow("about:blank");
      this.#spare.set(tab);
      return tab || null;
    });
  }

  // replenish opens the next spare tab in the live BUA window of a managed
  // browser once the last was handed out (spare-tab.js says why). Returns
  // it, or null (not managed, a spare waiting already, no BUA window).
  replenish() {
    if (!this.#isManaged()) return Promise.resolve(null);
    return this.#withLock(async () => (this.#spare.waiting() ? null : this.#spare.open(await this.#liveWindowId())));
  }

  // isSpare says whether tabId is the prewarmed tab nobody has asked for
  // yet: get_tabs leaves it out.
  isSpare(tabId) {
    return this.#spare.is(tabId);
  }

  // buaWindowId is the live BUA window's id, or null when there is none.
  buaWindowId() {
    return this.#withLock(() => this.#liveWindowId());
  }

  // personWindow is the person's last focused normal window (never the
  // BUA window), or null.
  personWindow() {
    return this.#withLock(async () => this.#personWindow(await this.#liveWindowId()));
  }

  // openTab opens url in the BUA window (created lazily), or with focus in
  // the person's last focused normal window, or in the window of a key of
  // the caller's own (open_tab's window). Returns the chrome Tab.
  openTab(url, { focus = false, window } = {}) {
    if (focus) return this.#withLock(() => this.#openFocused(url));
    if (window) return this.#withLock(() => this.#own.open(url, window, (props) => this.#newHiddenWindow(props)));
    return this.#withLock(() => this.#openInBuaWindow(url));
  }

  // takeBack puts tabId back into the BUA window at index (a handoff's
  // end): into the live one, or into a new minimized, unfocused one when
  // the tab was its last and Chrome closed it as the tab left. Returns the
  // BUA window's id.
  takeBack(tabId, index = -1) {
    return this.#withLock(async () => {
      const id = await this.#liveWindowId();
      if (id != null) {
        await this.#api.tabs.move(tabId, { windowId: id, index });
        return id;
      }
      return (await this.#newBuaWindow({ tabId })).id;
    });
  }

  // keepHidden keeps the BUA window windowId minimized and unfocused for
  // HIDE_WATCH_MS (a person's browser only): after a click's press in it,
  // whose activation can come after the click answered. back is the
  // window that had the focus (null: none of Chrome's).
  keepHidden(windowId, back) {
    if (!this.#isManaged()) this.#watch.keep(windowId, back);
  }

  // show brings windowId in front of the person (showWindow), which ends
  // any watch keeping it hidden: bua shows the BUA window itself when a
  // handoff's tab has no other window to go to, or the person asks for a
  // handoff's tab from the popup.
  show(windowId) {
    this.#watch.end(windowId);
    return showWindow(this.#api, windowId);
  }

  // focusChanged and boundsChanged are chrome.windows.onFocusChanged and
  // onBoundsChanged, for the watch (window-focus.js).
  focusChanged(windowId) {
    return this.#watch.focusChanged(windowId);
  }

  boundsChanged(win) {
    return this.#watch.boundsChanged(win);
  }

  // windowRemoved forgets the BUA window when Chrome closes it (its last
  // tab closed, or the person closed it).
  windowRemoved(windowId) {
    this.#watch.end(windowId);
    this.#own.removed(windowId);
    if (windowId === this.#cachedId) {
      this.#cachedId = null;
      this.#spare.set(null);
      this.#api.storage.remove("buaWindowId").catch(() => {});
    }
  }

  // showTab readies tabId for an action that needs its page shown: one
  // that sends input through the Input domain (INPUT_ACTIONS), and in a
  // managed browser a screenshot (below). Chrome drops input to a
  // background tab's page, so the action would report ok for input that
  // never arrived (a lone mouse move, a hover, gets there only every 5 s).
  // A background tab of the BUA window is made its window's active tab
  // (bua's own window: the person sees nothing change); a background tab
  // of the person's own window fails with background_tab, as switching it
  // would change what they look at (a key's window is bua's too, as the
  // BUA window is). readTab() reads the tab when needed.
  // For a click it returns the function that gives the window back
  // afterwards (holdFocus), else null.
  async showTab(action, tabId, readTab) {
    // A managed browser has no person whose focus or tabs to keep, and its
    // headless pages take input in the background once they have drawn a
    // frame (e2e TestClickBackgroundTab): only hover's lone mouse move
    // needs its tab shown, and a screenshot, whose capture of a background
    // tab waits for a frame that never comes (the capture's last resort,
    // Page.bringToFront, leaves the headless window hiding every tab
    // opened after it). Every click there skips the window reads.
    if (this.#isManaged()) {
      if (action.type !== "hover" && action.type !== "screenshot") return null;
    } else if (!INPUT_ACTIONS.has(action.type)) {
      return null;
    }
    const click = action.type === "click";
    const [tab, buaId, wins] = await Promise.all([
      readTab(),
      this.buaWindowId(),
      click ? this.#api.windows.getAll({ windowTypes: ["normal"] }).catch(() => []) : null,
    ]);
    if (!tab.active) {
      if (tab.windowId !== buaId && !this.#own.has(tab.windowId)) {
        if (action.type === "screenshot") return null; // the capture's own retries, as before
        throw new BridgeError(
          ErrorCodes.INVALID_ACTION,
          `tab ${tabId} is a background tab of the person's own window, and Chrome delivers no input to a page it does not show: ${action.type} did not run. Ask the person to switch to that tab, or open the page in bua's window with open_tab`,
          REASONS.BACKGROUND_TAB,
        );
      }
      await this.#api.tabs.update(tabId, { active: true });
    }
    return click ? holdFocus(this.#focusDeps(), tab.windowId, wins) : null;
  }

  #focusDeps() {
    return { api: this.#api, timers: this.#timers, keepHidden: (id, back) => this.keepHidden(id, back) };
  }

  #withLock(fn) {
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => {});
    return run;
  }

  async #liveWindowId() {
    if (this.#cachedId == null) {
      const { buaWindowId } = await this.#api.storage.get("buaWindowId");
      this.#cachedId = Number.isInteger(buaWindowId) ? buaWindowId : null;
    }
    if (this.#cachedId == null) return null;
    try {
      await this.#api.windows.get(this.#cachedId);
      return this.#cachedId;
    } catch {
      this.#cachedId = null;
      await this.#api.storage.remove("buaWindowId");
      return null;
    }
  }

  // newBuaWindow opens the minimized, unfocused BUA window with props
  // ({url} or {tabId}) and remembers it. A managed browser's is not
  // minimized: nobody sees it, and headless Chromium hides every tab of a
  // minimized window once one of its tabs is made active again (a hover or
  // a capture of a background tab), after which queryAXTree, captures and
  // out-of-process frames' input wait for frames that never come.
  async #newBuaWindow(props) {
    const win = await this.#newHiddenWindow(props);
    this.#cachedId = win.id;
    // Not awaited: only a restarted worker reads it back, and a fresh
    // profile's first write costs the first tab ~20 ms.
    this.#api.storage.set({ buaWindowId: win.id }).catch(() => {});
    return win;
  }

  // newHiddenWindow opens a window as the BUA window is opened.
  async #newHiddenWindow(props) {
    const state = this.#isManaged() ? "normal" : "minimized";
    const back = this.#isManaged() ? null : await this.#focusedWindow();
    let win = await this.#createWindow({ ...props, state, focused: false, type: "normal" });
    // A window made around an existing tab ({tabId}, a handoff's return)
    // can come up normal under some window managers: minimize it again, or
    // the person would see the BUA window appear. The window manager may
    // also map it later, normal and focused: keepHidden watches for that.
    if (win.state && win.state !== state) win = { ...win, ...(await this.#api.windows.update(win.id, { state })) };
    this.keepHidden(win.id, back);
    return win;
  }

  // createWindow is windows.create(props), and in a managed browser a
  // window whose pages are VIEWPORT: windows.create sizes the window, its
  // tab strip, toolbar and frame included, and a tab's width and height
  // are its page's, so one update by the difference makes the page the
  // size asked for, headless or under any window manager. A person's
  // window is created as Chrome sizes it and never resized.
  async #createWindow(props) {
    const api = this.#api;
    if (!this.#isManaged()) return api.windows.create(props);
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
  async #focusedWindow() {
    try {
      const w = await this.#api.windows.getLastFocused();
      return w && w.focused ? w.id : null;
    } catch {
      return null;
    }
  }

  // personWindow is the person's last focused normal window, or null when
  // that is the BUA window (buaId) or there is none.
  async #personWindow(buaId) {
    try {
      const w = await this.#api.windows.getLastFocused({ windowTypes: ["normal"] });
      return w && w.id !== buaId ? w : null;
    } catch {
      return null;
    }
  }

  async #createBuaWindow(url) {
    const win = await this.#newBuaWindow({ url });
    const tab = win.tabs && win.tabs[0];
    if (tab) return tab;
    const [first] = await this.#api.tabs.query({ windowId: win.id });
    return first;
  }

  async #openInBuaWindow(url) {
    const id = await this.#liveWindowId();
    if (id == null) return this.#createBuaWindow(url);
    const spare = await this.#spare.claim(url, id);
    if (spare) return spare;
    // Created active, a tab restores and focuses its minimized window;
    // created in the background and then made active, it does not. It
    // must be the active one: Chrome drops input to a background tab.
    const tab = await this.#api.tabs.create({ windowId: id, url, active: false });
    return this.#api.tabs.update(tab.id, { active: true });
  }

  async #openFocused(url) {
    const api = this.#api;
    const target = await this.#personWindow(await this.#liveWindowId());
    if (!target) {
      const win = await this.#createWindow({ url, focused: true, type: "normal" });
      return win.tabs && win.tabs[0] ? win.tabs[0] : (await api.tabs.query({ windowId: win.id }))[0];
    }
    const tab = await api.tabs.create({ windowId: target.id, url, active: true });
    await api.windows.update(target.id, { focused: true });
    return tab;
  }
}
