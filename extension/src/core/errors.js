// Protocol v4 error codes (docs/protocol.md#errors). The dispatcher maps any
// throw that is not a BridgeError to internal_error, so every deliberate
// failure must use one of these codes.

import { ERROR_CODES } from "../generated/protocol.js";

// ErrorCodes.X is the generated ERROR_CODES table (one entry per schema
// code), kept under this name so callers read ErrorCodes.TIMEOUT.
export const ErrorCodes = ERROR_CODES;

const known = new Set(Object.values(ErrorCodes));

export class BridgeError extends Error {
  // reason is optional: a machine-readable cause the code alone does not
  // give (e.g. "net::ERR_CONNECTION_REFUSED"), sent as error.reason.
  constructor(code, message, reason) {
    super(message);
    if (typeof reason === "string" && reason) this.reason = reason;
    this.name = "BridgeError";
    // An unknown code would fail the daemon's schema check and lose the
    // response entirely; degrade to internal_error instead.
    this.code = known.has(code) ? code : ErrorCodes.INTERNAL_ERROR;
  }
}

// CancelledError is why a request the daemon cancelled (cancel {id},
// docs/cancellation.md#cancellation) or whose connection ended stops: it is never sent, as
// a cancelled request gets no response.
export class CancelledError extends Error {
  constructor(message = "cancelled by the daemon") {
    super(message);
    this.name = "CancelledError";
  }
}

// toWireError turns anything thrown into the protocol's {code, message,
// reason?}.
export function toWireError(err) {
  if (err instanceof BridgeError) {
    const out = { code: err.code, message: err.message || err.code };
    if (err.reason) out.reason = err.reason;
    return out;
  }
  const message = err && err.message ? String(err.message) : String(err);
  return { code: ErrorCodes.INTERNAL_ERROR, message };
}

// withPageStack returns err, an error about a page script's exception,
// with the script's frames (from description, CDP's exception description:
// the message, then the frames) put before the worker's in err.stack, so
// an internal_error's trace event says where in the page script it
// failed: each script names itself bua-page-<name>.js, which the daemon
// maps to its module (docs/extension.md §Source maps).
export function withPageStack(err, description) {
  const frames = String(description || "").split("\n").slice(1);
  if (frames.length && typeof err.stack === "string") {
    const [head, ...rest] = err.stack.split("\n");
    err.stack = [head, ...frames, ...rest].join("\n");
  }
  return err;
}
