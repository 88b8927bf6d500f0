// The toolbar badge (chrome.action), worked out from the UiState
// (services/ui-service.js). Pure: the local service applies it.
//
//   a handoff waits      "?"  amber   (bua needs the person: it wins)
//   a recording runs     "REC" red    (bua record is taking the person's input)
//   rejected / replaced  "!"  red     (needs the person to fix the pairing)
//   connecting / down    "…"  grey    (the worker is retrying by itself)
//   connected            the number of live sessions, green ("" when none)

export const BADGE_COLORS = Object.freeze({
  handoff: "#b54708",
  recording: "#d92d20",
  error: "#b42318",
  waiting: "#6b7280",
  live: "#1a7f37",
});

// badgeFor returns {text, color, title} for state.
export function badgeFor(state) {
  const conn = (state && state.connection) || { state: "disconnected" };
  const sessions = (state && state.sessions) || [];
  const handoffs = (state && state.handoffs) || [];
  const recordings = (state && state.recordings) || [];
  const n = sessions.length;
  const live = n === 1 ? "1 live session" : `${n} live sessions`;
  if (handoffs.length) {
    const h = handoffs[0];
    return { text: "?", color: BADGE_COLORS.handoff, title: `bua needs you: ${h.obstacleType} on ${h.domain}` };
  }
  if (recordings.length) {
    const r = recordings[0];
    const what = r.title ? `"${r.title}"` : `tab ${r.lastTab}`;
    const more = recordings.length > 1 ? ` (and ${recordings.length - 1} more)` : "";
    return { text: "REC", color: BADGE_COLORS.recording, title: `bua is recording what you do on ${what}${more}: open this popup to stop` };
  }
  switch (conn.state) {
    case "connected":
      return { text: n ? String(Math.min(n, 999)) : "", color: BADGE_COLORS.live, title: `bua bridge: connected, ${live}` };
    case "rejected":
    case "replaced":
      return { text: "!", color: BADGE_COLORS.error, title: `bua bridge: ${conn.state}${conn.reason ? ` (${conn.reason})` : ""}` };
    default:
      return { text: "…", color: BADGE_COLORS.waiting, title: `bua bridge: ${conn.state}` };
  }
}
