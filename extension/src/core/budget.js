// The extension's rungs of the timeout ladder (the schema's x-ladder,
// docs/extension.md §Timeout ladder): a request's action budget is its
// deadlineMs less REPLY_MARGIN_MS, so our own timeout error reaches the
// daemon before its pool gives up; every inner wait (a page load, a
// wait_for poll, an actionability wait, evaluate's CDP timeout) may take
// what is left of that budget less SETTLE_MS, the action's own time: the
// caller's --timeout or step timeout, since the daemon adds both margins
// on top of it. The controller's watchdog fires at the budget's end. Pure:
// node tests prove the order.

import { ACTION_SPECS, REPLY_MARGIN_MS, SETTLE_MARGIN_MS, WAIT_FOR_DEFAULT_MS, WAIT_FOR_MAX_MS } from "../generated/protocol.js";

// SETTLE_MS is what an inner wait leaves of the budget so its action can
// still answer (a last actionability probe, navigate's DOMContentLoaded
// fallback) before the controller's watchdog fires at the budget's end:
// the schema's x-ladder settleMarginMs.
export const SETTLE_MS = SETTLE_MARGIN_MS;

// Used only for a type the schema does not know; such an action fails
// invalid_action at once.
const FALLBACK_BUDGET_MS = 30000;

// waitTimeoutMs is the timeoutMs an action that takes one asks for:
// WAIT_FOR_DEFAULT_MS when absent, capped at WAIT_FOR_MAX_MS.
export function waitTimeoutMs(action) {
  const t = action && Number.isInteger(action.timeoutMs) && action.timeoutMs > 0 ? action.timeoutMs : WAIT_FOR_DEFAULT_MS;
  return Math.min(WAIT_FOR_MAX_MS, t);
}

// poolDeadlineMs is the daemon's default pool deadline for action
// (x-ladder): the action's own default time, its x-budgetMs plus its
// timeoutMs when its params include one, with both margins on top.
export function poolDeadlineMs(action) {
  const spec = action && Object.hasOwn(ACTION_SPECS, action.type) ? ACTION_SPECS[action.type] : null;
  if (!spec) return FALLBACK_BUDGET_MS;
  return spec.budgetMs + (spec.params.includes("timeoutMs") ? waitTimeoutMs(action) : 0) + SETTLE_MS + REPLY_MARGIN_MS;
}

// actionBudgetMs is the extension's budget (x-ladder level 2) for a
// request's deadlineMs (level 3): deadlineMs less REPLY_MARGIN_MS. A
// deadline too short to keep the whole margin (from a plain deadline of
// under a second: the daemon adds the margins to a caller's timeout) keeps
// half of itself instead, so the budget stays below deadlineMs and is
// never less than 1 ms.
export function actionBudgetMs(deadlineMs) {
  if (deadlineMs > 2 * REPLY_MARGIN_MS) return deadlineMs - REPLY_MARGIN_MS;
  return Math.max(1, Math.floor(deadlineMs / 2));
}

// budgetFor returns the budget of one request received at `now` (epoch ms):
// {ms, deadline, signal, remaining(now), inner(capMs, now), withSignal(s)}.
// deadlineMs is the request envelope's; without it the budget is what the
// daemon's default pool deadline leaves (poolDeadlineMs). signal, when
// given, is the request's AbortSignal (ws-client aborts it on cancel {id}).
export function budgetFor(action, deadlineMs, now = Date.now(), signal = undefined) {
  const total = Number.isInteger(deadlineMs) && deadlineMs > 0 ? deadlineMs : poolDeadlineMs(action);
  const ms = actionBudgetMs(total);
  return budgetUntil(now + ms, ms, signal);
}

// budgetUntil is a budget ending at the absolute time deadline. signal
// aborts when the request stops early (cancelled, its tab closed, or its
// watchdog fired); every inner wait gives up when it does
// (docs/cancellation.md#cancellation).
export function budgetUntil(deadline, ms = deadline - Date.now(), signal = undefined) {
  return Object.freeze({
    ms,
    deadline,
    signal,
    // withSignal is this budget with another signal (the dispatcher's, which
    // also aborts on the watchdog and on tab close).
    withSignal(s) {
      return budgetUntil(deadline, ms, s);
    },
    // check throws the signal's reason once it has aborted: loops call it
    // at each turn so orphaned work stops.
    check() {
      if (signal && signal.aborted) throw signal.reason;
    },
    // remaining is what is left of the budget, never negative.
    remaining(now = Date.now()) {
      return Math.max(0, deadline - now);
    },
    // inner is how long an inner wait may take: at most capMs, and
    // SETTLE_MS less than what remains, so the action answers first.
    inner(capMs = Infinity, now = Date.now()) {
      return Math.max(0, Math.min(capMs, deadline - now - SETTLE_MS));
    },
  });
}
