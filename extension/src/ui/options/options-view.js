// The options page's view model and actions: pure over UiState and a
// UiService (services/ui-service.js), so node tests check them
// without a DOM or chrome.*.

import { connectionLabel, dateTime, errorText, REASON_LABELS } from "../format.js";
import { validateDomain } from "../../core/domains.js";

export const RESET_QUESTION =
  "Reset bua bridge? This forgets the pairing (daemon URL and token), empties the blocklist and deletes the session history. Live sessions are not stopped.";

// connectionText is {state, label, reason, fix} for the #state, #reason
// and #fix lines: the reason with its close code, then the daemon URL.
export function connectionText(c) {
  const conn = c || { state: "connecting" };
  const why = [conn.reason, conn.closeCode ? `(close ${conn.closeCode})` : ""].filter(Boolean).join(" ");
  const reason = [why, conn.url ? `daemon ${conn.url}` : ""].filter(Boolean).join(" · ");
  return { state: conn.state, label: connectionLabel(conn.state), reason, fix: conn.fix || "" };
}

// historyRows filters the audit log by text (every word must appear in
// the domain, the reason or the reason's words, case-insensitive) and
// returns the matching rows newest first:
// [{tabId, domain, reason, reasonLabel, started, ended, actionCount}].
export function historyRows(history, filter = "") {
  const words = String(filter).toLowerCase().split(/\s+/).filter(Boolean);
  const rows = [];
  for (const h of history || []) {
    const reasonLabel = REASON_LABELS[h.reason] || h.reason;
    const hay = `${h.domain} ${h.reason} ${reasonLabel}`.toLowerCase();
    if (!words.every((w) => hay.includes(w))) continue;
    rows.push({
      tabId: h.tabId,
      domain: h.domain,
      reason: h.reason,
      reasonLabel,
      started: dateTime(h.startedAt),
      ended: dateTime(h.endedAt),
      actionCount: h.actionCount,
    });
  }
  return rows.reverse();
}

// createOptionsActions binds the page's controls to a UiService.
// Each action returns {ok, message, ...} for the status line and never
// throws; confirm(question) -> boolean asks the person (window.confirm).
export function createOptionsActions(service, { confirm }) {
  const fail = (e) => ({ ok: false, message: errorText(e) });
  return {
    async save(url, token) {
      try {
        await service.saveConfig({ url, token });
        return { ok: true, message: "saved; connecting…" };
      } catch (e) {
        return fail(e);
      }
    },
    async claim(url, code) {
      try {
        const r = await service.claimCode({ url, code });
        return { ok: true, message: `paired with ${r.url}; connecting…` };
      } catch (e) {
        return fail(e);
      }
    },
    async test() {
      try {
        const c = await service.testConnection();
        const t = connectionText(c);
        return { ok: c.state === "connected", message: `test: ${t.label}${c.reason ? ` — ${c.reason}` : ""}${c.fix ? `. ${c.fix}` : ""}` };
      } catch (e) {
        return fail(e);
      }
    },
    async addBlocked(text) {
      const v = validateDomain(text); // say it before a round trip
      if (!v.ok) return { ok: false, message: v.message };
      try {
        const r = await service.addBlocked(v.domain);
        const ended = r.endedCount ? `; ended ${r.endedCount} session${r.endedCount === 1 ? "" : "s"} on it` : "";
        return { ok: true, message: `blocked ${v.domain} and its subdomains${ended}`, blocklist: r.blocklist };
      } catch (e) {
        return fail(e);
      }
    },
    async removeBlocked(domain) {
      try {
        const r = await service.removeBlocked(domain);
        return { ok: true, message: `unblocked ${domain}`, blocklist: r.blocklist };
      } catch (e) {
        return fail(e);
      }
    },
    async reset() {
      if (!confirm(RESET_QUESTION)) return { ok: true, message: "reset cancelled: nothing changed" };
      try {
        await service.reset();
        return { ok: true, message: "reset: pairing, blocklist and history cleared" };
      } catch (e) {
        return fail(e);
      }
    },
  };
}
