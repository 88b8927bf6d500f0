// get_tabs, open_tab, close_tab: the actions of scope "browser" (ACTION_SPECS),
// run by the dispatcher through the tabs API, not the debugger. Each
// executor gets (env, action); env is built by action-dispatcher.js:
// {api, sessions, windows, budget, timers, blocked, getTab, enqueue}.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { sleep } from "../lib/cdp.js";
import { hostOf } from "../session-manager.js";

const LOAD_POLL_MS = 100;

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
async function waitForLoad(env, tabId) {
  const stopAt = Date.now() + env.budget.inner();
  for (;;) {
    let tab;
    try {
      tab = await env.api.tabs.get(tabId);
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${tabId} closed while loading`);
    }
    const left = stopAt - Date.now();
    if (tab.status === "complete" || left <= 0) return tab;
    await sleep(Math.min(LOAD_POLL_MS, left), env.timers);
  }
}

async function getTabs(env) {
  const tabs = await env.api.tabs.query({});
  const out = [];
  for (const t of tabs) {
    const url = urlOf(t);
    if (!isListable(url)) continue;
    const domain = hostOf(url);
    if (domain && env.sessions.isDomainBlocked(domain)) continue;
    // windowId is a pure addition: callers can tell BUA tabs from the person's.
    out.push({ tabId: t.id, url, title: t.title || "", domain, windowId: t.windowId });
  }
  return out;
}

async function openTab(env, action) {
  const domain = hostOf(action.url);
  env.blocked(domain, action.type);
  const tab = await env.windows.openTab(action.url, { focus: action.focus === true });
  env.sessions.ensureSession(tab.id, domain);
  env.sessions.touch(tab.id);
  await waitForLoad(env, tab.id);
  return { tabId: tab.id, windowId: tab.windowId, domain };
}

async function closeTab(env, action) {
  await env.getTab(action.tabId);
  return env.enqueue(action.tabId, async () => {
    try {
      await env.api.tabs.remove(action.tabId);
    } catch {
      throw new BridgeError(ErrorCodes.TAB_NOT_FOUND, `tab ${action.tabId} is closed or never existed`);
    }
    return { ok: true, tabId: action.tabId };
  });
}

export const executors = Object.freeze({ get_tabs: getTabs, open_tab: openTab, close_tab: closeTab });
