// What an executor may do on its tab: a few small interfaces, and each
// action family gets only the ones it uses (FAMILIES in
// sessions/executors.js). Every executor's ctx has tabId and budget (the
// request's, core/budget.js: every inner wait is bounded by budget.inner(),
// and ends when budget.signal aborts), and then:
//
// | capability | members | for |
// | --- | --- | --- |
// | cdp | send, sendTo, sleep, frames, timers | CDP commands to the tab's session or a child session, sleeps that end with the request, the out-of-process iframes |
// | events | on, mainFrame, mainFrameId | the tab's CDP events (the settle, a load's wait) and its main frame |
// | uids | uidNode, lookupUid | the node a uid names, in the document it was read from |
// | reads | storeUids, lastRead, clearUids | the uid cache and the ledger of the last read (extract, changes, labels; navigations clear it) |
// | input | managed, downloads, tabs, webNavigation | the browser's side of an input: a frame drawn, the download it started, the tab it opened |
// | dialogs | answerDialog | handle_dialog |
// | evaluating | beginEvaluate, endEvaluate | evaluate: dialogs are answered at once while it runs |
// | handoff | handoff | the worker's handoff service (actions/handoff.js) |
// | trace | readTrace | get_trace: the tab's trace ring, read without attaching |

import { sleep } from "../core/cdp.js";
import { answerDialog } from "../actions/dialog.js";

const CAPABILITIES = Object.freeze({
  // send and sleep reject with the signal's reason once the request has
  // stopped (cancelled, timed out, tab closed), so every loop of CDP calls
  // and polls ends at its next await. sendTo is send on a child session
  // (an out-of-process iframe's, from frames() or a uid), or on the tab's
  // own when session is null. frames lists the tab's out-of-process
  // iframes in the order they attached: [{sessionId, targetId, parent}]
  // (parent null: attached by the tab's own session); same-origin frames
  // are in the tab's.
  cdp: ({ session, request, deps, budget }) => ({
    send: (method, params) => request.sendTo(null, method, params),
    sendTo: request.sendTo,
    sleep: (ms) => sleep(ms, deps.timers, budget.signal),
    frames: () => [...session.frames.values()],
    timers: deps.timers,
  }),
  // mainFrameId is the committed main frame's id as last reported, without
  // a round trip (null before the attach read it); mainFrame reads it.
  events: ({ session }) => ({
    on: (fn) => session.on(fn),
    mainFrame: () => session.readMainFrame(),
    mainFrameId: () => (session.mainFrame ? session.mainFrame.id : null),
  }),
  // lookupUid is uidNode's node once `current` says the uid is from the
  // document now in the tab: {session, id}, or element_stale.
  uids: ({ session }) => ({
    uidNode: (uid) => session.uidNode(uid),
    async lookupUid(uid) {
      const { id, session: s, current } = session.uidNode(uid);
      await current;
      return { session: s, id };
    },
  }),
  // storeUids records a read's uids (read/changes.js's {next, known} as
  // extra); lastRead is the tab's last read {loaderId, map, next, known},
  // of whatever document, or null.
  reads: ({ session }) => ({
    storeUids: (map, loaderId, extra) => session.storeUids(map, loaderId, extra),
    lastRead: () => session.lastRead,
    clearUids: () => {
      session.uidCache = null;
    },
  }),
  // downloads is chrome.downloads, for the inputs that wait for the
  // download they start (input/downloads.js); tabs and webNavigation for the
  // ones that report the tab they opened (input/new-tab.js); managed says
  // whether the browser is a managed one (input/input.js drawFrame).
  input: ({ deps }) => ({
    managed: deps.isManaged,
    downloads: deps.chromeApi.downloads,
    tabs: deps.chromeApi.tabs,
    webNavigation: deps.chromeApi.webNavigation,
  }),
  dialogs: ({ session }) => ({
    answerDialog: (accept, promptText) => answerDialog(session, accept, promptText),
  }),
  evaluating: ({ session }) => ({
    beginEvaluate: () => {
      session.evaluating = true;
    },
    endEvaluate: () => {
      session.evaluating = false;
    },
  }),
  handoff: ({ deps }) => ({ handoff: deps.handoff }),
  // readTrace is get_trace's {events, nextSeq, dropped} (core/trace.js).
  trace: ({ tabId, deps }) => ({ readTrace: (sinceSeq) => deps.traces.read(tabId, sinceSeq) }),
});

// contextFor builds an executor's ctx from the capabilities it uses. on is
// {tabId, budget, deps (the controller's), session (the tab's
// TabSession; none for a passive action), request (openRequest's)}.
export function contextFor(uses, on) {
  const ctx = { tabId: on.tabId, budget: on.budget };
  for (const name of uses) Object.assign(ctx, CAPABILITIES[name](on));
  return ctx;
}
