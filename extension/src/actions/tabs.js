// get_tabs, open_tab, close_tab: the actions of scope "browser" (ACTION_SPECS),
// run by the dispatcher through the tabs API, not the debugger. Each
// executor gets (env, action); env is built by action-dispatcher.js:
// {api, sessions, windows, budget, timers, blocked, tabClosed, prepare,
// replenish, navigate, hasOpenDialog, closeTab}.
// None of them waits behind a tab's queue: close_tab in particular must
// work while an action on that tab hangs.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { sleep } from "../core/cdp.js";
import { hostOf } from "../core/domains.js";
import { REASONS } from "../generated/protocol.js";

// LOAD_POLL_MS are the pauses between reads of a loading tab: short at
// first, as a local page loads in a few tens of ms (a fixed 100 ms made
// every open_tab take at least that), then every 100 ms.
const LOAD_POLL_MS = [10, 10, 20, 20, 50, 100];

// isListable says whether get_tabs shows a URL: http(s) and about:blank only,
// so chrome://, devtools and extension pages never reach the agent.
export function isListable(url) {
  if (url === "about:blank") return true;
  return /^https?:\/\//i.test(url || "");
}

export const urlOf = (tab) => tab.url || tab.pendingUrl || "";

// waitForLoad polls the tab until it reports complete or the request's
// budget is nearly spent (budget.inner()), and returns the tab either way:
// open_tab answers with a tab that is still loading rather than failing.
// A tab still showing about:blank has not started loading url yet (the
// BUA window's spare tab, just handed out), however complete it says it is.
// A page that opened a dialog while it loads (an alert in its first
// script) does not finish loading until the dialog is answered: the tab is
// answered then, and the dialog left for the next action to meet.
async function waitForLoad(env, tabId, url) {
  const stopAt = Date.now() + env.budget.inner();
  for (let i = 0; ; i++) {
    env.budget.check();
    let tab;
    try {
      tab = await env.api.tabs.get(tabId);
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} closed while loading`);
    }
    const left = stopAt - Date.now();
    const started = url === "about:blank" || tab.url !== "about:blank";
    if ((tab.status === "complete" && started) || left <= 0) return tab;
    if (env.hasOpenDialog && env.hasOpenDialog(tabId)) return tab;
    await sleep(Math.min(LOAD_POLL_MS[Math.min(i, LOAD_POLL_MS.length - 1)], left), env.timers, env.budget.signal);
  }
}

async function getTabs(env) {
  const tabs = await env.api.tabs.query({});
  const out = [];
  for (const t of tabs) {
    const url = urlOf(t);
    if (!isListable(url) || env.windows.isSpare(t.id)) continue;
    const domain = hostOf(url);
    if (domain && env.sessions.isDomainBlocked(domain)) continue;
    // windowId is a pure addition: callers can tell BUA tabs from the person's.
    out.push({ tabId: t.id, url, title: t.title || "", domain, windowId: t.windowId });
  }
  return out;
}

// openTab opens action.url in a new tab. Without waitUntil it polls the
// tab until it reports complete (waitForLoad). With waitUntil the tab opens
// blank and the page is loaded into it as navigate loads it, since only
// the debugger sees the page's commit, DOMContentLoaded and network idle:
// the tabs API knows loading and complete. As without it, open_tab answers
// with the tab whatever became of its page: one that could not be loaded
// (a net:: error page), that is still loading when the budget ends, or
// that opened a dialog is the next action's business.
async function openTab(env, action) {
  const domain = hostOf(action.url);
  env.blocked(domain, action.type);
  const waits = action.waitUntil !== undefined && env.navigate;
  // The tab opens blank and the debugger attaches before the page loads:
  // a dialog its first script opens (an alert on load) is then seen as it
  // opens. A tab attached after that dialog never hears of it, and the
  // page, held by the dialog, never finishes loading (docs/extension.md#controller-interface).
  // A focus: true tab, in the person's window, still loads at once: one
  // loaded after it opened blank does not get the window's focus
  // (headless Chromium), and the person sees its dialog anyway.
  const focus = action.focus === true;
  const tab = await env.windows.openTab(focus && !waits ? action.url : "about:blank", { focus, window: action.window });
  env.sessions.ensureSession(tab.id, domain);
  env.sessions.touch(tab.id);
  if (!waits && focus) {
    if (env.prepare) env.prepare(tab.id);
    await waitForLoad(env, tab.id, action.url);
  } else if (!waits) {
    // A spare (managed browsers) was attached ahead of need: then this
    // resolves at once.
    if (env.prepare) await env.prepare(tab.id);
    await env.api.tabs.update(tab.id, { url: action.url });
    await waitForLoad(env, tab.id, action.url);
  } else {
    try {
      await env.navigate({ type: "navigate", url: action.url, waitUntil: action.waitUntil, tabId: tab.id });
    } catch (e) {
      const page = e instanceof BridgeError && (e.code === ErrorCodes.TIMEOUT || e.reason === REASONS.DIALOG_OPENED || /^net::/.test(e.reason || ""));
      if (!page) throw e;
    }
  }
  // The next open_tab's spare, made ready while this tab's caller works
  // (windows.replenish: managed browsers only).
  if (!focus && !action.window && env.replenish) env.replenish();
  return { tabId: tab.id, windowId: tab.windowId, domain };
}

// closeTab closes the tab at once, without queueing behind its actions,
// and ends every action pending on it with tab_not_found (the dispatcher's
// tabClosed; tabs.onRemoved does the same for tabs closed any other way).
// tabs.remove itself refuses a tab that is gone, so no read comes first.
// It waits on a beforeunload dialog: env.closeTab (the controller's)
// answers one under the action's dialogs policy, or fails at once without.
async function closeTab(env, action) {
  const remove = async () => {
    try {
      await env.api.tabs.remove(action.tabId);
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${action.tabId} is closed or never existed`);
    }
  };
  const out = { ok: true, tabId: action.tabId };
  const closed = env.closeTab ? await env.closeTab(action, async () => (await remove(), out)) : (await remove(), out);
  env.tabClosed(action.tabId);
  return closed;
}

export const executors = Object.freeze({ get_tabs: getTabs, open_tab: openTab, close_tab: closeTab });
