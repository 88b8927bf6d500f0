// click and hover: a pointer at the target (input/actionability.js locates
// it, waits until it is actionable and finds the point), then the mouse
// (input/input.js) there, then the settle after input (input/settle.js).

import { retryPointerAction } from "../input/actionability.js";
import { mouse } from "../input/input.js";
import { settleAfter } from "../input/settle.js";
import { withDownload } from "../input/downloads.js";

export async function click(ctx, action) {
  const m = mouse(ctx);
  return retryPointerAction(ctx, action, { enabled: true }, async (at) => {
    if (at.hidden) await m.drawFrame();
    const press = { button: action.button || "left", clickCount: action.clickCount || 1 };
    return withDownload(ctx, action, "click", () => settleAfter(ctx, "click", () => m.click(at, press)));
  });
}

// hover waits as click does, except for enabled (Playwright's rule: a
// disabled control still shows its tooltip).
export async function hover(ctx, action) {
  const m = mouse(ctx);
  return retryPointerAction(ctx, action, { enabled: false }, async (at) => {
    if (at.hidden) await m.drawFrame();
    return settleAfter(ctx, "hover", () => m.move(at));
  });
}

export const executors = Object.freeze({ click, hover });
