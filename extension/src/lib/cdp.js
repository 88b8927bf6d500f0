// Small helpers shared by the debugger controller and the action modules.

import { BridgeError, ErrorCodes } from "./errors.js";

// CdpError is a protocol-level failure of one CDP command (the command ran
// and Chromium refused it). Actions translate the ones they expect into
// protocol codes; the rest reach the dispatcher as internal_error.
export class CdpError extends Error {
  constructor(method, message) {
    super(`${method}: ${message}`);
    this.name = "CdpError";
    this.method = method;
    this.cdpMessage = message;
  }
}

// chrome.debugger rejects with the CDP error serialised as JSON in the
// message ('{"code":-32000,"message":"No node with given id found"}').
export function cdpMessage(err) {
  const raw = err && err.message !== undefined ? String(err.message) : String(err);
  try {
    const parsed = JSON.parse(raw);
    if (parsed && typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: a chrome.debugger-level message such as "Debugger is not attached"
  }
  return raw;
}

export function sleep(ms, timers = globalThis) {
  return new Promise((resolve) => timers.setTimeout(resolve, ms));
}

// withDeadline settles with p, or rejects with a timeout BridgeError after
// ms. It cannot cancel p; callers that can abort the work do so on their own.
export function withDeadline(p, ms, what, timers = globalThis) {
  let timer;
  const expiry = new Promise((_, reject) => {
    timer = timers.setTimeout(
      () => reject(new BridgeError(ErrorCodes.TIMEOUT, `${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([p, expiry]).finally(() => timers.clearTimeout(timer));
}

export function notFound(message) {
  return new BridgeError(ErrorCodes.ELEMENT_NOT_FOUND, message);
}

export function invalid(message) {
  return new BridgeError(ErrorCodes.INVALID_ACTION, message);
}
