// One TabSession per tab the debugger reaches (docs/extension.md
// §TabSession), as Playwright's crPage.ts keeps a target's state in one
// FrameSession: the attachment, the page's main frame and out-of-process
// iframes, the uid cache and the ledger of the last read, the uids handed
// out, the dialogs, the dialogs policy, the evaluate in flight, the CDP
// event listeners of the actions in flight and the trace's request watch.
// dispose is the one place that says what a detach drops and what only
// the tab's closing drops.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { REASONS } from "../generated/protocol.js";
import { AUTO_ATTACH, attachTab, sendCommand } from "./attach.js";
import { dialogClosed, dialogOpening } from "../actions/dialog.js";

export class TabSession {
  // deps: {api: chrome.debugger, tabsApi, webRequest, traces (the trace
  // store, core/trace.js), emitEvent}.
  constructor(tabId, { api, tabsApi, webRequest, traces, emitEvent }) {
    this.tabId = tabId;
    this.api = api;
    this.tabsApi = tabsApi;
    this.webRequest = webRequest;
    this.traces = traces;
    this.emitEvent = emitEvent;
    // What a detach drops (dispose).
    this.attaching = null; // Promise<void> of the attach and the domains' setup; null: not attached
    this.eagerAttach = null; // the attaching prepare started, whose failure is nobody's answer
    this.mainFrame = null; // {id, loaderId, url} of the committed main-frame document
    this.frames = new Map(); // sessionId -> {sessionId, targetId, parent}: out-of-process iframes (parent null: the tab's session)
    this.stopRequests = null; // removes the trace's webRequest listeners
    this.uidCache = null; // {loaderId, map: Map<uid, {session, id}>, next, known} (session null: the tab's own)
    this.lastRead = null; // the last read's entry, of whatever document: changes reads continue it (read/changes.js)
    this.evaluating = false; // an evaluate is in flight: dialogs are answered at once
    this.openDialog = null; // {dialogType, message} of the dialog left open
    this.policy = null; // {how, action, answered}: the dialogs policy of the action running (actions/dialog.js)
    // What only the tab's closing drops (dispose).
    this.uidsHandedOut = 0; // the most uids one read handed out on the tab, over every page
    this.listeners = new Set(); // (method, params) => void: the actions in flight that follow the tab's events
    this.dialogWatchers = new Set(); // (dialog) => void: called with each dialog left open
  }

  get attached() {
    return this.attaching !== null;
  }

  // dispose drops the tab's state: on "detached" (the debugger let go of
  // the tab: a detach, the person's Cancel, a closed tab's target) what
  // belonged to the attachment and the page it saw; on "closed" (the tab
  // is gone) everything, the TabSession with it. What survives a detach,
  // until the tab closes: the count of uids handed out (so a uid from
  // before it is stale, never unknown), the trace ring (the trace of a
  // session the person stopped still says why; docs/extension.md §Trace),
  // and the listeners and dialog watchers of the actions in flight, which
  // hear "bua.detached" and end themselves.
  dispose(why) {
    this.unwatchRequests();
    this.attaching = null;
    this.eagerAttach = null;
    this.mainFrame = null;
    this.frames = new Map();
    this.uidCache = null;
    this.lastRead = null; // with the remote objects it holds
    this.evaluating = false;
    this.openDialog = null;
    this.policy = null;
    if (why === "detached") return;
    this.uidsHandedOut = 0;
    this.listeners.clear();
    this.dialogWatchers.clear();
    this.traces.forget(this.tabId);
  }

  // attach starts attaching (sessions/attach.js) unless it has, and
  // returns the attach's promise; a failed attach is forgotten, so the
  // next action tries again.
  attach() {
    let p = this.attaching;
    if (!p) {
      p = attachTab(this);
      this.attaching = p;
      p.catch(() => {
        if (this.attaching === p) this.attaching = null;
      });
    }
    return p;
  }

  // send runs one CDP command on the tab's session, or on the child
  // session sessionId (an out-of-process iframe's).
  send(method, params, sessionId) {
    return sendCommand(this, method, params, sessionId);
  }

  // watchRequests feeds the trace the tab's failed requests from
  // chrome.webRequest, not the Network domain: one small event per request
  // instead of five large ones through chrome.debugger (docs/extension.md
  // §Trace measures both). Listened to for this tab only (a tabId filter),
  // so the person's other tabs send the worker nothing.
  watchRequests() {
    const wr = this.webRequest;
    if (this.stopRequests || !wr || !wr.onCompleted || !wr.onErrorOccurred) return;
    const tabId = this.tabId;
    const filter = { urls: ["<all_urls>"], tabId };
    const completed = (d) => this.traces.request(tabId, "completed", d);
    const failed = (d) => this.traces.request(tabId, "error", d);
    wr.onCompleted.addListener(completed, filter);
    wr.onErrorOccurred.addListener(failed, filter);
    this.stopRequests = () => {
      wr.onCompleted.removeListener(completed);
      wr.onErrorOccurred.removeListener(failed);
    };
  }

  unwatchRequests() {
    const off = this.stopRequests;
    this.stopRequests = null;
    if (off) off();
  }

  // handleEvent takes one chrome.debugger event of the tab: its child
  // sessions' comings and goings, then (the tab's own session only: a
  // child's events are its frame's, and the settle and the dialogs follow
  // the main frame) the trace, the main frame, the dialogs, and the
  // actions in flight.
  handleEvent(sessionId, method, params) {
    if (method === "Target.attachedToTarget" || method === "Target.detachedFromTarget") {
      this.childEvent(sessionId, method, params || {});
      return;
    }
    if (sessionId) return;
    this.traces.cdpEvent(this.tabId, method, params);
    switch (method) {
      case "Page.frameNavigated":
        this.frameNavigated(params && params.frame);
        break;
      case "Page.javascriptDialogOpening":
        dialogOpening(this, params || {});
        break;
      case "Page.javascriptDialogClosed":
        dialogClosed(this);
        break;
      default:
        break;
    }
    this.emit(method, params || {});
  }

  frameNavigated(frame) {
    if (!frame || frame.parentId) return;
    this.mainFrame = { id: frame.id, loaderId: frame.loaderId, url: frame.url };
    // Keyed by loaderId: a late event for the document the cache was
    // built on must not wipe a fresh extract.
    if (this.uidCache && this.uidCache.loaderId !== frame.loaderId) this.uidCache = null;
  }

  // childEvent tracks the out-of-process iframes: attached (an iframe
  // target only, thanks to AUTO_ATTACH's filter; its own children are
  // attached in turn) and detached. parent is the session the event came
  // on (none: the tab's own).
  childEvent(parent, method, params) {
    if (method === "Target.attachedToTarget") {
      const info = params.targetInfo || {};
      if (info.type !== "iframe" || !params.sessionId) return;
      this.frames.set(params.sessionId, { sessionId: params.sessionId, targetId: info.targetId, parent: parent || null });
      this.send("Target.setAutoAttach", AUTO_ATTACH, params.sessionId).catch(() => {});
    } else if (method === "Target.detachedFromTarget" && params.sessionId) {
      this.forgetChild(params.sessionId);
    }
  }

  // forgetChild forgets a child session and every session it attached.
  forgetChild(sessionId) {
    if (!this.frames.delete(sessionId)) return;
    for (const k of [...this.frames.values()]) if (k.parent === sessionId) this.forgetChild(k.sessionId);
  }

  // handleDetach is chrome.debugger's detach of the tab: the state goes,
  // and the actions in flight hear it as a "bua.detached" event.
  handleDetach(reason) {
    this.dispose("detached");
    this.emit("bua.detached", { reason });
  }

  // on calls fn with each of the tab's CDP events from now on, until the
  // returned function is called.
  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(method, params) {
    for (const fn of [...this.listeners]) fn(method, params);
  }

  // watchDialogs calls fn with each dialog left open on the tab from now
  // on, until the returned function is called.
  watchDialogs(fn) {
    this.dialogWatchers.add(fn);
    return () => this.dialogWatchers.delete(fn);
  }

  // readMainFrame asks the tab for its committed main-frame document.
  async readMainFrame() {
    const { frameTree } = await this.send("Page.getFrameTree");
    this.mainFrame = { id: frameTree.frame.id, loaderId: frameTree.frame.loaderId, url: frameTree.frame.url };
    return this.mainFrame;
  }

  // uidNode returns uid's backendNodeId and session (null: the tab's own;
  // else its out-of-process iframe's) from the cache at once (or throws
  // element_stale when the last extract has no such uid) together with
  // `current`, a promise that rejects element_stale when the tab's
  // document is no longer the one the cache was built on. Callers may send
  // commands for the node while `current` is in flight, and must await it
  // before acting.
  uidNode(uid) {
    const cache = this.uidCache;
    const node = cache ? cache.map.get(uid) : undefined;
    if (node === undefined) {
      if (Number(uid.slice(1)) >= this.uidsHandedOut) {
        throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} was never handed out on this page`, REASONS.UID_UNKNOWN);
      }
      const why = cache ? "it is not in the last extract" : "the page has no extract since it last loaded";
      throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} is stale: ${why}`);
    }
    // Belt and braces for an event that has not arrived yet: the cache
    // is only good for the document it was built on.
    const current = this.readMainFrame().then((cur) => {
      if (cur.loaderId !== cache.loaderId) {
        if (this.uidCache === cache) this.uidCache = null;
        throw new BridgeError(ErrorCodes.ELEMENT_STALE, `uid ${uid} is stale: the page loaded a new document since the extract`);
      }
    });
    return { id: node.id, session: node.session, current };
  }

  // storeUids records a read's uids; extra is read/changes.js's {next,
  // known} (next defaults to the count of uids).
  storeUids(map, loaderId, extra = {}) {
    const entry = { loaderId, map, next: extra.next === undefined ? map.size : extra.next, known: extra.known || null };
    this.lastRead = entry;
    // Handed out even when the cache is not kept: the read answers them.
    this.uidsHandedOut = Math.max(this.uidsHandedOut, entry.next);
    // A navigation that committed while extract ran makes its uids stale
    // at birth; keep the empty state instead.
    if (this.mainFrame && this.mainFrame.loaderId !== loaderId) {
      this.uidCache = null;
      return;
    }
    this.uidCache = entry;
  }
}
