// Dialogs (docs/protocol.md#dialogs, docs/extension.md#controller-interface):
// handle_dialog, and the policy every action meets a dialog under. During
// evaluate a dialog is answered at once; under a dialogs policy (a
// navigate, reload, go_back, go_forward or close_tab sent with dialogs:
// accept or dismiss) as the policy says; otherwise it is left open, and
// until it is answered every action on the tab but handle_dialog fails
// naming it. Every answer bua gives goes into the tab's trace. The state
// (the dialog left open, the policy running, the evaluate in flight) is
// the tab's TabSession's.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError } from "../core/cdp.js";
import { dialogAnswerEvent } from "../core/trace.js";
import { REASONS } from "../generated/protocol.js";

// LEAVING_ACTIONS take the dialogs policy (the schema's dialogPolicy): they
// leave the page, so a dialog on it is answered first rather than failing
// them. close_tab, the fifth, is scope "browser" and comes through closeTab.
const LEAVING_ACTIONS = new Set(["navigate", "reload", "go_back", "go_forward"]);

// policyOf is the dialogs policy an action runs under: "accept" or
// "dismiss", or null when it leaves dialogs open (leave, the default).
export function policyOf(action) {
  return action.dialogs === "accept" || action.dialogs === "dismiss" ? action.dialogs : null;
}

// leavingPolicy is the dialogs policy of an action that leaves the page
// (LEAVING_ACTIONS), or null.
export function leavingPolicy(action) {
  return LEAVING_ACTIONS.has(action.type) ? policyOf(action) : null;
}

// handleDialog answers the dialog left open on the tab, through
// Page.handleJavaScriptDialog.
export function handleDialog(ctx, action) {
  return ctx.answerDialog(action.accept === true, action.promptText);
}

export const executors = Object.freeze({ handle_dialog: handleDialog });

// dialogOpening takes Page.javascriptDialogOpening on session's tab.
export function dialogOpening(session, p) {
  const d = { dialogType: p.type || "alert", message: typeof p.message === "string" ? p.message : "" };
  if (session.evaluating) {
    // docs/protocol.md#dialogs: during evaluate, answer at once (accept an
    // alert or beforeunload, dismiss a confirm or prompt): until a dialog
    // is answered the renderer is blocked and the evaluate would hang.
    answerNow(session, d, d.dialogType === "alert" || d.dialogType === "beforeunload", "evaluate");
    return;
  }
  const policy = session.policy;
  if (policy) {
    // An action that leaves the page under a dialogs policy: answer as
    // it says, but always accept a beforeunload, whose dismissal would
    // cancel the very navigation (or close) the action makes.
    answerNow(session, d, d.dialogType === "beforeunload" || policy.how === "accept", policy.action);
    return;
  }
  // Outside evaluate the dialog is left open (docs/protocol.md#dialogs), in a
  // managed browser too: handle_dialog answers it, or the person does.
  // Until then the page is blocked, so every action on the tab fails at
  // once, naming it (refuseIfOpen, failOnDialog).
  session.openDialog = d;
  session.emitEvent({ type: "dialog_opened", tabId: session.tabId, dialogType: d.dialogType, message: d.message });
  for (const fn of [...session.dialogWatchers]) fn(d);
}

// dialogClosed takes Page.javascriptDialogClosed: the person (or the page's
// navigation) answered it.
export function dialogClosed(session) {
  session.openDialog = null;
}

// answerNow answers the dialog that is opening on session's tab at once,
// and records the answer in the tab's trace with the action that gave it.
function answerNow(session, d, accept, by) {
  session.traces.push(session.tabId, dialogAnswerEvent(d.dialogType, d.message, accept, by));
  if (session.policy) session.policy.answered.push({ dialogType: d.dialogType, message: d.message, accepted: accept });
  session.send("Page.handleJavaScriptDialog", { accept }).catch((e) => {
    console.warn("[bua] could not answer dialog", e);
  });
}

// dialogError is the answer to an action that meets an open dialog:
// before it ran (reason dialog_open: it did not run) or while it ran
// (dialog_opened: it ran up to the dialog, most often by opening it).
export function dialogError(tabId, d, type, during) {
  const article = /^[aeiou]/.test(d.dialogType) ? "an" : "a";
  const text = d.message ? ` ${JSON.stringify(d.message.slice(0, 200))}` : "";
  const when = during ? ` (it opened during ${type})` : `, so ${type} did not run`;
  return new BridgeError(
    ErrorCodes.INVALID_ACTION,
    `${article} ${d.dialogType}${text} is open on tab ${tabId}${when}: answer it with handle_dialog, or set dialogs: accept or dismiss in a flow (or on a navigate, reload, go_back, go_forward or close_tab, which answers it and leaves the page)`,
    during ? REASONS.DIALOG_OPENED : REASONS.DIALOG_OPEN,
  );
}

// refuseIfOpen fails an action before it runs while a dialog is open on
// the tab: every action but handle_dialog (the one an open dialog lets
// through) and one that leaves the page under a dialogs policy (which
// answers it first).
export function refuseIfOpen(session, action, policy) {
  const open = session.openDialog;
  if (open && action.type !== "handle_dialog" && !policy) throw dialogError(session.tabId, open, action.type, false);
}

// failOnDialog watches for a dialog left open while the action `type`
// runs: such a dialog blocks the renderer, so the pending CDP call would
// never answer. `opened` rejects with dialog_opened for each dialog
// `matters` accepts; stop ends the watch.
export function failOnDialog(session, type, matters) {
  let stop = () => {};
  const opened = new Promise((_, reject) => {
    stop = session.watchDialogs((d) => {
      if (matters(d)) reject(dialogError(session.tabId, d, type, true));
    });
  });
  return { opened, stop: () => stop() };
}

// answerDialog answers the dialog left open on session's tab, for `by`:
// the handle_dialog action, or one that leaves the page under a dialogs
// policy. With none open it is invalid_action. The answer goes into the
// tab's trace.
export async function answerDialog(session, accept, promptText, by = "handle_dialog") {
  const tabId = session.tabId;
  const d = session.openDialog;
  if (!d) throw new BridgeError(ErrorCodes.INVALID_ACTION, `no dialog is open on tab ${tabId}: there is nothing for ${by} to answer`);
  const params = { accept };
  if (promptText !== undefined) params.promptText = promptText;
  try {
    await session.send("Page.handleJavaScriptDialog", params);
  } catch (e) {
    // The person (or the page's navigation) closed it first.
    if (!(e instanceof CdpError) || !/no dialog/i.test(e.message)) throw e;
    session.openDialog = null;
    throw new BridgeError(ErrorCodes.INVALID_ACTION, `no dialog is open on tab ${tabId} any more: it was closed before ${by} answered it`);
  }
  if (session.openDialog === d) session.openDialog = null;
  session.traces.push(tabId, dialogAnswerEvent(d.dialogType, d.message, accept, by));
  return { ok: true, dialogType: d.dialogType, message: d.message, accepted: accept };
}

// underPolicy runs fn for the action `by` under the dialogs policy `how`
// (none: fn as it is): first the dialog left open on the tab is answered,
// a beforeunload accepted whatever the policy (dismissing it keeps the
// page), then each dialog that opens while fn runs (dialogOpening). It
// returns fn's result with the dialogs answered, in order, as the schema's
// answeredDialogs (result.dialogs), when there are any.
export async function underPolicy(session, how, by, fn) {
  if (!how) return fn();
  const mine = { how, action: by, answered: [] };
  const d = session.openDialog;
  if (d) {
    try {
      const r = await answerDialog(session, d.dialogType === "beforeunload" || how === "accept", undefined, by);
      mine.answered.push({ dialogType: r.dialogType, message: r.message, accepted: r.accepted });
    } catch (e) {
      // A dialog closed meanwhile needs no answer.
      if (!(e instanceof BridgeError && e.code === ErrorCodes.INVALID_ACTION)) throw e;
    }
  }
  session.policy = mine;
  let result;
  try {
    result = await fn();
  } finally {
    if (session.policy === mine) session.policy = null;
  }
  if (!mine.answered.length || !result || typeof result !== "object") return result;
  return { ...result, dialogs: mine.answered };
}

// closeTab is close_tab's way through the tab's dialogs: remove() closes
// action.tabId (tabs.remove), which waits on a beforeunload dialog until
// it is answered. It returns remove's result, with the dialogs answered
// as underPolicy puts them. Under a dialogs policy (action.dialogs accept
// or dismiss) a dialog open on the tab is answered first, and one that
// opens while it closes as it opens, the debugger attached first if it
// was not, so that it sees it. Without one, a beforeunload open on the
// tab, or one that opens while it closes, fails close_tab at once
// (reason dialog_open or dialog_opened) instead of leaving it to hang;
// any other dialog open on a closing tab goes with it.
export async function closeTab(session, action, remove) {
  const how = policyOf(action);
  if (!how) return closeWithout(session, remove);
  // An attach that fails (a restricted page) leaves nothing to answer.
  await session.attach().catch(() => {});
  const held = session.openDialog !== null && session.openDialog.dialogType === "beforeunload";
  return underPolicy(session, how, "close_tab", async () => {
    try {
      return await remove();
    } catch (e) {
      // The beforeunload just accepted held an earlier close (one that
      // failed dialog_opened): that close has now removed the tab.
      if (held && e instanceof BridgeError && e.code === ErrorCodes.TAB_NOT_FOUND) return { ok: true, tabId: session.tabId };
      throw e;
    }
  });
}

async function closeWithout(session, remove) {
  const open = session.openDialog;
  if (open && open.dialogType === "beforeunload") throw dialogError(session.tabId, open, "close_tab", false);
  if (!session.attached) return remove();
  const watch = failOnDialog(session, "close_tab", (d) => d.dialogType === "beforeunload");
  try {
    return await Promise.race([remove(), watch.opened]);
  } finally {
    watch.stop();
  }
}
