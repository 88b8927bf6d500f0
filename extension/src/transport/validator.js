// Message validation in the worker. The checks are the protocol schema's,
// generated as code by protogen (generated/validate.js): MV3 forbids eval
// and new Function, so no schema-compiling validator can run here. The
// daemon's validators (pkg/protocol) are generated from the same reading of
// the schema, so both refuse a message for the same reason in the same
// words (testdata/protocol/messages.json).
import { validateMessageValue } from "../generated/validate.js";

// validateMessage checks one decoded protocol message against the schema.
export function validateMessage(obj) {
  const e = validateMessageValue(obj);
  return e ? { ok: false, message: `${e.path}: ${e.reason}` } : { ok: true };
}

// parseMessage parses raw WebSocket text and validates it; malformed JSON is
// invalid like any other schema failure.
export function parseMessage(text) {
  let obj;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `message is not JSON: ${e.message}` };
  }
  const r = validateMessage(obj);
  return r.ok ? { ok: true, value: obj } : { ok: false, message: r.message, value: obj };
}
