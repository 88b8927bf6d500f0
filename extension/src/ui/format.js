// Small pure formatters shared by the popup and the options page.

const pad = (n) => String(n).padStart(2, "0");

// clockTime is epoch ms as local "HH:MM:SS".
export function clockTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// dateTime is epoch ms as local "YYYY-MM-DD HH:MM:SS".
export function dateTime(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clockTime(ms)}`;
}

// connectionLabel is a connection state in words.
export function connectionLabel(state) {
  switch (state) {
    case "connected":
      return "connected";
    case "connecting":
      return "connecting…";
    case "rejected":
      return "rejected";
    case "replaced":
      return "replaced by another browser";
    case "disconnected":
      return "not connected";
    default:
      return String(state || "unknown");
  }
}

// REASON_LABELS say each session end reason in words.
export const REASON_LABELS = Object.freeze({
  tab_closed: "tab closed",
  debugger_detached: "debugger cancelled",
  user_stopped: "stopped",
  global_stop: "Stop all",
  domain_blocked: "domain blocked",
  system_idle: "computer idle",
  screen_locked: "screen locked",
});

// errorText is what a page shows for a failed service call.
export function errorText(e) {
  return e && e.message ? e.message : String(e);
}
