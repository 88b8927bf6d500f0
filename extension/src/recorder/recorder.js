// The recorder: `bua record`'s side in the worker (docs/record.md#bua-record,
// docs/extension.md#the-recorder). record_start puts the page side
// (page/recorder.js) into a tab (recorder/inject.js); each message it
// sends through its binding (Runtime.bindingCalled, on this module's own
// chrome.debugger listener) becomes a step of the tab's Recording
// (recorder/recording.js), its element described while still there
// (recorder/describe.js); chrome.webNavigation's commits become navigate,
// reload, go_back and go_forward steps, or say where the page went after
// an input (landed), and the tabs a click opens are followed. The popup
// shows the recordings (list, subscribe) with Stop and two checks
// (assertPage). The secrets typed never leave the worker: a step carries
// a secret's number (Recording.secret) instead.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { BINDING, WORLD, injectSession, removeSession } from "./inject.js";
import { describeWithin } from "./describe.js";
import { actionOf, uploadComment } from "./steps.js";
import { KEEP_ENDED_MS, Recording } from "./recording.js";
import { NavWatch } from "./navigation.js";
import { EarlyScript, isEarlyContext, takeEarly } from "./early.js";

// MAX_RECORDINGS is how many recordings run at once.
export const MAX_RECORDINGS = 4;
// MAX_SEEN bounds the elements the recorder keeps descriptions of.
const MAX_SEEN = 512;

// createRecorder: api is chrome-api.js's object (tabs, webNavigation,
// debugger.onEvent); controller gives a tab's debugger session
// (session(tabId): attach, send, frames); sessions is the session
// manager, whose onEnded ends a recording whose tab's session ends.
// background.js creates it at top level, so its chrome.debugger listener
// is added in the worker's first run.
export function createRecorder(opts) {
  return new Recorder(opts);
}

class Recorder {
  constructor({ api, controller, sessions, timers = globalThis, scripting = globalThis.chrome && globalThis.chrome.scripting }) {
    this.api = api;
    this.controller = controller;
    this.sessions = sessions;
    this.timers = timers;
    this.recordings = new Map(); // the tab a recording started on -> Recording
    this.byTab = new Map(); // every tab a live recording follows -> Recording
    this.tabs = new Map(); // followed tab -> {scripts: Map<sid, identifier>, contexts: Map<contextId, sid>, hist}
    this.seen = new Map(); // "tab|sid|context|id" -> Promise of the element's result.describe
    this.listeners = new Set();
    this.nav = new NavWatch(this);
    this.early = new EarlyScript(scripting);
    const onEvent = api.debugger && api.debugger.onEvent;
    if (onEvent && typeof onEvent.addListener === "function") onEvent.addListener((source, method, params) => this.handleEvent(source, method, params));
    if (sessions && typeof sessions.onEnded === "function") sessions.onEnded((ev) => this.tabEnded(ev.tabId, ev.reason));
  }

  // start begins recording tab (a chrome Tab, its session made by the
  // caller) and answers result.record_start.
  async start(tab) {
    const old = this.recordings.get(tab.id);
    if (old && !old.ended) throw new BridgeError(ErrorCodes.INVALID_ACTION, `tab ${tab.id} is already being recorded: stop that recording first (record_stop, or Stop in the extension's popup)`);
    if (this.byTab.has(tab.id)) throw new BridgeError(ErrorCodes.INVALID_ACTION, `tab ${tab.id} is part of the recording that started on tab ${this.byTab.get(tab.id).tabId}`);
    const live = [...this.recordings.values()].filter((r) => !r.ended).length;
    if (live >= MAX_RECORDINGS) throw new BridgeError(ErrorCodes.INVALID_ACTION, `${live} recordings are running, the most at once: stop one first`);
    const rec = new Recording(tab.id, { url: tab.url || tab.pendingUrl || "", title: tab.title || "" });
    this.recordings.set(tab.id, rec);
    // Before the person can open a tab from the recorded one.
    await this.early.set(true);
    try {
      await this.follow(rec, tab.id, tab.url || "");
    } catch (e) {
      this.recordings.delete(tab.id);
      await this.unfollow(tab.id);
      this.earlyWhileLive();
      throw e;
    }
    this.changed();
    return rec.summary();
  }

  // follow puts the recorder into tabId for rec. early (a tab a recorded
  // click opened): the inputs the early recorder (page/recorder-early.js)
  // saw there before the recorder proper listened become the tab's first
  // steps, before any of the recorder proper's.
  async follow(rec, tabId, url, { early = false } = {}) {
    rec.tabs.add(tabId);
    rec.urls.set(tabId, url);
    this.byTab.set(tabId, rec);
    const t = { scripts: new Map(), contexts: new Map(), hist: { list: url ? [url] : [], at: 0 }, early: null, holding: early ? [] : null };
    this.tabs.set(tabId, t);
    this.nav.listen();
    const session = this.controller.session(tabId);
    let since = null;
    try {
      await session.attach();
      const sids = [null, ...[...(session.frames || new Map()).keys()]];
      await Promise.all(
        sids.map(async (sid) => {
          const r = await injectSession(session, sid);
          t.scripts.set(sid, r.identifier);
          if (!sid) since = r.since;
        }),
      );
    } finally {
      if (early) await this.takeEarly(tabId, t, since);
    }
  }

  // takeEarly makes steps of what the early recorder of tabId's top
  // document saw before since (when the recorder proper there began
  // listening), then of the recorder proper's messages held meanwhile.
  async takeEarly(tabId, t, since) {
    const contextId = t.early;
    const payloads = await takeEarly(this.controller.session(tabId), contextId, since);
    const held = t.holding || [];
    t.holding = null;
    for (const p of payloads) this.message(tabId, null, contextId, p);
    for (const [sid, ctx, p] of held) this.message(tabId, sid, ctx, p);
  }

  // earlyWhileLive keeps the early recorder registered while a recording
  // runs, and only then.
  earlyWhileLive() {
    return this.early.set([...this.recordings.values()].some((r) => !r.ended));
  }

  // unfollow takes the recorder out of tabId.
  async unfollow(tabId) {
    const t = this.tabs.get(tabId);
    this.tabs.delete(tabId);
    this.byTab.delete(tabId);
    for (const k of [...this.seen.keys()]) if (k.startsWith(`${tabId}|`)) this.seen.delete(k);
    if (!this.byTab.size) this.nav.unlisten();
    if (!t) return;
    const session = this.controller.session(tabId);
    await Promise.all(
      [...t.scripts].map(([sid, id]) => removeSession(session, sid, id, [...t.contexts].filter(([, s]) => s === sid).map(([c]) => c))),
    ).catch(() => {});
  }

  // stop ends the recording that started on tabId, for reason, once the
  // steps under way are made, and answers its summary.
  async stop(tabId, reason = "stopped") {
    const rec = this.recordings.get(tabId);
    if (!rec) throw new BridgeError(ErrorCodes.INVALID_ACTION, `no recording started on tab ${tabId} (a recording the extension lost when its worker restarted, or that ended over ${KEEP_ENDED_MS / 60000} minutes ago, is gone)`);
    if (!rec.ended) {
      await Promise.all([...rec.tabs].map((id) => this.quiesce(id)));
      await rec.settled();
      rec.end(reason);
      this.earlyWhileLive();
      await Promise.all([...rec.tabs].map((id) => this.unfollow(id)));
      this.forgetLater(rec);
      this.changed();
    }
    return rec.summary();
  }

  // quiesce asks the recorders on tabId to write the text being typed
  // (flush), so a stop loses no typing; their messages come before the
  // evaluate answers.
  async quiesce(tabId) {
    const t = this.tabs.get(tabId);
    if (!t) return;
    const session = this.controller.session(tabId);
    const flush = "globalThis.__buaRecorder && globalThis.__buaRecorder.stop()";
    await Promise.all([...t.contexts].map(([contextId, sid]) => session.send("Runtime.evaluate", { expression: flush, contextId }, sid || undefined).catch(() => {})));
  }

  forgetLater(rec) {
    this.timers.setTimeout(() => {
      if (this.recordings.get(rec.tabId) === rec) this.recordings.delete(rec.tabId);
    }, KEEP_ENDED_MS);
  }

  // list is the live recordings, as the popup shows them (oldest first).
  list() {
    return [...this.recordings.values()].filter((r) => !r.ended).map((r) => r.view());
  }

  // subscribe calls fn at every change of list(); returns the unsubscribe.
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed() {
    for (const fn of [...this.listeners]) fn();
  }

  // assertPage adds a check the person asked for from the popup to the
  // recording that started on tabId: what is "url" (wait for the page's
  // URL, as the flow writer writes a glob of it) or "title" (the page's
  // title is this), of the tab the recording's last step was on.
  async assertPage(tabId, what) {
    const rec = this.recordings.get(tabId);
    if (!rec || rec.ended) throw new BridgeError(ErrorCodes.INVALID_ACTION, `no recording runs on tab ${tabId}`);
    const tab = await this.api.tabs.get(rec.lastTab).catch(() => null);
    if (!tab) throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${rec.lastTab} is closed`);
    const { url, masked } = rec.mask(tab.url || "");
    const step = { tabId: rec.lastTab, url };
    if (tab.title) step.title = tab.title;
    if (what === "title") step.assertTitle = tab.title || "";
    else step.assertUrl = url;
    if (masked) step.masked = true;
    await rec.add(step);
    this.changed();
    return what === "title" ? { title: step.assertTitle } : { url };
  }

  // read is record_read: the steps from sinceSeq on, waiting up to ms for
  // one (or the end) when there is none yet.
  async read(tabId, sinceSeq = 0, ms = 0, signal = undefined) {
    const rec = this.recordings.get(tabId);
    if (!rec) {
      throw new BridgeError(ErrorCodes.INVALID_ACTION, `no recording started on tab ${tabId}: it was lost when the extension's worker restarted, or it ended over ${KEEP_ENDED_MS / 60000} minutes ago`);
    }
    const now = rec.read(sinceSeq);
    if (now.steps.length || now.ended || ms <= 0) return now;
    await rec.wait(sinceSeq, ms, this.timers, signal);
    return rec.read(sinceSeq);
  }

  // tabEnded follows a session that ended: a closed tab leaves its
  // recording (which ends with its last tab); any other end (Stop, Stop
  // all, the debugger bar's Cancel, the blocklist, idle) ends it.
  tabEnded(tabId, reason) {
    const rec = this.byTab.get(tabId);
    if (!rec || rec.ended) return;
    if (reason !== "tab_closed") {
      this.stop(rec.tabId, "session_ended").catch(() => {});
      return;
    }
    rec.tabs.delete(tabId);
    this.unfollow(tabId);
    if (rec.tabs.size === 0) this.stop(rec.tabId, "tab_closed").catch(() => {});
    else this.changed();
  }

  // handleEvent is the recorder's chrome.debugger.onEvent listener.
  handleEvent(source, method, params) {
    const tabId = source && source.tabId;
    const t = this.tabs.get(tabId);
    if (!t || !params) return;
    const sid = source.sessionId || null;
    switch (method) {
      case "Runtime.bindingCalled":
        if (params.name === BINDING) this.message(tabId, sid, params.executionContextId, params.payload);
        break;
      case "Runtime.executionContextCreated":
        if (params.context && params.context.name === WORLD) t.contexts.set(params.context.id, sid);
        else if (!sid && isEarlyContext(params.context, this.api.runtime && this.api.runtime.id)) t.early = params.context.id;
        break;
      case "Runtime.executionContextDestroyed":
        t.contexts.delete(params.executionContextId);
        if (t.early === params.executionContextId) t.early = null;
        break;
      case "Runtime.executionContextsCleared":
        for (const [c, s] of [...t.contexts]) if (s === sid) t.contexts.delete(c);
        if (!sid) t.early = null;
        break;
      case "Target.attachedToTarget":
        if (params.targetInfo && params.targetInfo.type === "iframe" && params.sessionId) this.injectChild(tabId, params.sessionId);
        break;
      default:
        break;
    }
  }

  // injectChild puts the recorder into an out-of-process iframe that
  // attached while the tab is recorded.
  async injectChild(tabId, sid) {
    const t = this.tabs.get(tabId);
    try {
      const { identifier } = await injectSession(this.controller.session(tabId), sid);
      if (this.tabs.get(tabId) === t) t.scripts.set(sid, identifier);
    } catch {
      // The frame went away before it was reached.
    }
  }

  // message turns one page-side message into a step of the tab's recording.
  message(tabId, sid, contextId, payload) {
    const t = this.tabs.get(tabId);
    if (t && t.holding) {
      // The early recorder's inputs come first (takeEarly).
      t.holding.push([sid, contextId, payload]);
      return;
    }
    const rec = this.byTab.get(tabId);
    let msg;
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (!rec || rec.ended || !msg || typeof msg !== "object") return;
    const key = `${tabId}|${sid || ""}|${contextId}|${Number(msg.id)}`;
    if (msg.k === "see") {
      if (!msg.loc || typeof msg.loc !== "object") return;
      this.seen.set(key, describeWithin(this.controller.session(tabId), sid, contextId, msg, this.timers));
      if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.keys().next().value);
      return;
    }
    const action = actionOf(msg);
    if (!action) return;
    const step = { tabId, url: rec.mask(rec.urls.get(tabId)).url, action };
    if (msg.k === "type") {
      // Numbered now, so a URL that shows it from the next event on is masked.
      const n = rec.secret(String(msg.value || ""), Boolean(msg.secret));
      if (n) step.secret = n;
      else action.text = String(msg.value || "");
    }
    if (msg.k === "upload") step.comment = uploadComment(action.files);
    const described = msg.id === undefined ? null : this.seen.get(key);
    rec.add(this.described(step, described)).then(() => this.changed());
  }

  // described resolves to step with its element's description and its
  // tab's title.
  async described(step, target) {
    const [t, title] = await Promise.all([target || null, this.titleOf(step.tabId)]);
    if (t) step.target = t;
    if (title) step.title = title;
    return step;
  }

  async titleOf(tabId) {
    try {
      const tab = await this.api.tabs.get(tabId);
      return (tab && tab.title) || "";
    } catch {
      return "";
    }
  }
}
