// wait_for: poll until the selector matches, the uid's node is connected,
// or the role target is in the accessibility tree.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { waitTimeoutMs } from "../lib/budget.js";
import { pick, queryRole } from "../lib/role-target.js";
import { connectedObject, describeTarget, invalidSelector } from "./input.js";

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
    } else if (action.role !== undefined) {
      // None yet (or fewer than nth + 1) is worth waiting for; more than
      // one without nth is invalid_action at once, as it is for click.
      present = (await pick(ctx, action, await queryRole(ctx, action))) !== null;
    } else {
      present = await selectorPresent(ctx, action.selector);
    }
    if (present) return { ok: true };
    const left = deadline - Date.now();
    if (left <= 0) break;
    await ctx.sleep(Math.min(left, pollDelay()));
  }
  throw new BridgeError(ErrorCodes.TIMEOUT, `${describeTarget(action)} did not appear within ${timeoutMs} ms`);
}

export const executors = Object.freeze({ wait_for: waitFor });
