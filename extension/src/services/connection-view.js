// The connection as the pages show it (services/ui-service.js's
// ConnectionState): ws-client's published state with the fix a person can
// apply. Pure.

import { CONNECTION_STATES } from "./ui-service.js";
import { CLOSE_CODES } from "../generated/protocol.js";

// connectionView turns ws-client's published state ({state, reason,
// closeCode, code, url, …}) into the contract's ConnectionState, with the
// fix a person can apply. ws-client's "error" (a daemon URL that cannot
// be dialled) is terminal like a reject, so it shows as rejected.
export function connectionView(raw, pairing) {
  const r = raw || {};
  let state = r.state === "error" ? "rejected" : r.state;
  if (!CONNECTION_STATES.includes(state)) state = r.state === "idle" || r.state === undefined ? "connecting" : "disconnected";
  const kind = (pairing && pairing.kind) || "default";
  const out = { state, url: r.url || (pairing && pairing.url) || "", kind };
  if (r.reason) out.reason = String(r.reason);
  if (Number.isInteger(r.closeCode) && r.closeCode > 0) out.closeCode = r.closeCode;
  const fix = fixFor(r, state, kind);
  if (fix) out.fix = fix;
  return out;
}

function fixFor(r, state, kind) {
  const managed = kind === "managed";
  switch (state) {
    case "rejected":
      if (r.state === "error") return "Fix the daemon URL on the options page: it looks like ws://127.0.0.1:48123/ws/browser.";
      if (r.closeCode === CLOSE_CODES.versionMismatch) {
        return "This extension and the bua daemon speak different protocol versions: run `bua extension path` and reload the extension from that folder in chrome://extensions.";
      }
      if (managed) return "Restart the managed browser: `bua browser stop`, then `bua browser start`.";
      return "Pair again: run `bua pair --code` and type the code on the options page (or paste the token `bua pair` prints), then Save.";
    case "replaced":
      return managed
        ? "Another browser took this pairing. Restart the managed browser: `bua browser stop`, then `bua browser start`."
        : "Another browser took this pairing. To use this one again, press Test connection on the options page.";
    case "disconnected":
      return "Start the daemon with `bua serve` (the extension retries every few seconds).";
    default:
      return "";
  }
}
