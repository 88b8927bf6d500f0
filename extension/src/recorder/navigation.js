// The recorder's navigations (recorder/recorder.js): chrome.webNavigation
// tells, for the main frame of each tab a recording follows, how the page
// changed: one the person typed in the address bar (navigate), a reload,
// back and forward, or the page's own doing after their last input
// (landed: the flow writer waits for that URL after the input); and which
// tab a click opened, which the recording then follows. Listened to only
// while a recording runs, so the person's other browsing costs nothing.

import { hostOf } from "../core/domains.js";
import { navStep } from "./steps.js";

// TITLE_WAIT_MS bounds the wait for a page's title after a navigation
// commits (the flow's name and its waits' comments read it).
const TITLE_WAIT_MS = 1000;
const EVENTS = ["onCommitted", "onHistoryStateUpdated", "onReferenceFragmentUpdated", "onCreatedNavigationTarget"];

export class NavWatch {
  // r is the recorder: {api, sessions, byTab, tabs, timers, follow(rec,
  // tabId, url)}.
  constructor(r) {
    this.r = r;
    this.off = null;
  }

  // listen starts listening (once).
  listen() {
    const wn = this.r.api.webNavigation;
    if (this.off || !wn) return;
    const fns = {
      onCommitted: (d) => this.navigated(d),
      onHistoryStateUpdated: (d) => this.navigated(d),
      onReferenceFragmentUpdated: (d) => this.navigated(d),
      onCreatedNavigationTarget: (d) => this.opened(d),
    };
    const added = EVENTS.filter((e) => wn[e] && typeof wn[e].addListener === "function");
    for (const e of added) wn[e].addListener(fns[e]);
    this.off = () => {
      for (const e of added) wn[e].removeListener(fns[e]);
    };
  }

  unlisten() {
    const off = this.off;
    this.off = null;
    if (off) off();
  }

  // navigated takes a main-frame navigation of a followed tab.
  navigated(d) {
    const rec = d && d.frameId === 0 ? this.r.byTab.get(d.tabId) : null;
    const t = rec && this.r.tabs.get(d.tabId);
    if (!t || rec.ended || !/^(https?:|about:blank)/i.test(d.url || "")) return;
    const before = rec.urls.get(d.tabId);
    rec.urls.set(d.tabId, d.url);
    const step = navStep(d, t.hist);
    if (step.landed && before === d.url) return; // nothing moved
    const { url, masked } = rec.mask(d.url);
    if (step.action && step.action.url !== undefined) step.action.url = url;
    const out = { tabId: d.tabId, url, ...step };
    if (masked) out.masked = true;
    rec.add(this.titled(out)).then(() => this.r.changed());
  }

  // titled resolves to step with the title of its tab's page once it has
  // loaded (or after TITLE_WAIT_MS).
  async titled(step) {
    const end = Date.now() + TITLE_WAIT_MS;
    for (;;) {
      let tab;
      try {
        tab = await this.r.api.tabs.get(step.tabId);
      } catch {
        return step;
      }
      if (tab.status === "complete" || Date.now() >= end) {
        if (tab.title) step.title = tab.title;
        return step;
      }
      await new Promise((resolve) => this.r.timers.setTimeout(resolve, 50));
    }
  }

  // opened takes a tab a followed tab opened (a target=_blank link,
  // window.open): a step that says so, which the flow writer turns into
  // newTabId on the last input there, and the recording follows the new
  // tab, with a session of its own, unless its domain is blocked.
  opened(d) {
    const rec = d ? this.r.byTab.get(d.sourceTabId) : null;
    if (!rec || rec.ended || !Number.isInteger(d.tabId) || this.r.byTab.has(d.tabId)) return;
    const domain = hostOf(d.url || "");
    if (domain && this.r.sessions.isDomainBlocked(domain)) return;
    rec.add({ tabId: d.sourceTabId, url: rec.mask(rec.urls.get(d.sourceTabId)).url, newTabId: d.tabId });
    this.r.sessions.ensureSession(d.tabId, domain);
    this.r.follow(rec, d.tabId, d.url || "", { early: true }).then(
      () => this.r.changed(),
      (e) => console.warn(`[bua] the recording cannot follow tab ${d.tabId}`, e),
    );
  }
}
