// The debugger's way into a tab: attaching chrome.debugger (CDP 1.3) with
// the domains bua needs (docs/extension.md#controller-interface), and sending a
// command to the tab's session or one of its child sessions, with
// Chrome's refusals turned into protocol errors. sessions/tab-session.js
// keeps what these find out.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError, cdpMessage } from "../core/cdp.js";
import { REASONS } from "../generated/protocol.js";

const CDP_VERSION = "1.3";

// AUTO_ATTACH attaches the tab's session (and each child's) to its
// out-of-process iframes, and only to those (not workers), as child
// sessions sent to with {tabId, sessionId}; nothing waits for the
// debugger, so the frames load as they would without it.
export const AUTO_ATTACH = Object.freeze({ autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: "iframe" }] });

// Defined on the prototype, not the instance, so navigator keeps no own
// "webdriver" property that a fingerprinting script could spot.
export const WEBDRIVER_SHIM =
  "Object.defineProperty(Navigator.prototype, 'webdriver', { get() { return false; }, configurable: true, enumerable: true });";

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

function closed(tabId) {
  return new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
}

// sendCommand runs one CDP command on session's tab, or on one of its
// child sessions (an out-of-process iframe) when sessionId is given. A
// child session gone (its frame navigated or was removed) is forgotten
// and is element_not_found: its nodes went with it. A detach that cut the
// command short ends the attachment and is answered by detachedCause.
export async function sendCommand(session, method, params, sessionId) {
  const tabId = session.tabId;
  try {
    return await session.api.sendCommand(sessionId ? { tabId, sessionId } : { tabId }, method, params || {});
  } catch (e) {
    const msg = cdpMessage(e);
    if (RESTRICTED.test(msg)) throw restricted(tabId, msg);
    if (/No tab with given id/i.test(msg)) throw closed(tabId);
    if (sessionId && /session|not attached|Detached while handling|Target closed|No target/i.test(msg)) {
      session.forgetChild(sessionId);
      throw new BridgeError(ErrorCodes.ELEMENT_NOT_FOUND, `the frame is no longer in the page (${msg})`);
    }
    if (/not attached|Detached while handling|Target closed/i.test(msg)) {
      session.attaching = null;
      throw await detachedCause(session, method);
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
async function detachedCause(session, method) {
  const tabId = session.tabId;
  let tab;
  try {
    tab = await session.tabsApi?.get(tabId);
  } catch {
    return closed(tabId);
  }
  const url = [tab?.pendingUrl, tab?.url].find((u) => u && RESTRICTED_URL.test(u));
  if (url) return restricted(tabId, /^https:/i.test(url) ? "Cannot access the Chrome Web Store" : `Cannot access a ${url.split(":")[0]}:// URL`);
  return new BridgeError(ErrorCodes.INTERNAL_ERROR, `debugger detached from tab ${tabId} during ${method}`);
}

// attachTab attaches the debugger to session's tab and sets it up: the
// domains, the webdriver shim, the main frame's document and the
// out-of-process iframes. A tab a restarted worker left attached is
// adopted. A setup that fails detaches again.
export async function attachTab(session) {
  const tabId = session.tabId;
  const target = { tabId };
  try {
    await session.api.attach(target, CDP_VERSION);
  } catch (e) {
    await adopt(session, cdpMessage(e));
  }
  session.watchRequests();
  try {
    session.mainFrame = await setUp(session);
  } catch (e) {
    session.unwatchRequests();
    await session.api.detach(target).catch(() => {});
    if (e instanceof BridgeError) throw e;
    throw new BridgeError(ErrorCodes.DEBUGGER_ATTACH_FAILED, `debugger attached to tab ${tabId} but setup failed: ${e.message}`);
  }
}

// adopt answers an attach that failed with msg: a restarted worker forgets
// its attachments but Chrome keeps them, so "already attached" is
// detached and attached again (detach succeeds only for our own session,
// so this never steals the tab from DevTools or another extension);
// anything else is the attach's error.
async function adopt(session, msg) {
  const tabId = session.tabId;
  const target = { tabId };
  if (RESTRICTED.test(msg)) throw restricted(tabId, msg);
  if (/No tab with given id/i.test(msg)) throw closed(tabId);
  if (/already attached/i.test(msg)) {
    try {
      await session.api.detach(target);
      await session.api.attach(target, CDP_VERSION);
      return;
    } catch {
      // fall through to the attach failure below
    }
  }
  throw new BridgeError(
    ErrorCodes.DEBUGGER_ATTACH_FAILED,
    `cannot attach the debugger to tab ${tabId}: ${msg} (DevTools or another debugging extension may hold the tab)`,
  );
}

// setUp sends the domains' setup, all at once: a debugger session runs its
// commands in order, so the shim's evaluate and the frame tree still come
// after the domains are enabled, and the setup costs one round trip.
// Runtime also feeds the trace its console messages and exceptions
// (docs/extension.md §Trace says why Runtime.enable shows nothing to the
// page). It returns the main frame's committed document {id, loaderId,
// url}.
async function setUp(session) {
  const send = (method, params) => session.send(method, params);
  const [, , , , , , , { frameTree }] = await Promise.all([
    send("Page.enable"),
    send("DOM.enable"),
    send("Runtime.enable"),
    send("Accessibility.enable"),
    send("Page.setLifecycleEventsEnabled", { enabled: true }),
    send("Page.addScriptToEvaluateOnNewDocument", { source: WEBDRIVER_SHIM }),
    // The shim above covers future documents; the current one needs it now.
    send("Runtime.evaluate", { expression: WEBDRIVER_SHIM }).catch(() => {}),
    send("Page.getFrameTree"),
    // Out-of-process iframes come as child sessions (TabSession's
    // childEvent). An older Chrome refuses this: frames then stay
    // same-origin only.
    send("Target.setAutoAttach", AUTO_ATTACH).catch(() => {}),
  ]);
  return { id: frameTree.frame.id, loaderId: frameTree.frame.loaderId, url: frameTree.frame.url };
}
