// wait_for: poll until the selector matches (in frame, when given) or the
// uid's node is connected (in its frame's session).

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { waitTimeoutMs } from "../lib/budget.js";
import { connectedObject, findSelector, invalidSelector } from "./input.js";

const POLL_MS = 100;

// Jitter keeps the poll from beating in step with page timers that run on
// round intervals (e.g. a 100 ms setInterval re-render).
function pollDelay() {
  return POLL_MS * (0.75 + Math.random() * 0.5);
}

// selectorPresent says whether selector matches now: in the main document
// with one evaluate, or in frame (findSelector), where a frame that is not
// there yet is waited for like a match.
async function selectorPresent(ctx, selector, frame) {
  if (frame !== undefined) {
    try {
      await findSelector(ctx, selector, frame);
      return true;
    } catch (e) {
      if (e instanceof BridgeError && e.code === ErrorCodes.ELEMENT_NOT_FOUND) return false;
      throw e;
    }
  }
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
      const { session, id } = await ctx.lookupUid(action.uid);
      present = (await connectedObject(ctx, id, session)) !== null;
    } else {
      present = await selectorPresent(ctx, action.selector, action.frame);
    }
    if (present) return { ok: true };
    const left = deadline - Date.now();
    if (left <= 0) break;
    await ctx.sleep(Math.min(left, pollDelay()));
  }
  const inFrame = action.frame !== undefined ? ` in frame ${JSON.stringify(action.frame)}` : "";
  const what = action.uid !== undefined ? `uid ${action.uid}` : `selector ${JSON.stringify(action.selector)}${inFrame}`;
  throw new BridgeError(ErrorCodes.TIMEOUT, `${what} did not appear within ${timeoutMs} ms`);
}

export const executors = Object.freeze({ wait_for: waitFor });
