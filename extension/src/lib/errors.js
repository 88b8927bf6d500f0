// Protocol v4 error codes (shared/spec 000 §Errors). The dispatcher maps any
// throw that is not a BridgeError to internal_error, so every deliberate
// failure must use one of these codes.

export const ErrorCodes = Object.freeze({
  DOMAIN_BLOCKED: "domain_blocked",
  SESSION_NOT_FOUND: "session_not_found",
  TAB_NOT_FOUND: "tab_not_found",
  ELEMENT_NOT_FOUND: "element_not_found",
  ELEMENT_STALE: "element_stale",
  TIMEOUT: "timeout",
  DEBUGGER_ATTACH_FAILED: "debugger_attach_failed",
  INVALID_ACTION: "invalid_action",
  INTERNAL_ERROR: "internal_error",
});

const known = new Set(Object.values(ErrorCodes));

export class BridgeError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "BridgeError";
    // An unknown code would fail the daemon's schema check and lose the
    // response entirely; degrade to internal_error instead.
    this.code = known.has(code) ? code : ErrorCodes.INTERNAL_ERROR;
  }
}

// toWireError turns anything thrown into the protocol's {code, message}.
export function toWireError(err) {
  if (err instanceof BridgeError) return { code: err.code, message: err.message || err.code };
  const message = err && err.message ? String(err.message) : String(err);
  return { code: ErrorCodes.INTERNAL_ERROR, message };
}
