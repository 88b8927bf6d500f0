// Turns one validated action into one result
// (docs/extension.md#dispatcher-rules): routes by the action's scope
// in ACTION_SPECS. "tab" actions: resolve the tab, queue per tab, check the
// blocklist, start the session, then run on the debugger controller.
// "browser" actions (get_tabs, open_tab, close_tab) run from
// actions/tabs.js through the tabs API, never behind a tab's queue. Every
// request runs within its budget (lib/budget.js) and under an AbortSignal
// (budget.signal) that aborts when the daemon cancels it, when its
// watchdog fires, or when its tab closes: the request then ends at once,
// frees its place in the tab's queue, and its leftover work stops at its
// next await (docs/architecture.md#cancellation, docs/extension.md §Cancellation).
// A session the person ends (Stop, Stop all, the debugger bar's Cancel),
// or that the blocklist, idle or a locked screen ends, ends its tab's
// pending requests at once with internal_error and error.reason = the end
// reason; a stopped tab then refuses actions with session_not_found.

import { BridgeError, CancelledError, ErrorCodes, toWireError } from "./lib/errors.js";
import { hostOf } from "./lib/domains.js";
import { abortable, onAbort } from "./lib/cdp.js";
import { budgetFor } from "./lib/budget.js";
import { ACTION_SPECS, END_REASONS, EVENTS, REASONS } from "./generated/protocol.js";
import { executors as browserExecutors, urlOf } from "./actions/tabs.js";
import { PASSIVE_ACTIONS } from "./actions/trace.js";

// endedMessage says, for a request whose session ended under it, what
// happened (error.reason carries the end reason itself).
export function endedMessage(tabId, reason) {
  switch (reason) {
    case END_REASONS.USER_STOPPED:
      return `the person stopped bua's session on tab ${tabId} from the extension's popup; the action did not finish`;
    case END_REASONS.GLOBAL_STOP:
      return `the person pressed Stop all in the extension's popup, ending every bua session; the action on tab ${tabId} did not finish`;
    case END_REASONS.DEBUGGER_DETACHED:
      return `the person cancelled the debugger on tab ${tabId} (Chrome's "started debugging this browser" bar); the action did not finish`;
    case END_REASONS.DOMAIN_BLOCKED:
      return `tab ${tabId}'s domain was added to the blocklist while the action ran; the action did not finish`;
    case END_REASONS.SYSTEM_IDLE:
      return `the computer went idle, which ends bua's sessions; the action on tab ${tabId} did not finish`;
    case END_REASONS.SCREEN_LOCKED:
      return `the screen was locked, which ends bua's sessions; the action on tab ${tabId} did not finish`;
    default:
      return `bua's session on tab ${tabId} ended (${reason}); the action did not finish`;
  }
}

// stoppedMessage is session_not_found's message for a tab whose session
// the person stopped (docs/architecture.md#cancellation).
export function stoppedMessage(tabId, reason) {
  const how = reason === END_REASONS.GLOBAL_STOP ? "with Stop all" : reason === END_REASONS.DEBUGGER_DETACHED ? "by cancelling the debugger" : "with Stop";
  return `the person ended bua's session on tab ${tabId} ${how} (${reason}); bua does not act on that tab again while it is open: open a new tab with open_tab`;
}

// INPUT_ACTIONS send input through the Input domain (actions/input.js), which
// Chrome delivers only to a page it shows. scroll is not one: it runs
// window.scrollBy in the page, which works in any tab.
const INPUT_ACTIONS = new Set(["click", "hover", "type", "press_key"]);

// FOCUS_BACK_MS bounds the wait for the focus to come back to the person's
// window after a click (holdFocus): 30-80 ms under Xvfb and openbox.
const FOCUS_BACK_MS = 500;

// isManaged (optional) reports whether the browser is a managed one: no
// person sits at it, so showTab keeps nobody's focus there.
export function createDispatcher({ api, sessions, windows, controller, emit, timers = globalThis, isManaged = () => false }) {
  const queues = new Map(); // tabId -> tail promise
  const pending = new Map(); // tabId -> Set<AbortController> of its requests, queued or running
  let exempt = null; // the request whose own blocklist check is ending its session

  // enqueue runs fn after every earlier action on tabId has ended, and
  // returns fn's promise, which rejects with signal's reason the moment
  // signal aborts. An aborted action gives up its place at once: the next
  // one waits only for the actions before it, never for orphaned work.
  function enqueue(tabId, fn, signal) {
    const prev = queues.get(tabId) || Promise.resolve();
    const start = () => {
      if (signal && signal.aborted) throw signal.reason; // ended while queued: never runs
      return fn();
    };
    const run = abortable(prev.then(start, start), signal);
    const tail = Promise.all([prev, run.catch(() => {})]).then(() => {});
    queues.set(tabId, tail);
    tail.then(() => {
      if (queues.get(tabId) === tail) queues.delete(tabId);
    });
    return run;
  }

  // track registers a request's controller under tabId until it ends, so
  // tabClosed can end it.
  function track(tabId, ac) {
    let set = pending.get(tabId);
    if (!set) pending.set(tabId, (set = new Set()));
    set.add(ac);
    return () => {
      set.delete(ac);
      if (set.size === 0 && pending.get(tabId) === set) pending.delete(tabId);
    };
  }

  // tabClosed ends every request pending on tabId, running or queued, with
  // tab_not_found at once: whoever closed the tab (close_tab, the person,
  // the page), no caller waits out its timeout on a tab that is gone.
  function tabClosed(tabId) {
    const set = pending.get(tabId);
    pending.delete(tabId);
    queues.delete(tabId);
    if (!set) return 0;
    for (const ac of set) ac.abort(new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} was closed while the action was pending`));
    return set.size;
  }

  // sessionEnded ends every request pending on tabId at once when its
  // session ends: tab_closed as tabClosed does (tab_not_found), any other
  // reason with internal_error carrying the reason. The request whose own
  // blocklist check ended the session answers domain_blocked instead.
  function sessionEnded(tabId, reason) {
    if (reason === END_REASONS.TAB_CLOSED) return tabClosed(tabId);
    const set = pending.get(tabId);
    if (!set) return 0;
    let n = 0;
    for (const ac of [...set]) {
      if (ac === exempt) continue;
      ac.abort(new BridgeError(ErrorCodes.INTERNAL_ERROR, endedMessage(tabId, reason), reason));
      n++;
    }
    return n;
  }
  if (typeof sessions.onEnded === "function") sessions.onEnded((ev) => sessionEnded(ev.tabId, ev.reason));

  // tabGone says whether tabId no longer exists.
  async function tabGone(tabId) {
    try {
      return !(await api.tabs.get(tabId));
    } catch {
      return true;
    }
  }

  async function getTab(tabId) {
    try {
      const tab = await api.tabs.get(tabId);
      if (!tab) throw new Error("no tab");
      return tab;
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
    }
  }

  function blocked(host, attemptedAction, tabId, ac = null) {
    const entry = sessions.isDomainBlocked(host);
    if (!entry) return;
    const ev = { type: EVENTS.DOMAIN_BLOCKED, domain: host, attemptedAction };
    if (Number.isInteger(tabId)) ev.tabId = tabId;
    emit(ev);
    if (Number.isInteger(tabId) && sessions.get(tabId)) {
      exempt = ac;
      try {
        sessions.endSession(tabId, END_REASONS.DOMAIN_BLOCKED);
      } finally {
        exempt = null;
      }
    }
    throw new BridgeError(ErrorCodes.DOMAIN_BLOCKED, `${host} is on the blocklist (entry ${entry})`);
  }

  // resolveTab picks the tab an action runs on. Returns {tabId, opened}.
  // An explicit tabId is taken as it is: runOnTab checks the tab when the
  // action's turn comes (tab_not_found if it is gone).
  async function resolveTab(action) {
    if (action.tabId !== undefined) return { tabId: action.tabId, opened: false };
    const buaId = await windows.buaWindowId();
    const live = [];
    for (const s of sessions.list()) {
      try {
        const tab = await api.tabs.get(s.tabId);
        live.push({ s, tab });
      } catch {
        sessions.tabRemoved(s.tabId); // the worker slept through its onRemoved
      }
    }
    const inBua = live.filter(({ tab }) => buaId != null && tab.windowId === buaId);
    const mru = (list) => list.reduce((a, b) => (b.s.lastActionAt > a.s.lastActionAt ? b : a));
    if (inBua.length) return { tabId: mru(inBua).s.tabId, opened: false };
    if (live.length === 1) return { tabId: live[0].s.tabId, opened: false };
    if (action.type === "navigate") {
      blocked(hostOf(action.url), action.type);
      const tab = await windows.openTab("about:blank");
      return { tabId: tab.id, opened: true };
    }
    if (live.length > 1) {
      const ids = live.map(({ s }) => s.tabId).join(", ");
      throw new BridgeError(
        ErrorCodes.SESSION_NOT_FOUND,
        `${live.length} sessions (tabs ${ids}) and none in the BUA window, and the action has no tabId`,
      );
    }
    throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, "no session to act on: no tab has a session and the action has no tabId");
  }

  // perTab runs a "tab" action on the controller. The time spent waiting
  // in the tab's queue comes out of the budget; an action whose budget ran
  // out while queued fails without running. The result gets its tabId here,
  // and only here (protocol v4 results carry the tab they acted on).
  async function perTab(action, budget, ac) {
    const { tabId } = await resolveTab(action);
    const untrack = track(tabId, ac);
    try {
      // A passive action (get_trace) reads bua's bookkeeping, not the page:
      // it waits behind nobody.
      if (PASSIVE_ACTIONS.has(action.type)) return await abortable(runOnTab(tabId, action, budget, ac), budget.signal);
      return await enqueue(tabId, () => runOnTab(tabId, action, budget, ac), budget.signal);
    } catch (e) {
      // A tab closed under the action explains whatever else went wrong
      // (a detached debugger, a CDP call on a dead target).
      const explained = e instanceof CancelledError || (e instanceof BridgeError && e.code !== ErrorCodes.INTERNAL_ERROR && e.code !== ErrorCodes.DEBUGGER_ATTACH_FAILED);
      if (!explained && (await tabGone(tabId))) {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} was closed while ${action.type} ran`);
      }
      throw e;
    } finally {
      untrack();
    }
  }

  // showTab readies tabId for an action that needs its page shown: one
  // that sends input through the Input domain (INPUT_ACTIONS), and in a
  // managed browser a screenshot (below). Chrome drops input to a background
  // tab's page, so the action would report ok for input that never
  // arrived (a lone mouse move, a hover, gets there only every 5 s). A
  // background tab of the BUA window is made its window's
  // active tab (bua's own window: the person sees nothing change); a
  // background tab of the person's own window fails with background_tab,
  // as switching it would change what they look at.
  async function showTab(action, tabId, known) {
    // A managed browser has no person whose focus or tabs to keep, and its
    // headless pages take input in the background once they have drawn a
    // frame (e2e TestClickBackgroundTab): only hover's lone mouse move
    // needs its tab shown, and a screenshot, whose capture of a background
    // tab waits for a frame that never comes (the capture's last resort,
    // Page.bringToFront, leaves the headless window hiding every tab
    // opened after it). Every click there skips the window reads.
    if (isManaged()) {
      if (action.type !== "hover" && action.type !== "screenshot") return null;
    } else if (!INPUT_ACTIONS.has(action.type)) {
      return null;
    }
    const click = action.type === "click";
    const [tab, buaId, wins] = await Promise.all([
      known || getTab(tabId),
      windows.buaWindowId(),
      click ? api.windows.getAll({ windowTypes: ["normal"] }).catch(() => []) : null,
    ]);
    if (!tab.active) {
      if (tab.windowId !== buaId && !windows.isOwn(tab.windowId)) {
        if (action.type === "screenshot") return null; // the capture's own retries, as before
        throw new BridgeError(
          ErrorCodes.INVALID_ACTION,
          `tab ${tabId} is a background tab of the person's own window, and Chrome delivers no input to a page it does not show: ${action.type} did not run. Ask the person to switch to that tab, or open the page in bua's window with open_tab`,
          REASONS.BACKGROUND_TAB,
        );
      }
      await api.tabs.update(tabId, { active: true });
    }
    return click ? holdFocus(tab.windowId, wins) : null;
  }

  // holdFocus is for a click in a window that does not have the focus:
  // Chrome activates (restores and focuses) the window of a page that gets
  // a mouse press, whatever focus emulation says (docs/extension.md
  // §Focus). wins are the windows as they were before the press; the
  // returned function, run after the click, puts them back: the window
  // minimized again if it was, the focus back on the window that had it.
  // The activation can also come after the click answered (the window
  // manager applies it late): a minimized window is then kept hidden a
  // while longer by the window manager (keepHidden). Null when there is
  // nothing to keep.
  function holdFocus(windowId, wins) {
    const win = wins.find((w) => w.id === windowId);
    if (!win || win.focused) return null;
    const focused = wins.find((w) => w.focused);
    return async () => {
      if (win.state === "minimized") windows.keepHidden(windowId, focused ? focused.id : null);
      const after = await api.windows.get(windowId);
      if (after.state === win.state && !after.focused) return;
      if (win.state === "minimized" && after.state !== "minimized") await api.windows.update(windowId, { state: "minimized" });
      if (!focused) return;
      await api.windows.update(focused.id, { focused: true });
      // The window manager applies the focus after windows.update answers:
      // wait for it, so the person's page has the focus again when the
      // click's answer (and the agent's next action) comes.
      for (const end = Date.now() + FOCUS_BACK_MS; Date.now() < end; ) {
        if ((await api.windows.get(focused.id)).focused) return;
        await new Promise((resolve) => timers.setTimeout(resolve, 20));
      }
    };
  }

  async function runOnTab(tabId, action, budget, ac) {
    if (budget.remaining() <= 0) {
      throw new BridgeError(ErrorCodes.TIMEOUT, `${action.type} spent its ${budget.ms} ms budget waiting behind earlier actions on tab ${tabId}`);
    }
    const stopped = sessions.stoppedReason ? sessions.stoppedReason(tabId) : null;
    if (stopped) throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, stoppedMessage(tabId, stopped));
    // The tab's URL for the blocklist check: the debugger's committed main
    // frame when it is attached (no round trip to the tabs API), else the
    // tab's own, which also fails tab_not_found for a tab that is gone. A
    // tab closed under an attached debugger fails at its first CDP call,
    // which perTab reports as tab_not_found.
    const known = controller.committedUrl ? controller.committedUrl(tabId) : null;
    const tab = known !== null ? null : await getTab(tabId);
    const host = hostOf(known !== null ? known : urlOf(tab));
    blocked(host, action.type, tabId, ac);
    if (PASSIVE_ACTIONS.has(action.type)) {
      // No session starts or lasts longer for a read of bua's own state.
      const result = await controller.run(tabId, action, budget);
      return { ...result, tabId };
    }
    const giveBack = await showTab(action, tabId, tab);
    let domain = host;
    if (action.type === "navigate") {
      domain = hostOf(action.url);
      blocked(domain, action.type, tabId, ac);
    }
    sessions.ensureSession(tabId, domain);
    let result;
    try {
      result = await controller.run(tabId, action, budget);
    } finally {
      if (giveBack) await giveBack().catch(() => {}); // a closed window needs nothing back
      // The session ended while the action ran (Stop, Stop all, the
      // blocklist, idle): whoever ended it detached the debugger, but work
      // that was still attaching may have attached again after that.
      // This runs when that leftover work is over, so the tab is let go.
      if (!sessions.get(tabId) && controller.detach) controller.detach(tabId).catch(() => {});
    }
    // A tab the input opened becomes a session before the input's own tab
    // counts this action, so the input's tab stays the most recently used.
    if (result && Number.isInteger(result.newTabId)) await adoptTab(result);
    sessions.recordAction(tabId);
    if (action.type === "navigate" || action.type === "reload") {
      // the page may have redirected: follow the real domain.
      try {
        const after = await api.tabs.get(tabId);
        const h = hostOf(urlOf(after));
        if (h) sessions.ensureSession(tabId, h);
      } catch { /* closed meanwhile: onRemoved ends the session */ }
    }
    return result && typeof result === "object" && !Array.isArray(result) ? { ...result, tabId } : result;
  }

  // adoptTab makes the tab an input opened (result.newTabId, lib/new-tab.js)
  // ready for the next action that names it: a session, and the debugger
  // attaching. A tab on a blocklisted domain is not reported at all, as
  // get_tabs does not list it; one that closed already neither.
  async function adoptTab(result) {
    let tab;
    try {
      tab = await api.tabs.get(result.newTabId);
    } catch {
      delete result.newTabId;
      return;
    }
    const domain = hostOf(urlOf(tab));
    if (domain && sessions.isDomainBlocked(domain)) {
      delete result.newTabId;
      return;
    }
    sessions.ensureSession(tab.id, domain);
    prepare(tab.id);
  }

  // env is what a "browser" executor (actions/tabs.js) may use.
  // prepare(tabId) lets open_tab start the debugger's attach while the
  // new tab loads (the controller's prepare); navigate(action) runs a
  // navigate on the tab open_tab opened, as a request of its own would
  // run (queue, session, the controller) within open_tab's budget;
  // hasOpenDialog and closeTab are the controller's, for open_tab's wait
  // and close_tab's way through a dialog.
  const prepare = (tabId) => {
    if (controller.prepare) controller.prepare(tabId);
  };
  const envFor = (budget, ac) => ({
    api,
    sessions,
    windows,
    budget,
    timers,
    blocked,
    getTab,
    tabClosed,
    prepare,
    navigate: (action) => perTab(action, budget, ac),
    hasOpenDialog: controller.hasOpenDialog ? (tabId) => controller.hasOpenDialog(tabId) : null,
    closeTab: controller.closeTab ? (action, remove) => controller.closeTab(action, remove) : null,
  });

  function run(action, budget, ac) {
    const spec = Object.hasOwn(ACTION_SPECS, action.type) ? ACTION_SPECS[action.type] : null;
    switch (spec && spec.scope) {
      case "tab":
        return perTab(action, budget, ac);
      case "browser":
        if (Object.hasOwn(browserExecutors, action.type)) return browserExecutors[action.type](envFor(budget, ac), action);
        break;
      default:
        break;
    }
    throw new BridgeError(ErrorCodes.INVALID_ACTION, `unknown action ${JSON.stringify(action.type)}`);
  }

  // dispatch runs one action within budget (by default, the one a request
  // without deadlineMs gets, from now); throws BridgeError on failure, or
  // CancelledError when budget.signal (the daemon's cancel) aborted it. The
  // controller has its own watchdog for the action itself; this one also
  // covers resolving the tab and waiting in its queue, so the caller hears
  // timeout before the daemon gives up. The request's own signal aborts on
  // cancel, on this watchdog and on tab close, and once the request has
  // ended, so nothing it started runs on.
  async function dispatch(action, budget = budgetFor(action)) {
    const ac = new AbortController();
    const outer = budget.signal;
    const offOuter = onAbort(outer, () => ac.abort(outer.reason instanceof Error ? outer.reason : new CancelledError()));
    const ms = budget.remaining();
    const watchdog = timers.setTimeout(
      () => ac.abort(new BridgeError(ErrorCodes.TIMEOUT, `${action.type} did not finish within ${ms} ms`)),
      ms,
    );
    try {
      const work = Promise.resolve().then(() => run(action, budget.withSignal(ac.signal), ac));
      return await abortable(work, ac.signal);
    } finally {
      timers.clearTimeout(watchdog);
      offOuter();
      if (!ac.signal.aborted) ac.abort(new CancelledError("the request has ended"));
    }
  }

  return {
    dispatch,
    // handle is ws-client's handleRequest: {result} or {error}, never
    // throws; null when the request was cancelled, which gets no response.
    async handle(action, budget) {
      try {
        return { result: await dispatch(action, budget) };
      } catch (e) {
        if (e instanceof CancelledError) return null;
        return { error: toWireError(e) };
      }
    },
    tabClosed,
    sessionEnded,
  };
}
