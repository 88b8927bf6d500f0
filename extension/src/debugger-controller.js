// The debugger controller: every per-tab action runs here through
// chrome.debugger (CDP 1.3) on the real tab (docs/extension.md#controller-interface).
// It owns the attachment set, the uid cache, the evaluate-in-progress set
// and the dialogs left open; the action modules in ./actions/ hold the CDP
// sequence for each action family and reach the tab only through the ctx
// object built here.

import { BridgeError, CancelledError, ErrorCodes, toWireError } from "./lib/errors.js";
import { CdpError, abortable, cdpMessage, sleep, withDeadline } from "./lib/cdp.js";
import { budgetFor } from "./lib/budget.js";
import { ACTION_SPECS, REASONS } from "./generated/protocol.js";
import * as nav from "./actions/nav.js";
import * as input from "./actions/input.js";
import * as capture from "./actions/capture.js";
import * as extract from "./actions/extract.js";
import * as evaluate from "./actions/evaluate.js";
import * as wait from "./actions/wait.js";
import * as handoff from "./actions/handoff.js";
import * as trace from "./actions/trace.js";
import { actionEvent, createTraceStore, dialogAnswerEvent } from "./lib/trace.js";
import * as forms from "./actions/forms.js";
import * as dialog from "./actions/dialog.js";
import * as describe from "./actions/describe.js";

const CDP_VERSION = "1.3";

// LEAVING_ACTIONS take the dialogs policy (the schema's dialogPolicy): they
// leave the page, so a dialog on it is answered first rather than failing
// them. close_tab, the fifth, is scope "browser" and comes through closeTab.
const LEAVING_ACTIONS = new Set(["navigate", "reload", "go_back", "go_forward"]);

// policyOf is the dialogs policy an action runs under: "accept" or
// "dismiss", or null when it leaves dialogs open (leave, the default).
function policyOf(action) {
  return action.dialogs === "accept" || action.dialogs === "dismiss" ? action.dialogs : null;
}

// AUTO_ATTACH attaches the tab's session (and each child's) to its
// out-of-process iframes, and only to those (not workers), as child
// sessions sent to with {tabId, sessionId}; nothing waits for the
// debugger, so the frames load as they would without it.
const AUTO_ATTACH = Object.freeze({ autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: "iframe" }] });

// Defined on the prototype, not the instance, so navigator keeps no own
// "webdriver" property that a fingerprinting script could spot.
export const WEBDRIVER_SHIM =
  "Object.defineProperty(Navigator.prototype, 'webdriver', { get() { return false; }, configurable: true, enumerable: true });";

// The object group every action's remote objects go into, released after
// each action so a long session does not pin page memory.
export const OBJECT_GROUP = "bua";

// TAB_EXECUTORS maps every action of scope "tab" (ACTION_SPECS) to its
// executor, (ctx, action) -> result, from the action modules' `executors`.
// Adding an action is a schema edit plus an executor in one of them.
export const TAB_EXECUTORS = Object.freeze(
  Object.fromEntries(
    [nav, input, capture, extract, evaluate, wait, handoff, trace, forms, dialog, describe]
      .flatMap((m) => Object.entries(m.executors))
      .filter(([type]) => Object.hasOwn(ACTION_SPECS, type) && ACTION_SPECS[type].scope === "tab"),
  ),
);

// RESTRICTED matches what chrome.debugger says, on attach or on any
// command, about a page no extension may debug (chrome://, the Web Store,
// another extension's page). Whether the tab got there before the attach
// or during an action, the caller hears the same code and reason.
const RESTRICTED = /Cannot access a (chrome|chrome-extension|devtools|edge)[-a-z]*:\/\/ URL|Cannot access contents of (the )?(url|page)|Cannot attach to this target/i;

function restricted(tabId, msg) {
  return new BridgeError(
    ErrorCodes.DEBUGGER_ATTACH_FAILED,
    `tab ${tabId} shows a page Chrome lets no extension debug (${msg}): navigate it to an http(s) page, or use another tab`,
    REASONS.RESTRICTED_PAGE,
  );
}

// RESTRICTED_URL matches a URL whose page no extension may debug: Chrome
// detaches the debugger when a tab goes there, so a command in flight
// fails with "Detached while handling command" rather than with the
// attach error RESTRICTED matches.
const RESTRICTED_URL = /^(chrome|chrome-extension|chrome-search|chrome-untrusted|devtools|edge):\/\/|^https:\/\/(chromewebstore\.google\.com|chrome\.google\.com\/webstore)\//i;

// createDebuggerController: see docs/extension.md §Controller
// interface. `opts.managed` is read at each use (the worker passes a getter
// because pairing loads after the controller is created).
export function createDebuggerController(opts) {
  const api = opts.chromeApi.debugger;
  const tabsApi = opts.chromeApi.tabs;
  const emitEvent = opts.emitEvent || (() => {});
  const timers = opts.timers || globalThis;
  const isManaged = () => Boolean(opts.managed);

  const attached = new Map(); // tabId -> Promise<void> of the attach + setup
  const mainFrames = new Map(); // tabId -> {id, loaderId, url} of the committed main-frame document
  const uidCaches = new Map(); // tabId -> {loaderId, map: Map<uid, {session, id}>, next, known} (session null: the tab's own)
  // tabId -> how many uids (e0 … eN-1) reads have handed out on the tab,
  // the most on any page (a changes read numbers on past a full extract's):
  // a uid at or past it was never handed out (a typo, another tab's uid),
  // which is not a page that changed. Kept across navigations and
  // detaches, dropped when the tab closes (forgetTab).
  const uidsHandedOut = new Map();
  // tabId -> the last read's cache entry, kept across navigations: a
  // changes read continues its numbering and names its uids as removed
  // (lib/changes.js). Dropped on detach, with the remote objects it holds.
  const uidLedgers = new Map();
  // tabId -> Map<sessionId, {sessionId, targetId, parent}>: the tab's
  // out-of-process iframes, reached through child sessions of its debugger
  // session (Target.setAutoAttach with flatten; chrome.debugger since
  // Chrome 125). parent is the session that attached it (null: the tab's).
  const childFrames = new Map();
  const evaluating = new Set(); // tabIds with an evaluate in flight
  const openDialogs = new Map(); // tabId -> {dialogType, message} of the dialog left open
  // tabId -> {how, action, answered}: the dialogs policy of the action
  // running there (LEAVING_ACTIONS, close_tab) under which a dialog that
  // opens is answered, and the answers given (result.dialogs).
  const policies = new Map();
  const tabListeners = new Map(); // tabId -> Set<(method, params) => void>
  const dialogWatchers = new Map(); // tabId -> Set<(dialog) => void>
  const detachListeners = new Set();
  // The per-tab trace rings (docs/extension.md §Trace): fed by this
  // controller's CDP events and action ends, kept across detaches (the
  // trace of a session the person stopped still says why), dropped when
  // the tab closes (forgetTab).
  const traces = opts.traces || createTraceStore();
  // The trace's failed requests come from chrome.webRequest, not the
  // Network domain: one small event per request instead of five large ones
  // through chrome.debugger (docs/extension.md §Trace measures both).
  // Listened to per attached tab (a tabId filter), so the person's other
  // tabs send the worker nothing.
  const webRequest = opts.chromeApi.webRequest;
  const requestWatches = new Map(); // tabId -> () => void, removing its listeners

  function watchRequests(tabId) {
    if (requestWatches.has(tabId) || !webRequest || !webRequest.onCompleted || !webRequest.onErrorOccurred) return;
    const filter = { urls: ["<all_urls>"], tabId };
    const completed = (d) => traces.request(tabId, "completed", d);
    const failed = (d) => traces.request(tabId, "error", d);
    webRequest.onCompleted.addListener(completed, filter);
    webRequest.onErrorOccurred.addListener(failed, filter);
    requestWatches.set(tabId, () => {
      webRequest.onCompleted.removeListener(completed);
      webRequest.onErrorOccurred.removeListener(failed);
    });
  }

  function unwatchRequests(tabId) {
    const off = requestWatches.get(tabId);
    if (!off) return;
    requestWatches.delete(tabId);
    off();
  }

  // send runs one CDP command on the tab's debugger session, or on one of
  // its child sessions (an out-of-process iframe) when sessionId is given.
  async function send(tabId, method, params, sessionId) {
    try {
      return await api.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params || {});
    } catch (e) {
      const msg = cdpMessage(e);
      if (RESTRICTED.test(msg)) throw restricted(tabId, msg);
      if (/No tab with given id/i.test(msg)) {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
      }
      if (sessionId && /session|not attached|Detached while handling|Target closed|No target/i.test(msg)) {
        // The frame went away (navigated, removed): its nodes with it.
        forgetChild(tabId, sessionId);
        throw new BridgeError(ErrorCodes.ELEMENT_NOT_FOUND, `the frame is no longer in the page (${msg})`);
      }
      if (/not attached|Detached while handling|Target closed/i.test(msg)) {
        attached.delete(tabId);
        throw await detachedCause(tabId, method);
      }
      throw new CdpError(method, msg);
    }
  }

  // detachedCause is the error for a command the debugger's detach cut
  // short. A tab on its way to a restricted page or already closed gets
  // the code and reason its next attach would get, so the caller hears
  // the same answer whichever comes first; any other detach (DevTools,
  // Chrome's Cancel bar) is internal_error. The tab is read, never
  // attached again: the person may have cancelled on purpose.
  async function detachedCause(tabId, method) {
    let tab = null;
    try {
      tab = await tabsApi?.get(tabId);
    } catch {
      return new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
    }
    const url = [tab?.pendingUrl, tab?.url].find((u) => u && RESTRICTED_URL.test(u));
    if (url) return restricted(tabId, /^https:/i.test(url) ? "Cannot access the Chrome Web Store" : `Cannot access a ${url.split(":")[0]}:// URL`);
    return new BridgeError(ErrorCodes.INTERNAL_ERROR, `debugger detached from tab ${tabId} during ${method}`);
  }

  function ensureAttached(tabId) {
    let p = attached.get(tabId);
    if (!p) {
      p = attach(tabId);
      attached.set(tabId, p);
      p.catch(() => {
        if (attached.get(tabId) === p) attached.delete(tabId);
      });
    }
    return p;
  }

  // prepare starts attaching to a tab that was just opened (open_tab), so
  // the attach and the domains' setup overlap the page's load instead of
  // delaying the first action. Its failure is nobody's answer: the first
  // action attaches again (run).
  const eager = new WeakSet();
  function prepare(tabId) {
    if (!attached.has(tabId)) eager.add(ensureAttached(tabId));
  }

  async function attach(tabId) {
    const target = { tabId };
    try {
      await api.attach(target, CDP_VERSION);
    } catch (e) {
      const msg = cdpMessage(e);
      if (RESTRICTED.test(msg)) throw restricted(tabId, msg);
      if (/No tab with given id/i.test(msg)) {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
      }
      // A restarted worker forgets its attachments but Chrome keeps them;
      // detach succeeds only for our own session, so this never steals the
      // tab from DevTools or another extension.
      let adopted = false;
      if (/already attached/i.test(msg)) {
        try {
          await api.detach(target);
          await api.attach(target, CDP_VERSION);
          adopted = true;
        } catch {
          // fall through to the attach failure below
        }
      }
      if (!adopted) {
        throw new BridgeError(
          ErrorCodes.DEBUGGER_ATTACH_FAILED,
          `cannot attach the debugger to tab ${tabId}: ${msg} (DevTools or another debugging extension may hold the tab)`,
        );
      }
    }
    watchRequests(tabId);
    try {
      // All sent at once: a debugger session runs its commands in order,
      // so the shim's evaluate and the frame tree still come after the
      // domains are enabled, and the setup costs one round trip.
      // Runtime also feeds the trace its console messages and exceptions
      // (docs/extension.md §Trace says why Runtime.enable shows nothing to
      // the page).
      const [, , , , , , , { frameTree }] = await Promise.all([
        send(tabId, "Page.enable"),
        send(tabId, "DOM.enable"),
        send(tabId, "Runtime.enable"),
        send(tabId, "Accessibility.enable"),
        send(tabId, "Page.setLifecycleEventsEnabled", { enabled: true }),
        send(tabId, "Page.addScriptToEvaluateOnNewDocument", { source: WEBDRIVER_SHIM }),
        // The shim above covers future documents; the current one needs it now.
        send(tabId, "Runtime.evaluate", { expression: WEBDRIVER_SHIM }).catch(() => {}),
        send(tabId, "Page.getFrameTree"),
        // Out-of-process iframes come as child sessions (handleChildEvent).
        // An older Chrome refuses this: frames then stay same-origin only.
        send(tabId, "Target.setAutoAttach", AUTO_ATTACH).catch(() => {}),
      ]);
      mainFrames.set(tabId, { id: frameTree.frame.id, loaderId: frameTree.frame.loaderId, url: frameTree.frame.url });
    } catch (e) {
      unwatchRequests(tabId);
      await api.detach(target).catch(() => {});
      if (e instanceof BridgeError) throw e;
      throw new BridgeError(ErrorCodes.DEBUGGER_ATTACH_FAILED, `debugger attached to tab ${tabId} but setup failed: ${e.message}`);
    }
  }

  // handleChildEvent tracks the out-of-process iframes: attached (an
  // iframe target only, thanks to AUTO_ATTACH's filter; its own children
  // are attached in turn) and detached. The parent session of an event is
  // source.sessionId (none: the tab's own session).
  function handleChildEvent(tabId, parent, method, params) {
    if (method === "Target.attachedToTarget") {
      const info = params.targetInfo || {};
      if (info.type !== "iframe" || !params.sessionId) return;
      let kids = childFrames.get(tabId);
      if (!kids) childFrames.set(tabId, (kids = new Map()));
      kids.set(params.sessionId, { sessionId: params.sessionId, targetId: info.targetId, parent: parent || null });
      send(tabId, "Target.setAutoAttach", AUTO_ATTACH, params.sessionId).catch(() => {});
    } else if (method === "Target.detachedFromTarget" && params.sessionId) {
      forgetChild(tabId, params.sessionId);
    }
  }

  function forgetChild(tabId, sessionId) {
    const kids = childFrames.get(tabId);
    if (!kids || !kids.delete(sessionId)) return;
    for (const k of [...kids.values()]) if (k.parent === sessionId) forgetChild(tabId, k.sessionId);
  }

  // handleDebuggerEvent is chrome.debugger.onEvent's listener.
  function handleDebuggerEvent(source, method, params) {
    const tabId = source && source.tabId;
    if (tabId === undefined || tabId === null) return;
    if (method === "Target.attachedToTarget" || method === "Target.detachedFromTarget") {
      handleChildEvent(tabId, source.sessionId, method, params || {});
      return;
    }
    // A child session's own events (its frame's) are not the tab's: the
    // settle and the dialog policy follow the main frame.
    if (source.sessionId) return;
    traces.cdpEvent(tabId, method, params);
    switch (method) {
      case "Page.frameNavigated": {
        const frame = params && params.frame;
        if (!frame || frame.parentId) break;
        mainFrames.set(tabId, { id: frame.id, loaderId: frame.loaderId, url: frame.url });
        // Keyed by loaderId: a late event for the document the cache was
        // built on must not wipe a fresh extract.
        const cache = uidCaches.get(tabId);
        if (cache && cache.loaderId !== frame.loaderId) uidCaches.delete(tabId);
        break;
      }
      case "Page.javascriptDialogOpening":
        onDialogOpening(tabId, params || {});
        break;
      case "Page.javascriptDialogClosed":
        openDialogs.delete(tabId);
        break;
      default:
        break;
    }
    const ls = tabListeners.get(tabId);
    if (ls) for (const fn of [...ls]) fn(method, params || {});
  }

  // handleDetach is chrome.debugger.onDetach's listener.
  function handleDetach(source, reason) {
    const tabId = source && source.tabId;
    if (tabId === undefined || tabId === null) return;
    dropTab(tabId);
    const ls = tabListeners.get(tabId);
    if (ls) for (const fn of [...ls]) fn("bua.detached", { reason });
    for (const fn of detachListeners) {
      try {
        fn(tabId, reason);
      } catch (e) {
        console.error("[bua] onDetach listener failed", e);
      }
    }
  }

  function dropTab(tabId) {
    unwatchRequests(tabId);
    attached.delete(tabId);
    mainFrames.delete(tabId);
    uidCaches.delete(tabId);
    uidLedgers.delete(tabId);
    childFrames.delete(tabId);
    evaluating.delete(tabId);
    openDialogs.delete(tabId);
    policies.delete(tabId);
  }

  // answerNow answers the dialog that is opening on tabId at once, and
  // records the answer in the tab's trace with the action that gave it.
  function answerNow(tabId, d, accept, by) {
    traces.push(tabId, dialogAnswerEvent(d.dialogType, d.message, accept, by));
    const policy = policies.get(tabId);
    if (policy) policy.answered.push({ dialogType: d.dialogType, message: d.message, accepted: accept });
    send(tabId, "Page.handleJavaScriptDialog", { accept }).catch((e) => {
      console.warn("[bua] could not answer dialog", e);
    });
  }

  function onDialogOpening(tabId, p) {
    const dialogType = p.type || "alert";
    const message = typeof p.message === "string" ? p.message : "";
    if (evaluating.has(tabId)) {
      // docs/protocol.md#dialogs: during evaluate, answer at once (accept an
      // alert or beforeunload, dismiss a confirm or prompt): until a dialog
      // is answered the renderer is blocked and the evaluate would hang.
      answerNow(tabId, { dialogType, message }, dialogType === "alert" || dialogType === "beforeunload", "evaluate");
      return;
    }
    const policy = policies.get(tabId);
    if (policy) {
      // An action that leaves the page under a dialogs policy: answer as
      // it says, but always accept a beforeunload, whose dismissal would
      // cancel the very navigation (or close) the action makes.
      answerNow(tabId, { dialogType, message }, dialogType === "beforeunload" || policy.how === "accept", policy.action);
      return;
    }
    // Outside evaluate the dialog is left open (docs/protocol.md#dialogs), in a
    // managed browser too: handle_dialog answers it, or the person does.
    // Until then the page is blocked, so every action on the tab fails at
    // once, naming it (run).
    const d = { dialogType, message };
    openDialogs.set(tabId, d);
    emitEvent({ type: "dialog_opened", tabId, dialogType, message });
    const ws = dialogWatchers.get(tabId);
    if (ws) for (const fn of [...ws]) fn(d);
  }

  // dialogError is the answer to an action that meets an open dialog:
  // before it ran (reason dialog_open: it did not run) or while it ran
  // (dialog_opened: it ran up to the dialog, most often by opening it).
  function dialogError(tabId, d, type, during) {
    const article = /^[aeiou]/.test(d.dialogType) ? "an" : "a";
    const text = d.message ? ` ${JSON.stringify(d.message.slice(0, 200))}` : "";
    const when = during ? ` (it opened during ${type})` : `, so ${type} did not run`;
    return new BridgeError(
      ErrorCodes.INVALID_ACTION,
      `${article} ${d.dialogType}${text} is open on tab ${tabId}${when}: answer it with handle_dialog, or set dialogs: accept or dismiss in a flow (or on a navigate, reload, go_back, go_forward or close_tab, which answers it and leaves the page)`,
      during ? REASONS.DIALOG_OPENED : REASONS.DIALOG_OPEN,
    );
  }

  // answerDialog answers the dialog left open on tabId, for `by`: the
  // handle_dialog action, or one that leaves the page under a dialogs
  // policy. With none open it is invalid_action. The answer goes into the
  // tab's trace.
  async function answerDialog(tabId, accept, promptText, by = "handle_dialog") {
    const d = openDialogs.get(tabId);
    if (!d) throw new BridgeError(ErrorCodes.INVALID_ACTION, `no dialog is open on tab ${tabId}: there is nothing for ${by} to answer`);
    const params = { accept };
    if (promptText !== undefined) params.promptText = promptText;
    try {
      await send(tabId, "Page.handleJavaScriptDialog", params);
    } catch (e) {
      // The person (or the page's navigation) closed it first.
      if (!(e instanceof CdpError) || !/no dialog/i.test(e.message)) throw e;
      openDialogs.delete(tabId);
      throw new BridgeError(ErrorCodes.INVALID_ACTION, `no dialog is open on tab ${tabId} any more: it was closed before ${by} answered it`);
    }
    if (openDialogs.get(tabId) === d) openDialogs.delete(tabId);
    traces.push(tabId, dialogAnswerEvent(d.dialogType, d.message, accept, by));
    return { ok: true, dialogType: d.dialogType, message: d.message, accepted: accept };
  }

  // withPolicy runs fn on behalf of the action `by` under the dialogs
  // policy `how`: first the dialog left open on tabId is answered, a
  // beforeunload accepted whatever the policy (dismissing it keeps the
  // page), then each dialog that opens while fn runs (onDialogOpening).
  // It returns fn's result and the answers given, in order.
  async function withPolicy(tabId, how, by, fn) {
    const mine = { how, action: by, answered: [] };
    const d = openDialogs.get(tabId);
    if (d) {
      try {
        const r = await answerDialog(tabId, d.dialogType === "beforeunload" || how === "accept", undefined, by);
        mine.answered.push({ dialogType: r.dialogType, message: r.message, accepted: r.accepted });
      } catch (e) {
        // A dialog closed meanwhile needs no answer.
        if (!(e instanceof BridgeError && e.code === ErrorCodes.INVALID_ACTION)) throw e;
      }
    }
    policies.set(tabId, mine);
    try {
      return { result: await fn(), answered: mine.answered };
    } finally {
      if (policies.get(tabId) === mine) policies.delete(tabId);
    }
  }

  // withAnswers is result with the dialogs a policy answered (the schema's
  // answeredDialogs), when there are any.
  function withAnswers({ result, answered }) {
    if (!answered.length || !result || typeof result !== "object") return result;
    return { ...result, dialogs: answered };
  }

  // closeTab is close_tab's way through the tab's dialogs: remove() closes
  // action.tabId (tabs.remove), which waits on a beforeunload dialog until
  // it is answered. It returns remove's result, with the dialogs answered
  // as withAnswers puts them. Under a dialogs policy (action.dialogs accept
  // or dismiss) a dialog open on the tab is answered first, and one that
  // opens while it closes as it opens, the debugger attached first if it
  // was not, so that it sees it. Without one, a beforeunload open on the
  // tab, or one that opens while it closes, fails close_tab at once
  // (reason dialog_open or dialog_opened) instead of leaving it to hang;
  // any other dialog open on a closing tab goes with it.
  async function closeTab(action, remove) {
    const tabId = action.tabId;
    const how = policyOf(action);
    if (!how) {
      const open = openDialogs.get(tabId);
      if (open && open.dialogType === "beforeunload") throw dialogError(tabId, open, "close_tab", false);
      if (!attached.has(tabId)) return remove();
      let stop = () => {};
      const opened = new Promise((_, reject) => {
        stop = watchDialogs(tabId, (d) => {
          if (d.dialogType === "beforeunload") reject(dialogError(tabId, d, "close_tab", true));
        });
      });
      try {
        return await Promise.race([remove(), opened]);
      } finally {
        stop();
      }
    }
    // An attach that fails (a restricted page) leaves nothing to answer.
    await ensureAttached(tabId).catch(() => {});
    const held = openDialogs.has(tabId) && openDialogs.get(tabId).dialogType === "beforeunload";
    const done = await withPolicy(tabId, how, "close_tab", async () => {
      try {
        return await remove();
      } catch (e) {
        // The beforeunload just accepted held an earlier close (one that
        // failed dialog_opened): that close has now removed the tab.
        if (held && e instanceof BridgeError && e.code === ErrorCodes.TAB_NOT_FOUND) return { ok: true, tabId };
        throw e;
      }
    });
    return withAnswers(done);
  }

  // watchDialogs calls fn with each dialog left open on tabId from now on,
  // until the returned function is called.
  function watchDialogs(tabId, fn) {
    let ws = dialogWatchers.get(tabId);
    if (!ws) dialogWatchers.set(tabId, (ws = new Set()));
    ws.add(fn);
    return () => ws.delete(fn);
  }

  function on(tabId, fn) {
    let ls = tabListeners.get(tabId);
    if (!ls) tabListeners.set(tabId, (ls = new Set()));
    ls.add(fn);
    return () => {
      ls.delete(fn);
      if (ls.size === 0 && tabListeners.get(tabId) === ls) tabListeners.delete(tabId);
    };
  }

  async function currentMainFrame(tabId) {
    const { frameTree } = await send(tabId, "Page.getFrameTree");
    const f = { id: frameTree.frame.id, loaderId: frameTree.frame.loaderId, url: frameTree.frame.url };
    mainFrames.set(tabId, f);
    return f;
  }

  function makeCtx(tabId, budget) {
    const signal = budget.signal;
    const holders = new Set(); // sessions (null: the tab's) holding remote objects
    function sendTo(session, method, params) {
      if (signal && signal.aborted) return Promise.reject(signal.reason);
      const p = send(tabId, method, params, session || undefined);
      p.then((r) => {
        if (r && ((r.result && r.result.objectId) || (r.object && r.object.objectId))) holders.add(session || null);
      }, () => {});
      return abortable(p, signal);
    }
    return {
      tabId,
      timers,
      // handoff is the worker's handoff service (actions/handoff.js), for
      // the handoff executor only.
      handoff: opts.handoff,
      // downloads is chrome.downloads (chrome-api.js), for the inputs that
      // wait for the download they start (lib/downloads.js).
      downloads: opts.chromeApi.downloads,
      // tabs and webNavigation (chrome-api.js) are for the inputs that
      // report the tab they opened (lib/new-tab.js).
      tabs: opts.chromeApi.tabs,
      webNavigation: opts.chromeApi.webNavigation,
      // budget is the request's (lib/budget.js): every inner wait is
      // bounded by budget.inner(), and ends when budget.signal aborts.
      budget,
      // holdsObjects says whether a command answered with a remote object
      // (Runtime's result or DOM.resolveNode's object): run releases
      // OBJECT_GROUP only then, so an action that asked for values only
      // (an evaluate of a primitive, a type by selector) sends no release.
      get holdsObjects() {
        return holders.size > 0;
      },
      // objectHolders are the sessions whose object group run releases.
      get objectHolders() {
        return [...holders];
      },
      // send and sleep reject with the signal's reason once the request has
      // stopped (cancelled, timed out, tab closed), so every loop of CDP
      // calls and polls ends at its next await.
      send: (method, params) => sendTo(null, method, params),
      // sendTo is send on a child session (an out-of-process iframe's,
      // from frames() or a uid), or on the tab's own when session is null.
      sendTo,
      // frames lists the tab's out-of-process iframes, in the order they
      // attached: [{sessionId, targetId, parent}] (parent null: attached by
      // the tab's own session). Same-origin frames are in the tab's.
      frames: () => [...(childFrames.get(tabId) || new Map()).values()],
      on: (fn) => on(tabId, fn),
      sleep: (ms) => sleep(ms, timers, signal),
      managed: isManaged,
      mainFrame: () => currentMainFrame(tabId),
      // mainFrameId is the committed main frame's id as last reported,
      // without a round trip (null before the attach read it).
      mainFrameId: () => (mainFrames.has(tabId) ? mainFrames.get(tabId).id : null),
      // uidNode returns uid's backendNodeId and session (null: the tab's
      // own; else its out-of-process iframe's) from the cache at once (or throws
      // element_stale when the last extract has no such uid) together with
      // `current`, a promise that rejects element_stale when the tab's
      // document is no longer the one the cache was built on. Callers may
      // send commands for the node while `current` is in flight, and must
      // await it before acting.
      uidNode(uid) {
        const cache = uidCaches.get(tabId);
        const node = cache && cache.map.get(uid);
        if (node === undefined) {
          if (Number(uid.slice(1)) >= (uidsHandedOut.get(tabId) || 0)) {
            throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} was never handed out on this page`, REASONS.UID_UNKNOWN);
          }
          const why = cache ? "it is not in the last extract" : "the page has no extract since it last loaded";
          throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} is stale: ${why}`);
        }
        // Belt and braces for an event that has not arrived yet: the cache
        // is only good for the document it was built on.
        const current = currentMainFrame(tabId).then((cur) => {
          if (cur.loaderId !== cache.loaderId) {
            if (uidCaches.get(tabId) === cache) uidCaches.delete(tabId);
            throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} is stale: the page loaded a new document since the extract`);
          }
        });
        return { id: node.id, session: node.session, current };
      },
      // lookupUid returns {session, id}, uid's debugger session (null: the
      // tab's own; else an out-of-process iframe's) and backendNodeId, or
      // throws element_stale when the uid is not from the document
      // currently in the tab.
      async lookupUid(uid) {
        const { id, session, current } = this.uidNode(uid);
        await current;
        return { session, id };
      },
      // storeUids records a read's uids; extra is lib/changes.js's
      // {next, known} (next defaults to the count of uids).
      storeUids(map, loaderId, extra = {}) {
        const entry = { loaderId, map, next: extra.next === undefined ? map.size : extra.next, known: extra.known || null };
        uidLedgers.set(tabId, entry);
        // Handed out even when the cache is not kept: the read answers them.
        uidsHandedOut.set(tabId, Math.max(uidsHandedOut.get(tabId) || 0, entry.next));
        // A navigation that committed while extract ran makes its uids
        // stale at birth; keep the empty state instead.
        const cur = mainFrames.get(tabId);
        if (cur && cur.loaderId !== loaderId) {
          uidCaches.delete(tabId);
          return;
        }
        uidCaches.set(tabId, entry);
      },
      // lastRead is the tab's last read {loaderId, map, next, known}, of
      // whatever document it was, or null (lib/changes.js).
      lastRead: () => uidLedgers.get(tabId) || null,
      clearUids: () => uidCaches.delete(tabId),
      // readTrace is get_trace's {events, nextSeq, dropped} (lib/trace.js).
      readTrace: (sinceSeq) => traces.read(tabId, sinceSeq),
      answerDialog: (accept, promptText) => answerDialog(tabId, accept, promptText),
      beginEvaluate: () => evaluating.add(tabId),
      endEvaluate: () => evaluating.delete(tabId),
    };
  }

  // run executes one per-tab action within budget (lib/budget.js; by
  // default the one a request without deadlineMs gets, from now) and
  // returns the executor's result, or throws a BridgeError; when
  // budget.signal aborts it throws the signal's reason at once. The
  // dispatcher adds tabId to the result.
  async function run(tabId, action, budget = budgetFor(action)) {
    const exec = Object.hasOwn(TAB_EXECUTORS, action.type) ? TAB_EXECUTORS[action.type] : null;
    if (!exec) throw new BridgeError(ErrorCodes.INVALID_ACTION, `${JSON.stringify(action.type)} is not a per-tab action`);
    // Reading the trace neither attaches nor waits for the page, and is
    // not itself traced (a follower's polls would crowd out the rest).
    if (trace.PASSIVE_ACTIONS.has(action.type)) return exec(makeCtx(tabId, budget), action);
    const started = Date.now();
    let code;
    let cancelled = false;
    try {
      return await runAttached(tabId, action, budget, exec);
    } catch (e) {
      cancelled = e instanceof CancelledError;
      code = toWireError(e).code;
      throw e;
    } finally {
      // Only a tab the debugger reached has a trace: a failed attach to a
      // closed tab must not leave a ring behind.
      if (attached.has(tabId) || traces.has(tabId)) traces.push(tabId, actionEvent(action.type, Date.now() - started, code, cancelled));
    }
  }

  async function runAttached(tabId, action, budget, exec) {
    // handle_dialog is the one action an open dialog lets through, and an
    // action that leaves the page under a dialogs policy answers it first.
    const answers = action.type === "handle_dialog";
    const policy = LEAVING_ACTIONS.has(action.type) ? policyOf(action) : null;
    const open = openDialogs.get(tabId);
    if (open && !answers && !policy) throw dialogError(tabId, open, action.type, false);
    // The watchdog: the queue wait and the attach already spent part of the
    // budget, so it gets what remains.
    let ctx = null;
    const first = ensureAttached(tabId);
    const ready = eager.has(first) ? first.catch(() => ensureAttached(tabId)) : first;
    const work = ready.then(async () => {
      ctx = makeCtx(tabId, budget);
      if (!policy) return exec(ctx, action);
      return withAnswers(await withPolicy(tabId, policy, action.type, () => exec(ctx, action)));
    });
    let stopWatch = () => {};
    const ms = budget.remaining();
    const races = [work];
    if (!answers) {
      // A dialog raised by this very action blocks the renderer, so the
      // pending CDP call would never answer: fail now instead of hanging.
      // (Under a dialogs policy none is left open to be seen here.)
      races.push(
        new Promise((_, reject) => {
          stopWatch = watchDialogs(tabId, (d) => {
            if (!evaluating.has(tabId)) reject(dialogError(tabId, d, action.type, true));
          });
        }),
      );
    }
    let finished = false;
    try {
      // One deadline over the work and the dialog watch, so its timer goes
      // when either ends the action, or the signal does.
      const result = await withDeadline(Promise.race(races), ms, action.type, timers, budget.signal);
      finished = true;
      return result;
    } finally {
      stopWatch();
      // An action that ended early may still have a command in flight that
      // creates an object; the release, sent after it, frees that too.
      if (ctx && (ctx.holdsObjects || !finished)) {
        const sessions = ctx.objectHolders.length && finished ? ctx.objectHolders : [null, ...ctx.frames().map((f) => f.sessionId)];
        for (const session of sessions) send(tabId, "Runtime.releaseObjectGroup", { objectGroup: OBJECT_GROUP }, session || undefined).catch(() => {});
      }
    }
  }

  async function detach(tabId) {
    const was = attached.has(tabId);
    dropTab(tabId);
    if (was) await api.detach({ tabId }).catch(() => {});
  }

  function forgetTab(tabId) {
    dropTab(tabId);
    uidsHandedOut.delete(tabId);
    traces.forget(tabId);
    tabListeners.delete(tabId);
    dialogWatchers.delete(tabId);
  }

  // chrome.debugger events only reach a worker that added its listeners
  // during its first synchronous run; background.js creates this controller
  // at top level, so adding them here satisfies that.
  if (api.onEvent && typeof api.onEvent.addListener === "function") api.onEvent.addListener(handleDebuggerEvent);
  if (api.onDetach && typeof api.onDetach.addListener === "function") api.onDetach.addListener(handleDetach);

  return {
    run,
    prepare,
    closeTab,
    detach,
    forgetTab,
    hasOpenDialog: (tabId) => openDialogs.has(tabId),
    // committedUrl is the URL of the document committed in tabId's main
    // frame, as the attached debugger last reported it (Page.frameNavigated),
    // or null when the debugger is not attached there: the dispatcher's
    // blocklist check reads it instead of asking the tabs API each action.
    committedUrl(tabId) {
      const f = attached.has(tabId) ? mainFrames.get(tabId) : undefined;
      return f && typeof f.url === "string" ? f.url : null;
    },
    onDetach(listener) {
      detachListeners.add(listener);
      return () => detachListeners.delete(listener);
    },
    handleDebuggerEvent,
    handleDetach,
    // For tests and diagnostics.
    _state: { attached, uidCaches, uidLedgers, evaluating, openDialogs, policies, mainFrames, traces, childFrames, requestWatches },
  };
}
