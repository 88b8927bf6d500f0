// screenshot: Page.captureScreenshot as JPEG q=80.

import { BridgeError, ErrorCodes } from "../lib/errors.js";

// A tab in a minimized or background window may produce no compositor
// frame, so the capture waits forever; after this long we bring the tab to
// the front (which makes it paint) and ask again.
export const CAPTURE_STALL_MS = 2000;
// Chromium's GPU readback fails on very tall surfaces; full-page captures
// are clipped to this height (CSS px).
export const FULL_PAGE_MAX_HEIGHT = 16384;

const STALLED = Symbol("stalled");

function within(p, ms, timers) {
  let t;
  return Promise.race([p, new Promise((resolve) => (t = timers.setTimeout(() => resolve(STALLED), ms)))]).finally(() =>
    timers.clearTimeout(t),
  );
}

export async function screenshot(ctx, action) {
  const params = { format: "jpeg", quality: 80, captureBeyondViewport: Boolean(action.fullPage) };
  if (action.fullPage) {
    const m = await ctx.send("Page.getLayoutMetrics");
    const size = m.cssContentSize || m.contentSize;
    params.clip = {
      x: 0,
      y: 0,
      width: Math.max(1, Math.ceil(size.width)),
      height: Math.max(1, Math.min(FULL_PAGE_MAX_HEIGHT, Math.ceil(size.height))),
      scale: 1,
    };
  }
  const first = ctx.send("Page.captureScreenshot", params);
  first.catch(() => {}); // may be abandoned below
  let shot = await within(first, ctx.budget.inner(CAPTURE_STALL_MS), ctx.timers);
  if (shot === STALLED) {
    await ctx.send("Page.bringToFront");
    const second = ctx.send("Page.captureScreenshot", params);
    second.catch(() => {});
    // The second try may use what is left of the request's budget.
    shot = await within(Promise.race([first, second]), ctx.budget.inner(), ctx.timers);
    if (shot === STALLED) {
      throw new BridgeError(ErrorCodes.TIMEOUT, "the tab painted no frame to capture, even after bringing it to the front");
    }
  }
  return { dataUrl: `data:image/jpeg;base64,${shot.data}` };
}

export const executors = Object.freeze({ screenshot });
