// The worker's one WebSocket to the daemon (docs/protocol.md#handshake,
// docs/extension.md §ws-client rules): hello, then nothing until
// ack; reject and 4001/4002/4003 are terminal until the pairing changes;
// anything else reconnects with jittered backoff (4029, "rate-limited, try
// later", included: the daemon sends it without a reject when wrong hellos
// have spent its budget, and the right token gets in on the next try);
// heartbeat every 20 s. Every request runs under its own AbortSignal:
// cancel {id} from the daemon, or the connection ending, aborts it, and a
// request that was aborted sends no response (docs/architecture.md#cancellation).

import { ACTIONS, CLOSE_CODES, ERROR_CODES, FEATURES, PROTOCOL_VERSION } from "./generated/protocol.js";
import { CancelledError } from "./lib/errors.js";
import { abortable } from "./lib/cdp.js";

// FEATURES are the schema's x-features: this build implements all of them,
// cancel included.
export { FEATURES };

export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 5000;
export const HEARTBEAT_MS = 20000;
// Terminal close codes (the schema's x-closeCodes): reconnecting would only
// be refused or steal the pairing back. rateLimited (4029), handshake (1008)
// and unsupportedData (1003) are not among them: they reconnect.
export const TERMINAL_CLOSE_CODES = new Set([CLOSE_CODES.versionMismatch, CLOSE_CODES.badToken, CLOSE_CODES.replaced]);
const MAX_QUEUED_EVENTS = 200;
const DEDUPE_SIZE = 200;
const WS_OPEN = 1;

// backoffDelay is attempt's reconnect delay: 500 ms doubling to 5 s, then
// jittered to 75-100 % so a daemon restart is not hit by every browser at once.
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.75 + 0.25 * random()));
}

// createWsClient wires a client. deps:
//   getConfig: async () => {url, token}
//   WebSocketImpl: the WebSocket constructor
//   parseMessage: text -> {ok, value, message} (validator.js)
//   handleRequest: async (action, {id, deadlineMs, signal}) -> {result} | {error:{code,message}} | null
//     (deadlineMs: the request envelope's, or undefined; see lib/budget.js;
//     signal aborts on cancel {id}; null: cancelled, send nothing)
//   setState: async (state) => void  (stored for the options page)
//   clientVersion, timers {setTimeout, clearTimeout, setInterval, clearInterval}, random, log
export function createWsClient(deps) {
  const timers = deps.timers || globalThis;
  const random = deps.random || Math.random;
  const log = deps.log || (() => {});
  let ws = null;
  let phase = "idle"; // idle | connecting | hello_sent | ready | closed
  let terminal = null; // {state, reason, closeCode} once refused
  let attempt = 0;
  let reconnectTimer = null;
  let heartbeatTimer = null;
  let rejectedWith = null;
  let started = false;
  const queue = []; // events emitted before ack, flushed after it
  const done = new Map(); // request id -> response, for daemon replays
  const inflight = new Map(); // request id -> AbortController

  function publish(state) {
    Promise.resolve(deps.setState?.({ ...state, at: Date.now() })).catch(() => {});
  }

  function rawSend(obj) {
    if (!ws || ws.readyState !== WS_OPEN) return false;
    ws.send(JSON.stringify(obj));
    return true;
  }

  async function connect() {
    if (terminal || phase === "connecting" || phase === "hello_sent" || phase === "ready") return;
    clearTimer();
    phase = "connecting";
    let cfg;
    try {
      cfg = await deps.getConfig();
    } catch (e) {
      log("pairing config unreadable", e);
      phase = "closed";
      scheduleReconnect();
      return;
    }
    publish({ state: "connecting", url: cfg.url });
    let sock;
    try {
      sock = new deps.WebSocketImpl(cfg.url);
    } catch (e) {
      // A malformed URL throws synchronously; retrying will not fix it.
      phase = "closed";
      terminal = { state: "error", reason: `bad daemon URL ${cfg.url}: ${e.message}`, closeCode: 0 };
      publish(terminal);
      return;
    }
    ws = sock;
    rejectedWith = null;
    sock.onopen = () => {
      if (ws !== sock) return;
      phase = "hello_sent";
      rawSend({
        type: "hello",
        protocolVersion: PROTOCOL_VERSION,
        clientVersion: deps.clientVersion,
        pairingToken: cfg.token || "",
        caps: { actions: ACTIONS, features: FEATURES },
      });
    };
    sock.onmessage = (ev) => {
      if (ws === sock) onMessage(typeof ev.data === "string" ? ev.data : String(ev.data));
    };
    sock.onerror = () => {}; // onclose follows and carries the code
    sock.onclose = (ev) => {
      if (ws === sock) onClose(ev.code, ev.reason || "");
    };
  }

  function onMessage(text) {
    const parsed = deps.parseMessage(text);
    if (!parsed.ok) {
      const v = parsed.value;
      if (phase === "ready" && v && v.type === "request" && typeof v.id === "string" && v.id.length <= 64) {
        rawSend({ type: "response", id: v.id, error: { code: ERROR_CODES.INVALID_ACTION, message: parsed.message } });
      } else {
        log("dropped invalid message", parsed.message);
      }
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case "ack":
        if (phase !== "hello_sent") return log("unexpected ack");
        phase = "ready";
        attempt = 0;
        publish({ state: "connected", serverVersion: msg.serverVersion });
        startHeartbeat();
        while (queue.length) rawSend({ type: "event", event: queue.shift() });
        return;
      case "reject":
        rejectedWith = msg.error;
        terminal = { state: "rejected", reason: msg.error.message, closeCode: 0, code: msg.error.code };
        publish(terminal);
        return;
      case "request":
        if (phase !== "ready") return log("request before ack dropped", msg.id);
        return onRequest(msg);
      case "cancel": {
        // An id already answered, or never seen, has nothing to stop.
        const ac = inflight.get(msg.id);
        if (ac) ac.abort(new CancelledError(`request ${msg.id} cancelled by the daemon`));
        return;
      }
      default: // hello, response, event never come from the daemon
        log("unexpected message from daemon", msg.type);
    }
  }

  async function onRequest(msg) {
    // The daemon may resend after a reconnect; never run an action twice.
    if (done.has(msg.id)) return rawSend(done.get(msg.id));
    if (inflight.has(msg.id)) return;
    const ac = new AbortController();
    inflight.set(msg.id, ac);
    let out;
    try {
      // abortable: the request is over for us the moment it is cancelled,
      // even if a handler were slow to notice.
      out = await abortable(deps.handleRequest(msg.action, { id: msg.id, deadlineMs: msg.deadlineMs, signal: ac.signal }), ac.signal);
    } catch (e) {
      out = ac.signal.aborted ? null : { error: { code: ERROR_CODES.INTERNAL_ERROR, message: String(e && e.message ? e.message : e) } };
    }
    inflight.delete(msg.id);
    if (ac.signal.aborted || !out) {
      log("request cancelled: no response", msg.id);
      return;
    }
    const resp = out.error ? { type: "response", id: msg.id, error: out.error } : { type: "response", id: msg.id, result: out.result };
    done.set(msg.id, resp);
    if (done.size > DEDUPE_SIZE) done.delete(done.keys().next().value);
    if (phase === "ready") rawSend(resp);
  }

  // abortAll stops every request in flight: the daemon that sent them has
  // gone (it fails their callers itself), so nobody waits for them.
  function abortAll(why) {
    for (const ac of inflight.values()) ac.abort(new CancelledError(why));
  }

  function onClose(code, reason) {
    stopHeartbeat();
    abortAll(`the daemon connection closed (${code})`);
    ws = null;
    phase = "closed";
    if (terminal && terminal.state === "rejected") {
      terminal = { ...terminal, closeCode: code };
      publish(terminal);
      return;
    }
    if (TERMINAL_CLOSE_CODES.has(code)) {
      const replaced = code === CLOSE_CODES.replaced;
      const why = replaced ? "replaced by a newer connection on the same pairing" : reason || `closed with ${code}`;
      terminal = { state: replaced ? "replaced" : "rejected", reason: why, closeCode: code };
      publish(terminal);
      return;
    }
    publish({ state: "disconnected", reason: reason || `closed with ${code}`, closeCode: code });
    scheduleReconnect();
  }

  function scheduleReconnect() {
    if (terminal || !started || reconnectTimer) return;
    const delay = backoffDelay(attempt++, random);
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, delay);
  }

  function clearTimer() {
    if (reconnectTimer) timers.clearTimeout(reconnectTimer);
    reconnectTimer = null;
  }

  function startHeartbeat() {
    stopHeartbeat();
    heartbeatTimer = timers.setInterval(() => rawSend({ type: "event", event: { type: "heartbeat" } }), HEARTBEAT_MS);
  }

  function stopHeartbeat() {
    if (heartbeatTimer) timers.clearInterval(heartbeatTimer);
    heartbeatTimer = null;
  }

  return {
    // start connects now; later calls are no-ops while connected.
    start() {
      started = true;
      connect();
    },
    // ensureConnected is the alarm's wake-up: reconnect now unless refused.
    ensureConnected() {
      if (!started) return this.start();
      if (phase === "idle" || phase === "closed") {
        clearTimer();
        connect();
      }
    },
    // pairingChanged lifts a terminal state and reconnects with the new
    // pairing (the options page saved a URL, token or claimed a code).
    pairingChanged() {
      terminal = null;
      attempt = 0;
      clearTimer();
      const old = ws;
      ws = null;
      phase = "closed";
      stopHeartbeat();
      abortAll("the pairing changed");
      if (old) try { old.close(1000, "pairing changed"); } catch { /* already closed */ }
      started = true;
      connect();
    },
    // sendEvent sends an event now, or after the next ack.
    sendEvent(event) {
      if (phase === "ready" && rawSend({ type: "event", event })) return;
      queue.push(event);
      if (queue.length > MAX_QUEUED_EVENTS) queue.shift();
    },
    stop() {
      started = false;
      clearTimer();
      stopHeartbeat();
      abortAll("the client stopped");
      if (ws) try { ws.close(1000, "stopped"); } catch { /* ignore */ }
      ws = null;
      phase = "idle";
    },
    get phase() { return phase; },
    get terminal() { return terminal; },
    get rejectedWith() { return rejectedWith; },
  };
}
