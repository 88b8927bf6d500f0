// navigate: Page.navigate, then wait for that document's load event.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { invalid } from "../lib/cdp.js";

// The load wait stops a little before the controller's 28 s watchdog so a
// slow page resolves through our DOMContentLoaded fallback, not a timeout.
export const LOAD_WAIT_MS = 25000;

// Same rule as the schema's url: http(s) or about:blank. The validator has
// already checked it; this guards the one action that can point the tab at
// javascript: or file: if a caller ever bypassed validation.
export function isNavigableUrl(url) {
  return typeof url === "string" && (url === "about:blank" || /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(url));
}

export async function navigate(ctx, action) {
  const url = action.url;
  if (!isNavigableUrl(url)) throw invalid(`navigate needs an absolute http(s) URL or about:blank, got ${JSON.stringify(url)}`);
  ctx.clearUids();

  // Listen before sending: lifecycle events can arrive before
  // Page.navigate's own response.
  const seen = [];
  let wake = () => {};
  const off = ctx.on((method, params) => {
    seen.push([method, params]);
    wake();
  });
  try {
    const res = await ctx.send("Page.navigate", { url, transitionType: "typed" });
    if (res.errorText) {
      // The protocol has no navigation-failed code: internal_error, with
      // the net:: name first so callers can tell DNS from refusal.
      throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `${res.errorText} loading ${url}`);
    }
    ctx.clearUids();
    if (!res.loaderId) return { ok: true }; // same-document (fragment) navigation: nothing loads
    const loaderId = res.loaderId;
    let committed = false;
    let domReady = false;
    const deadline = Date.now() + LOAD_WAIT_MS;
    for (let i = 0; ; ) {
      for (; i < seen.length; i++) {
        const [method, p] = seen[i];
        if (method === "bua.detached") {
          throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `debugger detached while loading ${url} (${p.reason})`);
        }
        if (method === "Page.frameNavigated" && p.frame && !p.frame.parentId && p.frame.loaderId === loaderId) committed = true;
        if (method === "Page.lifecycleEvent" && p.loaderId === loaderId) {
          if (p.name === "load") return { ok: true };
          if (p.name === "DOMContentLoaded") domReady = true;
        }
        // loadEventFired carries no loaderId; it counts once our document committed.
        if (method === "Page.loadEventFired" && committed) return { ok: true };
        if (method === "Page.domContentEventFired" && committed) domReady = true;
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise((resolve) => {
        const t = ctx.timers.setTimeout(resolve, Math.min(left, 1000));
        wake = () => {
          ctx.timers.clearTimeout(t);
          resolve();
        };
      });
      wake = () => {};
    }
    // Subresources that never finish should not fail a page that is usable.
    if (domReady) return { ok: true };
    throw new BridgeError(ErrorCodes.TIMEOUT, `${url} did not load within ${LOAD_WAIT_MS} ms`);
  } finally {
    off();
  }
}
