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

// sleep resolves after ms, or rejects with signal's reason as soon as the
// signal aborts (a cancelled, timed-out or tab-closed request), so no poll
// outlives its request.
export function sleep(ms, timers = globalThis, signal) {
  if (signal && signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let off = () => {};
    const t = timers.setTimeout(() => {
      off();
      resolve();
    }, ms);
    off = onAbort(signal, () => {
      timers.clearTimeout(t);
      reject(signal.reason);
    });
  });
}

// onAbort runs fn once when signal aborts (at once if it has) and returns
// a function that stops listening. A missing signal never aborts.
export function onAbort(signal, fn) {
  if (!signal) return () => {};
  if (signal.aborted) {
    fn();
    return () => {};
  }
  signal.addEventListener("abort", fn, { once: true });
  return () => signal.removeEventListener("abort", fn);
}

// abortable settles with p, or rejects with signal's reason the moment the
// signal aborts. p goes on (it cannot be stopped) but nobody waits for it.
export function abortable(p, signal) {
  if (!signal) return p;
  let off = () => {};
  const stop = new Promise((_, reject) => {
    off = onAbort(signal, () => reject(signal.reason));
  });
  return Promise.race([p, stop]).finally(off);
}

// withDeadline settles with p, or rejects with a timeout BridgeError after
// ms, or with signal's reason the moment it aborts (as abortable). It cannot
// cancel p; callers that can abort the work do so on their own. Its timer
// goes the moment the wait ends, whichever way: a wait the caller stopped
// waiting for must not keep a timer armed for the rest of its ms.
export function withDeadline(p, ms, what, timers = globalThis, signal = undefined) {
  let timer;
  const expiry = new Promise((_, reject) => {
    timer = timers.setTimeout(
      () => reject(new BridgeError(ErrorCodes.TIMEOUT, `${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  return abortable(Promise.race([p, expiry]), signal).finally(() => timers.clearTimeout(timer));
}

export function notFound(message) {
  return new BridgeError(ErrorCodes.ELEMENT_NOT_FOUND, message);
}

export function invalid(message) {
  return new BridgeError(ErrorCodes.INVALID_ACTION, message);
}

// sessionSend is ctx.send on the debugger session a node lives in: the
// tab's own (session null) or an out-of-process iframe's.
export function sessionSend(ctx, session) {
  return session ? (method, params) => ctx.sendTo(session, method, params) : ctx.send;
}
