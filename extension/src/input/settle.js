// The settle after input (docs/extension.md §Settle after input): click,
// hover, type and press_key return only once the page has reacted. A
// main-frame navigation the input started is waited for until the new
// document committed and reached DOMContentLoaded; a same-document one
// until one page task ran (its hashchange handler); otherwise the action
// returns after one round trip to the page.
//
// The window: Chromium reports a renderer-initiated navigation
// (Page.frameRequestedNavigation) before it answers the input event that
// caused it, and events reach us in order with command answers, so by the
// time a page round trip after the input returns every navigation the
// input started has been seen. Measured on the fixtures (e2e
// TestMeasureSettle): frameRequestedNavigation arrives 0–0.1 ms after the
// mouseReleased answer, frameStartedLoading 4–5 ms later.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError, onAbort, withDeadline } from "../core/cdp.js";
import { watchNewTab } from "./new-tab.js";

// SETTLE_PING is one round trip to the page's main thread: every event the
// input caused synchronously (a navigation request, a same-document URL
// change) has reached us when it answers. It costs ~0.7 ms.
export const SETTLE_PING = "0";

// SETTLE_TASK resolves after one page task: whatever the input queued
// (hashchange, popstate handlers, timers of 0 ms) runs before it. After an
// input Chromium draws a frame before it runs other tasks, so this costs
// ~12 ms: it runs only after a same-document navigation, whose hashchange
// handler is such a task. (Not an animation frame either: rAF costs as
// much and never fires in a hidden tab.)
export const SETTLE_TASK = "new Promise((r) => setTimeout(r, 0))";

// NAV_START_EVENTS mark a main-frame navigation the page asked for.
const NAV_START_EVENTS = new Set(["Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameStartedLoading"]);

// settleAfter runs act (the input) with the tab's navigation events
// watched, then settles: a navigation the input started is waited for
// until DOMContentLoaded, anything else for one page task. A tab the input
// opened is answered as newTabId (input/new-tab.js), and the URL a
// navigation took the tab to as url: what the input did, said without a
// read after it.
export async function settleAfter(ctx, what, act) {
  const watch = watchNavigation(ctx, ctx.mainFrameId ? ctx.mainFrameId() : null);
  const popup = watchNewTab(ctx);
  try {
    await act();
    await watch.settle(what);
    const newTabId = await popup.opened();
    const result = { ok: true };
    if (watch.state.url) result.url = watch.state.url;
    if (newTabId !== null) result.newTabId = newTabId;
    return result;
  } finally {
    watch.off();
    popup.off();
  }
}

// watchNavigation starts recording the tab's main-frame navigation events.
// Call it before the input; call settle() after it, and off() always.
// mainFrameId is the committed main frame's id (null: accept any frame
// without a parent).
export function watchNavigation(ctx, mainFrameId) {
  const state = { started: false, committed: null, done: false, sameDocument: false, detached: null, url: null };
  let wake = () => {};
  const isMain = (p) => p && (mainFrameId ? p.frameId === mainFrameId : true);
  const off = ctx.on((method, p) => {
    observe(state, method, p, isMain);
    wake();
  });

  // until waits until pred() holds or ms pass, and returns pred(); it
  // rejects with the reason when the request's signal aborts first.
  function until(pred, ms) {
    ctx.budget.check();
    if (pred() || ms <= 0) return Promise.resolve(pred());
    return new Promise((resolve, reject) => {
      let offAbort = () => {};
      const finish = (settle) => {
        ctx.timers.clearTimeout(t);
        offAbort();
        wake = () => {};
        settle();
      };
      const t = ctx.timers.setTimeout(() => finish(() => resolve(pred())), ms);
      wake = () => {
        if (pred()) finish(() => resolve(true));
      };
      offAbort = onAbort(ctx.budget.signal, () => finish(() => reject(ctx.budget.signal.reason)));
    });
  }

  // settle runs the settle task, then waits for a navigation the input
  // started, within what is left of the action's budget. `what` names the
  // action for the timeout message.
  async function settle(what) {
    await inPage(SETTLE_PING, what);
    if (state.sameDocument && !state.committed) await inPage(SETTLE_TASK, what);
    if (!state.started && !state.committed) return;
    const waitMs = ctx.budget.inner();
    const finished = await until(() => state.done || state.detached !== null, waitMs);
    if (state.detached !== null) {
      throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `debugger detached while ${what} loaded a new page (${state.detached})`);
    }
    if (!finished) {
      const stage = state.committed ? "reached DOMContentLoaded" : "committed";
      throw new BridgeError(ErrorCodes.TIMEOUT, `${what} started a navigation whose page never ${stage} within ${waitMs} ms`);
    }
  }

  async function inPage(expression, what) {
    try {
      await withDeadline(
        ctx.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }),
        ctx.budget.inner(),
        what,
        ctx.timers,
      );
    } catch (e) {
      // The old document's context goes away when the new one commits
      // (Chromium may hold the answer until then): that is the navigation
      // settle waits for, not a failure of the action.
      if (!(e instanceof CdpError) && !(e instanceof BridgeError && e.code === ErrorCodes.TIMEOUT)) throw e;
    }
  }

  return { state, settle, off };
}

// observe folds one CDP event into state: started → committed (new
// loaderId) → done at DOMContentLoaded. A same-document navigation, or a
// load that stops without committing (a download, a 204), is done at once.
// url is where a committed navigation (either kind) took the main frame.
export function observe(state, method, p, isMain = () => true) {
  if (method === "bua.detached") {
    state.detached = (p && p.reason) || "detached";
    return;
  }
  if (NAV_START_EVENTS.has(method) && isMain(p)) {
    if (method === "Page.frameStartedNavigating" && /sameDocument/i.test(String(p.navigationType || ""))) return;
    if (!state.committed) state.started = true;
    return;
  }
  switch (method) {
    case "Page.frameNavigated":
      if (p.frame && !p.frame.parentId) {
        state.committed = p.frame.loaderId || "?";
        state.started = true;
        state.url = (p.frame.url || "") + (p.frame.urlFragment || "") || null;
        // A page restored from the back/forward cache fires no DOMContentLoaded.
        if (p.type === "BackForwardCacheRestore") state.done = true;
      }
      break;
    case "Page.navigatedWithinDocument":
      if (isMain(p) && !state.committed) {
        state.sameDocument = true;
        state.done = true;
        state.url = p.url || null;
      }
      break;
    case "Page.lifecycleEvent":
      if (state.committed && p.loaderId === state.committed && (p.name === "DOMContentLoaded" || p.name === "load")) state.done = true;
      break;
    case "Page.domContentEventFired":
    case "Page.loadEventFired":
      if (state.committed) state.done = true;
      break;
    case "Page.frameStoppedLoading":
      // Stopped without a commit: the navigation was cancelled or became
      // a download; the old document stays.
      if (isMain(p) && state.started && !state.committed) state.done = true;
      break;
    default:
      break;
  }
}
