// screenshot: Page.captureScreenshot as JPEG q=80.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { drawMarks, readMarks } from "../read/labels.js";
import { MAX_ELEMENTS } from "./extract.js";

// A tab in the minimized BUA window sometimes answers no capture: the
// request waits for a compositor frame that never comes. Asking again
// while the first is pending answers at once (measured in headless
// Chromium 156). So a capture that has not answered in CAPTURE_RETRY_MS is
// asked again, up to CAPTURE_RETRIES times, every request racing the
// others. Page.bringToFront is the last resort only: it activates the
// tab's window, which can show the page (visibilitychange to visible, then
// back to hidden) to pages that pause when hidden (HTML §Page visibility).
export const CAPTURE_RETRY_MS = 1000;
export const CAPTURE_RETRIES = 2;
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
  // labels: the boxes are read before the capture, and drawn on its image
  // (read/labels.js): nothing is put into the page.
  const marks = action.labels ? await readMarks(ctx, Boolean(action.fullPage), MAX_ELEMENTS) : null;
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
  const pending = [];
  const ask = () => {
    const p = ctx.send("Page.captureScreenshot", params);
    p.catch(() => {}); // may be abandoned when another answers
    pending.push(p);
    return within(Promise.race(pending), ctx.budget.inner(CAPTURE_RETRY_MS), ctx.timers);
  };
  let shot = await ask();
  for (let i = 0; shot === STALLED && i < CAPTURE_RETRIES && ctx.budget.inner() > 0; i++) shot = await ask();
  if (shot === STALLED) {
    await ctx.send("Page.bringToFront");
    const last = ctx.send("Page.captureScreenshot", params);
    last.catch(() => {});
    pending.push(last);
    // The last try may use what is left of the request's budget.
    shot = await within(Promise.race(pending), ctx.budget.inner(), ctx.timers);
    if (shot === STALLED) {
      throw new BridgeError(ErrorCodes.TIMEOUT, "the tab painted no frame to capture, even after bringing it to the front");
    }
  }
  const data = marks ? await drawMarks(shot.data, marks.marks, marks.scale) : shot.data;
  return { dataUrl: `data:image/jpeg;base64,${data}` };
}

export const executors = Object.freeze({ screenshot });
