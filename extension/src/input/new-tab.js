// The tab an input opens (result.ok newTabId): a target=_blank link, a
// window.open from a click handler, Enter on such a link. Chromium reports
// Page.windowOpen on the opener's session in order with the answers to the
// input, so by the settle's round trip (input/settle.js) the opener has said
// whether a tab is coming; chrome.webNavigation.onCreatedNavigationTarget
// then names it, with the tab it came from (sourceTabId). tabs.Tab's
// openerTabId cannot say: Chrome sets it to the window's active tab, which
// the clicked tab need not be (a background tab of the BUA window, any tab
// of a headless browser). The new tab is handed over once its first
// document committed, as Playwright's popup event is: a page the next
// action can read, not the blank one it starts with.

import { sleep } from "../core/cdp.js";

// NEW_TAB_MS bounds the wait for the new tab after Page.windowOpen: a
// popup Chromium blocks (no user gesture) is announced and never created.
export const NEW_TAB_MS = 2000;

// COMMIT_POLL_MS are the pauses between reads of the new tab while its
// first document has not committed: short at first, as a local page
// commits in a few ms, then every 100 ms.
const COMMIT_POLL_MS = [5, 10, 20, 50, 100];

// committed says whether a tab (tabs.Tab) shows its first real document:
// no navigation pending, and a URL other than the blank one a new tab
// starts with (unless it was opened blank and has finished loading).
export function committed(tab) {
  if (!tab || tab.pendingUrl || !tab.url) return false;
  return tab.url !== "about:blank" || tab.status === "complete";
}

// watchNewTab starts watching for a tab the input about to be sent opens.
// Call it before the input, opened() after the settle, off() always.
// ctx.tabs (get) and ctx.webNavigation (onCreatedNavigationTarget) are
// chrome-api's; without them nothing is watched.
export function watchNewTab(ctx) {
  const events = ctx.webNavigation && ctx.webNavigation.onCreatedNavigationTarget;
  if (!ctx.tabs || !events || typeof events.addListener !== "function") {
    return { opened: async () => null, off() {} };
  }
  let asked = false; // Page.windowOpen came
  const created = []; // ids of the tabs this tab opened, in order
  let wake = () => {};
  const offCdp = ctx.on((method) => {
    if (method !== "Page.windowOpen") return;
    asked = true;
    wake();
  });
  const onTarget = (d) => {
    if (!d || d.sourceTabId !== ctx.tabId || !Number.isInteger(d.tabId)) return;
    created.push(d.tabId);
    wake();
  };
  events.addListener(onTarget);

  // waitCreated resolves once a tab was created, or after ms.
  function waitCreated(ms) {
    if (created.length || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = ctx.timers.setTimeout(done, ms);
      function done() {
        ctx.timers.clearTimeout(t);
        wake = () => {};
        resolve();
      }
      wake = () => {
        if (created.length) done();
      };
    });
  }

  // opened returns the id of the first tab the input opened, once its
  // first document committed (or the budget is nearly spent: then as it
  // is), or null when it opened none (or the tab closed at once).
  async function opened() {
    if (!asked && !created.length) return null;
    await waitCreated(Math.min(NEW_TAB_MS, Math.max(0, ctx.budget.inner())));
    ctx.budget.check();
    if (!created.length) return null;
    const id = created[0];
    const stopAt = Date.now() + Math.max(0, ctx.budget.inner());
    for (let i = 0; ; i++) {
      let tab;
      try {
        tab = await ctx.tabs.get(id);
      } catch {
        return null; // closed by its page already
      }
      const left = stopAt - Date.now();
      if (committed(tab) || left <= 0) return id;
      await sleep(Math.min(COMMIT_POLL_MS[Math.min(i, COMMIT_POLL_MS.length - 1)], left), ctx.timers, ctx.budget.signal);
    }
  }

  return {
    opened,
    off() {
      offCdp();
      events.removeListener(onTarget);
    },
  };
}
