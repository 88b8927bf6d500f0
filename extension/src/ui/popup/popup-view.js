// The popup's view model: UiState (services/ui-service.js) in,
// what the popup shows out. Pure, so node tests check it without a DOM.

import { clockTime, connectionLabel } from "../format.js";

// popupView returns {connection: {state, label, reason, fix}, sessions:
// [{tabId, domain, title, actionCount, actions, started, stopLabel}],
// empty, needsYou: [{tabId, text, message, showLabel}], recordings:
// [{tabId, text, steps, stopLabel}], stopAllDisabled}.
export function popupView(state) {
  const c = (state && state.connection) || { state: "connecting" };
  const sessions = ((state && state.sessions) || []).map((s) => ({
    tabId: s.tabId,
    domain: s.domain,
    title: s.title || s.domain || `tab ${s.tabId}`,
    actionCount: s.actionCount,
    actions: s.actionCount === 1 ? "1 action" : `${s.actionCount} actions`,
    started: clockTime(s.startedAt),
    stopLabel: `Stop bua's session on ${s.domain || `tab ${s.tabId}`}`,
  }));
  const needsYou = ((state && state.handoffs) || []).map((h) => ({
    tabId: h.tabId,
    text: `bua needs you: ${h.obstacleType} on ${h.domain}`,
    message: h.message || "",
    showLabel: `Show the ${h.domain} tab`,
  }));
  const recordings = ((state && state.recordings) || []).map((r) => ({
    tabId: r.tabId,
    text: r.title || `tab ${r.lastTab}`,
    steps: `${r.steps === 1 ? "1 step" : `${r.steps} steps`} · since ${clockTime(r.startedAt)}`,
    stopLabel: `Stop recording and write the flow`,
  }));
  return {
    connection: { state: c.state, label: connectionLabel(c.state), reason: c.reason || "", fix: c.fix || "" },
    recordings,
    sessions,
    empty: sessions.length === 0,
    needsYou,
    stopAllDisabled: sessions.length === 0,
  };
}

// createPopupActions binds the popup's buttons to a UiService; each
// returns {ok, message} for the status line and never throws.
export function createPopupActions(service) {
  const run = async (fn, done) => {
    try {
      return { ok: true, message: done(await fn()) };
    } catch (e) {
      return { ok: false, message: e && e.message ? e.message : String(e) };
    }
  };
  return {
    stop: (tabId) => run(() => service.stopSession(tabId), () => `stopped the session on tab ${tabId}`),
    stopAll: () => run(() => service.stopAll(), (r) => (r.endedCount === 1 ? "stopped 1 session" : `stopped ${r.endedCount} sessions`)),
    show: (tabId) => run(() => service.focusTab(tabId), () => `tab ${tabId} is in front`),
    stopRecording: (tabId) => run(() => service.stopRecording(tabId), (r) => `stopped recording after ${r.steps === 1 ? "1 step" : `${r.steps} steps`}: bua record writes the flow`),
    assertUrl: (tabId) => run(() => service.assertPage({ tabId, what: "url" }), (r) => `added a check: the page is at ${r.url}`),
    assertTitle: (tabId) => run(() => service.assertPage({ tabId, what: "title" }), (r) => `added a check: the page's title is "${r.title}"`),
  };
}
