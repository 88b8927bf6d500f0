// The window manager's focus policy for a person's browser
// (docs/extension.md#focus-and-input-in-the-bua-window): a click's window
// given back as it was (holdFocus), the BUA window kept hidden while the
// window manager (openbox, say) may still show it late (HiddenWatch: after
// a new BUA window is made, and after a click's press in it), and bua's
// own shows of a window (showWindow). window-manager.js runs them.

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

// FOCUS_BACK_MS bounds the wait for the focus to come back to the person's
// window after a click (holdFocus): 30-80 ms under Xvfb and openbox.
const FOCUS_BACK_MS = 500;

// WINDOW_ID_NONE is chrome.windows.WINDOW_ID_NONE: onFocusChanged's id when
// no Chrome window has the focus.
const WINDOW_ID_NONE = -1;

// HiddenWatch holds at most one watch: {id, until, back}, back the window
// to give the focus back to (null: none of Chrome's had it). api is
// chrome-api.js's object, now the clock in ms.
export class HiddenWatch {
  #api;
  #now;
  #watch = null;

  constructor(api, now) {
    this.#api = api;
    this.#now = now;
  }

  // keep watches window id for HIDE_WATCH_MS from now; back is the window
  // that has the focus.
  keep(id, back) {
    this.#watch = { id, back: back == null ? null : back, until: this.#now() + HIDE_WATCH_MS };
  }

  // end drops the watch on windowId, if any: bua shows the window itself,
  // or Chrome closed it.
  end(windowId) {
    if (this.#watching(windowId)) this.#watch = null;
  }

  // focusChanged is chrome.windows.onFocusChanged: the watched BUA window
  // taking the focus is put back; the focus going to another of Chrome's
  // windows (the person's, or `bua open --focus`'s) makes that the one to
  // give it back to.
  focusChanged(windowId) {
    const w = this.#live();
    if (!w) return null;
    if (windowId === w.id) return this.#putBack(w);
    if (windowId !== WINDOW_ID_NONE) w.back = windowId;
    return null;
  }

  // boundsChanged is chrome.windows.onBoundsChanged: the watched BUA
  // window shown without the focus is put back too.
  boundsChanged(win) {
    const w = win && this.#watching(win.id);
    return w && win.state && win.state !== "minimized" ? this.#putBack(w) : null;
  }

  // live is the watch while it lasts (an expired one is dropped).
  #live() {
    if (this.#watch && this.#now() > this.#watch.until) this.#watch = null;
    return this.#watch;
  }

  #watching(windowId) {
    const w = this.#live();
    return w && w.id === windowId ? w : null;
  }

  // putBack minimizes the watched window again and gives the focus back.
  // A window gone meanwhile is nobody's concern.
  async #putBack(w) {
    await this.#api.windows.update(w.id, { state: "minimized" }).catch(() => {});
    if (w.back != null) await this.#api.windows.update(w.back, { focused: true }).catch(() => {});
  }
}

// holdFocus is for a click in a window that does not have the focus:
// Chrome activates (restores and focuses) the window of a page that gets
// a mouse press, whatever focus emulation says
// (docs/extension.md#focus-and-input-in-the-bua-window). wins are the
// windows as they were before the press; the returned function, run after
// the click, puts them back: the window minimized again if it was, the
// focus back on the window that had it. The activation can also come after
// the click answered (the window manager applies it late): a minimized
// window is then kept hidden a while longer (keepHidden). Null when there
// is nothing to keep. deps: {api, timers, keepHidden(windowId, back)}.
export function holdFocus({ api, timers, keepHidden }, windowId, wins) {
  const win = wins.find((w) => w.id === windowId);
  if (!win || win.focused) return null;
  const focused = wins.find((w) => w.focused);
  return async () => {
    if (win.state === "minimized") keepHidden(windowId, focused ? focused.id : null);
    const after = await api.windows.get(windowId);
    if (after.state === win.state && !after.focused) return;
    if (win.state === "minimized" && after.state !== "minimized") await api.windows.update(windowId, { state: "minimized" });
    if (!focused) return;
    await api.windows.update(focused.id, { focused: true });
    // The window manager applies the focus after windows.update answers:
    // wait for it, so the person's page has the focus again when the
    // click's answer (and the agent's next action) comes.
    for (const end = Date.now() + FOCUS_BACK_MS; Date.now() < end; ) {
      if ((await api.windows.get(focused.id)).focused) return;
      await new Promise((resolve) => timers.setTimeout(resolve, 20));
    }
  };
}

// showWindow brings windowId in front of the person: focused, and
// restored first when minimized (a focus alone leaves it minimized).
export async function showWindow(api, windowId) {
  const win = await api.windows.get(windowId).catch(() => null);
  await api.windows.update(windowId, win && win.state === "minimized" ? { focused: true, state: "normal" } : { focused: true });
}
