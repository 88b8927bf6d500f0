// wait_for: poll until the selector matches or the uid's node is connected.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { waitTimeoutMs } from "../lib/budget.js";
import { connectedObject, invalidSelector } from "./input.js";

const POLL_MS = 100;

// Jitter keeps the poll from beating in step with page timers that run on
// round intervals (e.g. a 100 ms setInterval re-render).
function pollDelay() {
  return POLL_MS * (0.75 + Math.random() * 0.5);
}

async function selectorPresent(ctx, selector) {
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: `document.querySelector(${JSON.stringify(selector)}) !== null`,
    returnByValue: true,
  });
  if (exceptionDetails) throw invalidSelector(selector, exceptionDetails);
  return result.value === true;
}

export async function waitFor(ctx, action) {
  // timeoutMs (default WAIT_FOR_DEFAULT_MS, at most WAIT_FOR_MAX_MS), cut
  // to what the request's budget leaves (lib/budget.js).
  const timeoutMs = ctx.budget.inner(waitTimeoutMs(action));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    ctx.budget.check(); // ctx.sleep and ctx.send end on abort too; this is the loop's own stop
    let present;
    if (action.uid !== undefined) {
      // Re-checked every round: a navigation while waiting makes the uid
      // stale, which is an answer, not something to wait out.
      const id = await ctx.lookupUid(action.uid);
      present = (await connectedObject(ctx, id)) !== null;
    } else {
      present = await selectorPresent(ctx, action.selector);
    }
    if (present) return { ok: true };
    const left = deadline - Date.now();
    if (left <= 0) break;
    await ctx.sleep(Math.min(left, pollDelay()));
  }
  const what = action.uid !== undefined ? `uid ${action.uid}` : `selector ${JSON.stringify(action.selector)}`;
  throw new BridgeError(ErrorCodes.TIMEOUT, `${what} did not appear within ${timeoutMs} ms`);
}

export const executors = Object.freeze({ wait_for: waitFor });
