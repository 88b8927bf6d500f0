// scroll: the page moved by script, not by the mouse wheel (SCROLL_FN
// says why).

import { BridgeError, ErrorCodes } from "../core/errors.js";

// SCROLL_FN moves the page by amount CSS pixels (default one viewport
// height). It scrolls the document, and when the document cannot move (app
// shells whose body does not scroll) the scrollable element under the
// viewport centre, which is what a wheel there would move. window.scrollBy
// rather than a synthetic wheel: wheel events are handled asynchronously
// by the compositor, and not at all in a hidden tab, so the next action
// could see the old position. It returns whether anything moved: a page
// already at the end in that direction, or one that cannot scroll, gives
// false. A scrollable element that is already at its end passes the scroll
// on to the next one up, as a wheel would.
const SCROLL_FN = `function (dir, amount) {
  const dy = (amount || window.innerHeight || 600) * (dir === "up" ? -1 : 1);
  const before = window.scrollY;
  window.scrollBy({ top: dy, left: 0, behavior: "instant" });
  if (window.scrollY !== before) return true;
  let el = document.elementFromPoint(window.innerWidth / 2, window.innerHeight / 2);
  for (; el; el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null) {
    const oy = getComputedStyle(el).overflowY;
    if (/(auto|scroll|overlay)/.test(oy) && el.scrollHeight > el.clientHeight) {
      const top = el.scrollTop;
      el.scrollBy({ top: dy, left: 0, behavior: "instant" });
      if (el.scrollTop !== top) return true;
    }
  }
  return false;
}`;

export async function scroll(ctx, action) {
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: `(${SCROLL_FN})(${JSON.stringify(action.direction)}, ${Number(action.amount) || 0})`,
    returnByValue: true,
  });
  if (exceptionDetails) {
    throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `scroll failed in the page: ${exceptionDetails.text}`);
  }
  // The schema's result.scroll: scrolled says whether the position changed.
  return { ok: true, scrolled: Boolean(result && result.value === true) };
}

export const executors = Object.freeze({ scroll });
