// navigate, reload, go_back and go_forward: load a document in the tab,
// then wait for its load event, or the point of the load the action's
// waitUntil names, for as long as the request's budget allows
// (core/budget.js).

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { invalid, onAbort } from "../core/cdp.js";

// Same rule as the schema's url: http(s) or about:blank. The validator has
// already checked it; this guards the one action that can point the tab at
// javascript: or file: if a caller ever bypassed validation.
export function isNavigableUrl(url) {
  return typeof url === "string" && (url === "about:blank" || /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(url));
}

// watchEvents records the tab's CDP events from now on. Start it before
// sending the command: lifecycle events can arrive before its response.
function watchEvents(ctx) {
  const seen = [];
  let wake = () => {};
  const off = ctx.on((method, params) => {
    seen.push([method, params]);
    wake();
  });
  // next resolves on the next event, after ms, or when the request's
  // signal aborts, whichever is first; the caller checks the budget.
  function next(ms) {
    return new Promise((resolve) => {
      const t = ctx.timers.setTimeout(done, ms);
      const offAbort = onAbort(ctx.budget.signal, done);
      function done() {
        ctx.timers.clearTimeout(t);
        offAbort();
        wake = () => {};
        resolve();
      }
      wake = done;
    });
  }
  return { seen, off, next };
}

// waitForLoad waits for the main frame's new document to reach `until`
// (the schema's waitUntil): commit (its frameNavigated), domcontentloaded,
// load (the default) or networkidle (load, and Chromium's networkIdle
// lifecycle event: no network connection for 500 ms, as Puppeteer's
// networkidle0 and Playwright's networkidle). The document is the one with
// loaderId when the command reported one, else the first main-frame
// document that is not `replacing` (Page.reload reports no loaderId). It
// waits until the budget is nearly spent (budget.inner()); then a wait for
// load resolves ok if DOMContentLoaded fired, since subresources that never
// finish should not fail a usable page, and any other wait throws timeout.
async function waitForLoad(ctx, watch, { loaderId = null, replacing = null, what, history = false, until = "load" }) {
  let committed = false;
  let domReady = false;
  let loaded = false;
  let idle = false;
  const reached = () => {
    switch (until) {
      case "commit":
        return committed;
      case "domcontentloaded":
        return domReady;
      case "networkidle":
        return loaded && idle;
      default:
        return loaded;
    }
  };
  const waitMs = ctx.budget.inner();
  const stopAt = Date.now() + waitMs;
  for (let i = 0; ; ) {
    ctx.budget.check(); // a cancelled or closed-tab request stops here
    for (; i < watch.seen.length; i++) {
      const [method, p] = watch.seen[i];
      if (method === "bua.detached") {
        throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `debugger detached while loading ${what} (${p.reason})`);
      }
      if (method === "Page.frameNavigated" && p.frame && !p.frame.parentId) {
        // A page the back/forward cache restores fires no load again.
        if (history && p.type === "BackForwardCacheRestore") return;
        if (loaderId === null && p.frame.loaderId !== replacing) loaderId = p.frame.loaderId;
        if (p.frame.loaderId === loaderId) committed = true;
      }
      // A history entry of the same document (a fragment, pushState)
      // loads nothing: the change is the whole navigation.
      if (history && method === "Page.navigatedWithinDocument" && p.frameId === ctx.mainFrameId()) return;
      if (method === "Page.lifecycleEvent" && loaderId !== null && p.loaderId === loaderId) {
        if (p.name === "load") loaded = true;
        if (p.name === "DOMContentLoaded") domReady = true;
        if (p.name === "networkIdle") idle = true;
      }
      // loadEventFired carries no loaderId; it counts once our document committed.
      if (method === "Page.loadEventFired" && committed) loaded = true;
      if (method === "Page.domContentEventFired" && committed) domReady = true;
    }
    // Each later point implies the earlier ones, whatever order the events took.
    if (idle && loaded) domReady = true;
    if (loaded) domReady = true;
    if (domReady) committed = true;
    if (reached()) return;
    const left = stopAt - Date.now();
    if (left <= 0) break;
    await watch.next(Math.min(left, 1000));
  }
  if (until === "load" && domReady) return;
  throw new BridgeError(ErrorCodes.TIMEOUT, `${what} ${missed(until, { committed, domReady, loaded })} within ${waitMs} ms`);
}

// missed says which point of the load a timed-out wait for `until` did not
// reach, and how far the page got.
function missed(until, { committed, domReady, loaded }) {
  switch (until) {
    case "commit":
      return "did not commit (no response from its server)";
    case "domcontentloaded":
      return committed ? "committed but did not reach DOMContentLoaded" : "did not commit (no response from its server)";
    case "networkidle":
      if (loaded) return "loaded but its network did not go idle (no connection for 500 ms)";
      return domReady ? "did not load (and so never went network-idle)" : "did not load";
    default:
      return "did not load";
  }
}

export async function navigate(ctx, action) {
  const url = action.url;
  if (!isNavigableUrl(url)) throw invalid(`navigate needs an absolute http(s) URL or about:blank, got ${JSON.stringify(url)}`);
  ctx.clearUids();
  const watch = watchEvents(ctx);
  try {
    const res = await ctx.send("Page.navigate", { url, transitionType: "typed" });
    if (res.errorText) {
      // The protocol has no navigation-failed code: internal_error, with
      // the net:: name as error.reason so callers can tell DNS from
      // refusal, and a message that names the page, not bua.
      throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `the page could not be loaded: ${res.errorText} loading ${url}`, res.errorText);
    }
    ctx.clearUids();
    if (!res.loaderId) return { ok: true }; // same-document (fragment) navigation: nothing loads
    await waitForLoad(ctx, watch, { loaderId: res.loaderId, what: url, until: action.waitUntil });
    return { ok: true };
  } finally {
    watch.off();
  }
}

// reload reloads the tab's document and waits for the new one to load, as
// navigate does; every uid of the old document is stale afterwards.
export async function reload(ctx, action) {
  const before = await ctx.mainFrame();
  ctx.clearUids();
  const watch = watchEvents(ctx);
  try {
    await ctx.send("Page.reload", {});
    ctx.clearUids();
    await waitForLoad(ctx, watch, { replacing: before.loaderId, what: `the reload of tab ${ctx.tabId}`, until: action.waitUntil });
    return { ok: true };
  } finally {
    watch.off();
  }
}

// traverse moves the tab `delta` (-1 or 1) entries through its session
// history and waits as navigate does: for the new document's load, or for
// nothing more when the entry is the same document (navigatedWithinDocument)
// or comes back from the back/forward cache. With no entry that way it
// does nothing and answers moved: false, as Playwright's goBack and
// goForward return null.
async function traverse(ctx, action, delta) {
  const { currentIndex, entries } = await ctx.send("Page.getNavigationHistory", {});
  const entry = entries[currentIndex + delta];
  if (!entry) return { ok: true, moved: false };
  const before = await ctx.mainFrame();
  ctx.clearUids();
  const watch = watchEvents(ctx);
  try {
    await ctx.send("Page.navigateToHistoryEntry", { entryId: entry.id });
    ctx.clearUids();
    const word = delta < 0 ? "back" : "forward";
    await waitForLoad(ctx, watch, { replacing: before.loaderId, history: true, what: `the page ${word} in tab ${ctx.tabId}'s history (${entry.url})`, until: action.waitUntil });
    return { ok: true, moved: true, url: entry.url };
  } finally {
    watch.off();
  }
}

export const goBack = (ctx, action) => traverse(ctx, action, -1);
export const goForward = (ctx, action) => traverse(ctx, action, 1);

export const executors = Object.freeze({ navigate, reload, go_back: goBack, go_forward: goForward });
