// The worker's one WebSocket to the daemon (docs/protocol.md#handshake,
// docs/extension.md §ws-client rules): hello, then nothing until
// ack; reject and 4001/4002/4003 are terminal until the pairing changes;
// anything else reconnects with jittered backoff (4029, "rate-limited, try
// later", included: the daemon sends it without a reject when wrong hellos
// have spent its budget, and the right token gets in on the next try);
// heartbeat every 20 s. The requests it brings run in requests.js, under
// their own AbortSignals and recorded in the replay cache: a dropped
// connection aborts nothing, and a request the daemon re-sends after a
// reconnect is never run twice (the replay feature, docs/extension.md
// §Replay cache).

import { ACTIONS, CLOSE_CODES, ERROR_CODES, FEATURES, PROTOCOL_VERSION } from "../generated/protocol.js";
import { createReplayCache, memoryStorage } from "./replay-cache.js";
import { Requests } from "./requests.js";

// FEATURES are the schema's x-features: this build implements all of them,
// cancel and replay included (replay only while the cache has an instance).
export { FEATURES };

export const BACKOFF_MIN_MS = 500;
export const BACKOFF_MAX_MS = 5000;
export const HEARTBEAT_MS = 20000;
// Terminal close codes (the schema's x-closeCodes): reconnecting would only
// be refused or steal the pairing back. rateLimited (4029), handshake (1008)
// and unsupportedData (1003) are not among them: they reconnect.
export const TERMINAL_CLOSE_CODES = new Set([CLOSE_CODES.versionMismatch, CLOSE_CODES.badToken, CLOSE_CODES.replaced]);
const MAX_QUEUED_EVENTS = 200;
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
//     (deadlineMs: the request envelope's, or undefined; see core/budget.js;
//     signal aborts on cancel {id}; null: cancelled, send nothing)
//   cache: the replay cache (replay-cache.js; default: one in memory)
//   setState: async (state) => void  (stored for the options page)
//   clientVersion, timers {setTimeout, clearTimeout, setInterval, clearInterval}, random, log
export function createWsClient(deps) {
  return new WsClient(deps);
}

class WsClient {
  #deps;
  #timers;
  #random;
  #log;
  #cache;
  #requests;
  #ws = null;
  #phase = "idle"; // idle | connecting | hello_sent | ready | closed
  #terminal = null; // {state, reason, closeCode} once refused
  #attempt = 0;
  #reconnectTimer = null;
  #heartbeatTimer = null;
  #rejectedWith = null;
  #started = false;
  #queue = []; // events emitted before ack, flushed after it

  constructor(deps) {
    this.#deps = deps;
    this.#timers = deps.timers || globalThis;
    this.#random = deps.random || Math.random;
    this.#log = deps.log || (() => {});
    this.#cache = deps.cache || createReplayCache({ storage: memoryStorage() });
    this.#requests = new Requests({ cache: this.#cache, handleRequest: deps.handleRequest, log: this.#log });
  }

  // start connects now; later calls are no-ops while connected.
  start() {
    this.#started = true;
    this.#connect();
  }

  // ensureConnected is the alarm's wake-up: reconnect now unless refused.
  ensureConnected() {
    if (!this.#started) return this.start();
    if (this.#phase === "idle" || this.#phase === "closed") {
      this.#clearTimer();
      this.#connect();
    }
  }

  // pairingChanged lifts a terminal state and reconnects with the new
  // pairing (the options page saved a URL, token or claimed a code).
  pairingChanged() {
    this.#terminal = null;
    this.#attempt = 0;
    this.#clearTimer();
    const old = this.#ws;
    this.#ws = null;
    this.#phase = "closed";
    this.#stopHeartbeat();
    this.#requests.abortAll("the pairing changed");
    if (old) try { old.close(1000, "pairing changed"); } catch { /* already closed */ }
    this.#started = true;
    this.#connect();
  }

  // sendEvent sends an event now, or after the next ack.
  sendEvent(event) {
    if (this.#phase === "ready" && this.#rawSend({ type: "event", event })) return;
    this.#queue.push(event);
    if (this.#queue.length > MAX_QUEUED_EVENTS) this.#queue.shift();
  }

  stop() {
    this.#started = false;
    this.#clearTimer();
    this.#stopHeartbeat();
    this.#requests.abortAll("the client stopped");
    if (this.#ws) try { this.#ws.close(1000, "stopped"); } catch { /* ignore */ }
    this.#ws = null;
    this.#phase = "idle";
  }

  get phase() { return this.#phase; }
  get terminal() { return this.#terminal; }
  get rejectedWith() { return this.#rejectedWith; }

  #publish(state) {
    Promise.resolve(this.#deps.setState?.({ ...state, at: Date.now() })).catch(() => {});
  }

  #rawSend(obj) {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WS_OPEN) return false;
    ws.send(JSON.stringify(obj));
    return true;
  }

  // sendNow sends a response message (an object, or its JSON text) if the
  // connection is up; else the daemon asks again after the reconnect.
  #sendNow(resp) {
    const ws = this.#ws;
    if (this.#phase !== "ready" || !ws || ws.readyState !== WS_OPEN) return;
    ws.send(typeof resp === "string" ? resp : JSON.stringify(resp));
  }

  async #connect() {
    const phase = this.#phase;
    if (this.#terminal || phase === "connecting" || phase === "hello_sent" || phase === "ready") return;
    this.#clearTimer();
    this.#phase = "connecting";
    let cfg;
    try {
      cfg = await this.#deps.getConfig();
    } catch (e) {
      this.#log("pairing config unreadable", e);
      this.#phase = "closed";
      this.#scheduleReconnect();
      return;
    }
    const replay = await this.#requests.cacheReady; // resolved after the worker's first moments
    this.#publish({ state: "connecting", url: cfg.url });
    let sock;
    try {
      sock = new this.#deps.WebSocketImpl(cfg.url);
    } catch (e) {
      // A malformed URL throws synchronously; retrying will not fix it.
      this.#phase = "closed";
      this.#terminal = { state: "error", reason: `bad daemon URL ${cfg.url}: ${e.message}`, closeCode: 0 };
      this.#publish(this.#terminal);
      return;
    }
    this.#ws = sock;
    this.#rejectedWith = null;
    this.#listen(sock, cfg, replay);
  }

  #listen(sock, cfg, replay) {
    sock.onopen = () => {
      if (this.#ws !== sock) return;
      this.#phase = "hello_sent";
      const hello = {
        type: "hello",
        protocolVersion: PROTOCOL_VERSION,
        clientVersion: this.#deps.clientVersion,
        pairingToken: cfg.token || "",
        caps: { actions: ACTIONS, features: replay ? FEATURES : FEATURES.filter((f) => f !== "replay") },
      };
      if (replay) hello.instance = this.#cache.instance();
      this.#rawSend(hello);
    };
    sock.onmessage = (ev) => {
      if (this.#ws === sock) this.#onMessage(typeof ev.data === "string" ? ev.data : String(ev.data));
    };
    sock.onerror = () => {}; // onclose follows and carries the code
    sock.onclose = (ev) => {
      if (this.#ws === sock) this.#onClose(ev.code, ev.reason || "");
    };
  }

  #onMessage(text) {
    const parsed = this.#deps.parseMessage(text);
    if (!parsed.ok) {
      const v = parsed.value;
      if (this.#phase === "ready" && v && v.type === "request" && typeof v.id === "string" && v.id.length <= 64) {
        this.#rawSend({ type: "response", id: v.id, error: { code: ERROR_CODES.INVALID_ACTION, message: parsed.message } });
      } else {
        this.#log("dropped invalid message", parsed.message);
      }
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case "ack":
        if (this.#phase !== "hello_sent") return this.#log("unexpected ack");
        this.#phase = "ready";
        this.#attempt = 0;
        this.#publish({ state: "connected", serverVersion: msg.serverVersion });
        this.#startHeartbeat();
        while (this.#queue.length) this.#rawSend({ type: "event", event: this.#queue.shift() });
        return;
      case "reject":
        this.#rejectedWith = msg.error;
        this.#terminal = { state: "rejected", reason: msg.error.message, closeCode: 0, code: msg.error.code };
        this.#publish(this.#terminal);
        return;
      case "request":
        if (this.#phase !== "ready") return this.#log("request before ack dropped", msg.id);
        return this.#requests.take(msg, (resp) => this.#sendNow(resp));
      case "cancel":
        this.#requests.cancel(msg.id);
        return;
      default: // hello, response, event never come from the daemon
        this.#log("unexpected message from daemon", msg.type);
    }
  }

  #onClose(code, reason) {
    this.#stopHeartbeat();
    // The actions in flight run on: their answers wait in the replay cache
    // for the daemon to re-send their requests after the reconnect.
    this.#ws = null;
    this.#phase = "closed";
    if (this.#terminal && this.#terminal.state === "rejected") {
      this.#terminal = { ...this.#terminal, closeCode: code };
      this.#publish(this.#terminal);
      return;
    }
    if (TERMINAL_CLOSE_CODES.has(code)) {
      const replaced = code === CLOSE_CODES.replaced;
      const why = replaced ? "replaced by a newer connection on the same pairing" : reason || `closed with ${code}`;
      this.#terminal = { state: replaced ? "replaced" : "rejected", reason: why, closeCode: code };
      this.#publish(this.#terminal);
      return;
    }
    this.#publish({ state: "disconnected", reason: reason || `closed with ${code}`, closeCode: code });
    this.#scheduleReconnect();
  }

  #scheduleReconnect() {
    if (this.#terminal || !this.#started || this.#reconnectTimer) return;
    const delay = backoffDelay(this.#attempt++, this.#random);
    this.#reconnectTimer = this.#timers.setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect();
    }, delay);
  }

  #clearTimer() {
    if (this.#reconnectTimer) this.#timers.clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
  }

  #startHeartbeat() {
    this.#stopHeartbeat();
    this.#heartbeatTimer = this.#timers.setInterval(() => this.#rawSend({ type: "event", event: { type: "heartbeat" } }), HEARTBEAT_MS);
  }

  #stopHeartbeat() {
    if (this.#heartbeatTimer) this.#timers.clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = null;
  }
}
