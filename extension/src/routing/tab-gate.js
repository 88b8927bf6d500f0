// The gate a per-tab action passes before it reaches its tab, and the
// bookkeeping after it (consent and the session's invariants are
// enforced here, before any CDP call; docs/extension.md#dispatcher-rules): a tab the person stopped is
// refused, a blocklisted domain is refused (and its session ended), the
// tab is shown for input (the window manager's showTab), the session
// starts or goes on, the controller runs the action; then a tab the input
// opened becomes a session, the action is counted, and a navigation's new
// domain followed.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { hostOf } from "../core/domains.js";
import { END_REASONS, EVENTS } from "../generated/protocol.js";
import { urlOf } from "../actions/tabs.js";
import { PASSIVE_ACTIONS } from "../actions/trace.js";

// stoppedMessage is session_not_found's message for a tab whose session
// the person stopped (docs/cancellation.md#cancellation).
export function stoppedMessage(tabId, reason) {
  const how = reason === END_REASONS.GLOBAL_STOP ? "with Stop all" : reason === END_REASONS.DEBUGGER_DETACHED ? "by cancelling the debugger" : "with Stop";
  return `the person ended bua's session on tab ${tabId} ${how} (${reason}); bua does not act on that tab again while it is open: open a new tab with open_tab`;
}

export class TabGate {
  // deps: {api, sessions, windows, controller, emit, queues (TabQueues)}.
  constructor(deps) {
    this.deps = deps;
  }

  // getTab reads tabId, or fails tab_not_found.
  async getTab(tabId) {
    try {
      const tab = await this.deps.api.tabs.get(tabId);
      if (!tab) throw new Error("no tab");
      return tab;
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} is closed or never existed`);
    }
  }

  // blocked fails domain_blocked, with the domain_blocked event, when host
  // is on the blocklist; the tab's session, if any, ends with the reason,
  // ending every request pending on it but ac's (the one asking).
  blocked(host, attemptedAction, tabId, ac = null) {
    const { sessions, emit, queues } = this.deps;
    const entry = sessions.isDomainBlocked(host);
    if (!entry) return;
    const ev = { type: EVENTS.DOMAIN_BLOCKED, domain: host, attemptedAction };
    if (Number.isInteger(tabId)) ev.tabId = tabId;
    emit(ev);
    if (Number.isInteger(tabId) && sessions.get(tabId)) queues.exempting(ac, () => sessions.endSession(tabId, END_REASONS.DOMAIN_BLOCKED));
    throw new BridgeError(ErrorCodes.DOMAIN_BLOCKED, `${host} is on the blocklist (entry ${entry})`);
  }

  // run takes a "tab" action through the gate to the controller and
  // returns its result with its tabId (protocol v4 results carry the tab
  // they acted on), added here and only here.
  async run(tabId, action, budget, ac) {
    const { api, sessions, windows, controller } = this.deps;
    if (budget.remaining() <= 0) {
      throw new BridgeError(ErrorCodes.TIMEOUT, `${action.type} spent its ${budget.ms} ms budget waiting behind earlier actions on tab ${tabId}`);
    }
    const stopped = sessions.stoppedReason ? sessions.stoppedReason(tabId) : null;
    if (stopped) throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, stoppedMessage(tabId, stopped));
    // The tab's URL for the blocklist check: the debugger's committed main
    // frame when it is attached (no round trip to the tabs API), else the
    // tab's own, which also fails tab_not_found for a tab that is gone. A
    // tab closed under an attached debugger fails at its first CDP call,
    // which the dispatcher reports as tab_not_found.
    const known = controller.committedUrl ? controller.committedUrl(tabId) : null;
    const tab = known !== null ? null : await this.getTab(tabId);
    const host = hostOf(known !== null ? known : urlOf(tab));
    this.blocked(host, action.type, tabId, ac);
    if (PASSIVE_ACTIONS.has(action.type)) {
      // No session starts or lasts longer for a read of bua's own state.
      const result = await controller.run(tabId, action, budget);
      return { ...result, tabId };
    }
    const giveBack = await windows.showTab(action, tabId, () => tab || this.getTab(tabId));
    let domain = host;
    if (action.type === "navigate") {
      domain = hostOf(action.url);
      this.blocked(domain, action.type, tabId, ac);
    }
    sessions.ensureSession(tabId, domain);
    const result = await this.#runSession(tabId, action, budget, giveBack);
    // A tab the input opened becomes a session before the input's own tab
    // counts this action, so the input's tab stays the most recently used.
    if (result && Number.isInteger(result.newTabId)) await this.#adoptTab(result);
    sessions.recordAction(tabId);
    if (action.type === "navigate" || action.type === "reload") await this.#followDomain(api, sessions, tabId);
    return result && typeof result === "object" && !Array.isArray(result) ? { ...result, tabId } : result;
  }

  async #runSession(tabId, action, budget, giveBack) {
    const { sessions, controller } = this.deps;
    try {
      return await controller.run(tabId, action, budget);
    } finally {
      if (giveBack) await giveBack().catch(() => {}); // a closed window needs nothing back
      // The session ended while the action ran (Stop, Stop all, the
      // blocklist, idle): whoever ended it detached the debugger, but work
      // that was still attaching may have attached again after that.
      // This runs when that leftover work is over, so the tab is let go.
      if (!sessions.get(tabId) && controller.detach) controller.detach(tabId).catch(() => {});
    }
  }

  // followDomain follows the page to its real domain: it may have
  // redirected.
  async #followDomain(api, sessions, tabId) {
    try {
      const after = await api.tabs.get(tabId);
      const h = hostOf(urlOf(after));
      if (h) sessions.ensureSession(tabId, h);
    } catch { /* closed meanwhile: onRemoved ends the session */ }
  }

  // adoptTab makes the tab an input opened (result.newTabId, input/new-tab.js)
  // ready for the next action that names it: a session, and the debugger
  // attaching. Its URL goes in the result too (newTabUrl), read here
  // anyway, so the caller can say where the input went. A tab on a blocklisted domain is not reported at all, as
  // get_tabs does not list it; one that closed already neither.
  async #adoptTab(result) {
    const { api, sessions } = this.deps;
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
    if (urlOf(tab)) result.newTabUrl = urlOf(tab);
    sessions.ensureSession(tab.id, domain);
    this.prepare(tab.id);
  }

  // prepare lets the controller start attaching to a tab about to be
  // acted on (open_tab's, an input's new tab).
  prepare(tabId) {
    return this.deps.controller.prepare ? this.deps.controller.prepare(tabId) : Promise.resolve();
  }
}
