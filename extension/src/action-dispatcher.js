// Turns one validated action into one result (spec 001 §End-to-End Data
// Flow, docs/extension.md §Dispatcher rules): resolve the tab,
// queue per tab, check the blocklist, start the session, then hand per-tab
// actions to the debugger controller. Tab-level actions (get_tabs,
// open_tab, close_tab) use the tabs API here.

import { BridgeError, ErrorCodes, toWireError } from "./lib/errors.js";
import { hostOf } from "./session-manager.js";
import { sleep } from "./lib/cdp.js";

const OPEN_TAB_LOAD_WAIT_MS = 25000; // under the daemon's 30 s open_tab deadline
const LOAD_POLL_MS = 100;

// isListable says whether get_tabs shows a URL: http(s) and about:blank only,
// so chrome://, devtools and extension pages never reach the agent.
export function isListable(url) {
  if (url === "about:blank") return true;
  return /^https?:\/\//i.test(url || "");
}

export function createDispatcher({ api, sessions, windows, controller, emit, timers = globalThis }) {
  const queues = new Map(); // tabId -> tail promise

  // enqueue runs fn after every earlier action on tabId settles.
  function enqueue(tabId, fn) {
    const prev = queues.get(tabId) || Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    queues.set(tabId, tail);
    tail.then(() => {
      if (queues.get(tabId) === tail) queues.delete(tabId);
    });
    return run;
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

  const urlOf = (tab) => tab.url || tab.pendingUrl || "";

  function blocked(host, attemptedAction, tabId) {
    const entry = sessions.isDomainBlocked(host);
    if (!entry) return;
    const ev = { type: "domain_blocked", domain: host, attemptedAction };
    if (Number.isInteger(tabId)) ev.tabId = tabId;
    emit(ev);
    if (Number.isInteger(tabId) && sessions.get(tabId)) sessions.endSession(tabId, "domain_blocked");
    throw new BridgeError(ErrorCodes.DOMAIN_BLOCKED, `${host} is on the blocklist (entry ${entry})`);
  }

  async function waitForLoad(tabId, ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      let tab;
      try {
        tab = await api.tabs.get(tabId);
      } catch {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} closed while loading`);
      }
      if (tab.status === "complete" || Date.now() >= deadline) return tab;
      await sleep(LOAD_POLL_MS, timers);
    }
  }

  // resolveTab picks the tab an action runs on. Returns {tabId, opened}.
  async function resolveTab(action) {
    if (action.tabId !== undefined) {
      await getTab(action.tabId);
      return { tabId: action.tabId, opened: false };
    }
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
      throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, `${live.length} sessions (tabs ${ids}) and none in the BUA window: pass --tab`);
    }
    throw new BridgeError(ErrorCodes.SESSION_NOT_FOUND, "no session to act on: open a tab (bua open URL) or pass --tab");
  }

  async function getTabs() {
    const tabs = await api.tabs.query({});
    const out = [];
    for (const t of tabs) {
      const url = urlOf(t);
      if (!isListable(url)) continue;
      const domain = hostOf(url);
      if (domain && sessions.isDomainBlocked(domain)) continue;
      // windowId is a pure addition: callers can tell BUA tabs from the person's.
      out.push({ tabId: t.id, url, title: t.title || "", domain, windowId: t.windowId });
    }
    return out;
  }

  async function openTab(action) {
    const domain = hostOf(action.url);
    blocked(domain, action.type);
    const tab = await windows.openTab(action.url, { focus: action.focus === true });
    sessions.ensureSession(tab.id, domain);
    sessions.touch(tab.id);
    await waitForLoad(tab.id, OPEN_TAB_LOAD_WAIT_MS);
    return { tabId: tab.id, windowId: tab.windowId, domain };
  }

  async function closeTab(action) {
    await getTab(action.tabId);
    return enqueue(action.tabId, async () => {
      try {
        await api.tabs.remove(action.tabId);
      } catch {
        throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${action.tabId} is closed or never existed`);
      }
      return { ok: true, tabId: action.tabId };
    });
  }

  async function perTab(action) {
    const { tabId } = await resolveTab(action);
    return enqueue(tabId, async () => {
      const tab = await getTab(tabId);
      const host = hostOf(urlOf(tab));
      blocked(host, action.type, tabId);
      let domain = host;
      if (action.type === "navigate") {
        domain = hostOf(action.url);
        blocked(domain, action.type, tabId);
      }
      sessions.ensureSession(tabId, domain);
      const result = await controller.run(tabId, action);
      sessions.recordAction(tabId);
      if (action.type === "navigate") {
        // the page may have redirected: follow the real domain.
        try {
          const after = await api.tabs.get(tabId);
          const h = hostOf(urlOf(after));
          if (h) sessions.ensureSession(tabId, h);
        } catch { /* closed meanwhile: onRemoved ends the session */ }
      }
      return result && typeof result === "object" && !Array.isArray(result) && result.tabId === undefined
        ? { ...result, tabId }
        : result;
    });
  }

  // dispatch runs one action; throws BridgeError on failure.
  async function dispatch(action) {
    switch (action.type) {
      case "get_tabs":
        return getTabs();
      case "open_tab":
        return openTab(action);
      case "close_tab":
        return closeTab(action);
      case "navigate":
      case "click":
      case "type":
      case "hover":
      case "press_key":
      case "scroll":
      case "screenshot":
      case "extract":
      case "evaluate":
      case "wait_for":
        return perTab(action);
      default:
        throw new BridgeError(ErrorCodes.INVALID_ACTION, `unknown action ${JSON.stringify(action.type)}`);
    }
  }

  return {
    dispatch,
    // handle is ws-client's handleRequest: {result} or {error}, never throws.
    async handle(action) {
      try {
        return { result: await dispatch(action) };
      } catch (e) {
        return { error: toWireError(e) };
      }
    },
    resolveTab,
  };
}
