// type and press_key: the keyboard (input/input.js), which goes to the
// focused frame, then the settle after input (input/settle.js).

import { typeProbe, waitActionable } from "../input/actionability.js";
import { keyboard } from "../input/input.js";
import { settleAfter } from "../input/settle.js";
import { withDownload } from "../input/downloads.js";
import { clearFocused } from "../input/clear.js";

// typeText focuses the target and inserts the text like a paste: Unicode
// goes through unchanged and no per-character key events are synthesised.
// Unless action.force, it first waits for the target to be visible,
// enabled and editable (typeProbe: Playwright's checks for fill, no hit
// test, as focus needs none). The probe that passes focuses the target in
// the same call, so the navigation watch of the settle starts before the
// probes: a focus handler may navigate.
export async function typeText(ctx, action) {
  const force = action.force === true;
  const keys = keyboard(ctx);
  return settleAfter(ctx, "type", async () => {
    await waitActionable(ctx, action, () => typeProbe(ctx, action, force));
    // A field no one types into (a <select>, a date input) is filled by
    // clearFocused itself.
    if (action.clear && (await clearFocused(ctx, action.text))) return;
    if (action.text.length > 0) await keys.insertText(action.text);
  });
}

export async function pressKey(ctx, action) {
  const keys = keyboard(ctx);
  const events = keys.eventsFor(action.key); // a bad key fails before anything is watched
  return withDownload(ctx, action, "press_key", () => settleAfter(ctx, "press_key", () => keys.send(events)));
}

export const executors = Object.freeze({ type: typeText, press_key: pressKey });
