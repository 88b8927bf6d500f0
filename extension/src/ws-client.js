// The worker's one WebSocket to the daemon (docs/protocol.md#handshake,
// docs/extension.md §ws-client rules): hello, then nothing until
// ack; reject and 4001/4002/4003 are terminal until the pairing changes;
// anything else reconnects with jittered backoff (4029, "rate-limited, try
// later", included: the daemon sends it without a reject when wrong hellos
// have spent its budget, and the right token gets in on the next try);
// heartbeat every 20 s. Every request runs under its own AbortSignal:
// cancel {id} from the daemon aborts it, and a request that was aborted
// sends no response (docs/architecture.md#cancellation). A dropped connection aborts
// nothing: each request is recorded in the replay cache (replay-cache.js)
// before it runs, and a request the daemon re-sends after a reconnect is
// answered from there, or by the action still running, never by running
// it twice (the replay feature, docs/extension.md §Replay cache).

import { ACTIONS, CLOSE_CODES, ERROR_CODES, FEATURES, REASONS, PROTOCOL_VERSION } from "./generated/protocol.js";
import { CancelledError } from "./lib/errors.js";
import { abortable } from "./lib/cdp.js";
import { ANSWERED, CANCELLED, createReplayCache, memoryStorage } from "./replay-cache.js";

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
//     (deadlineMs: the request envelope's, or undefined; see lib/budget.js;
//     signal aborts on cancel {id}; null: cancelled, send nothing)
//   cache: the replay cache (replay-cache.js; default: one in memory)
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
  const inflight = new Map(); // request id -> AbortController, while its action runs
  const cache = deps.cache || createReplayCache({ storage: memoryStorage() });
  // The hello names the cache's instance and lists replay only once the
  // cache is readable: without it a re-sent request could run twice.
  const cacheReady = cache.ready.then(
    () => true,
    (e) => {
      log("replay cache unreadable: no replay this session", e);
      return false;
    },
  );

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
    const replay = await cacheReady; // resolved after the worker's first moments
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
      const hello = {
        type: "hello",
        protocolVersion: PROTOCOL_VERSION,
        clientVersion: deps.clientVersion,
        pairingToken: cfg.token || "",
        caps: { actions: ACTIONS, features: replay ? FEATURES : FEATURES.filter((f) => f !== "replay") },
      };
      if (replay) hello.instance = cache.instance();
      rawSend(hello);
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

  // respond is the response message for id's handler outcome.
  function respond(id, out) {
    return out.error ? { type: "response", id, error: out.error } : { type: "response", id, result: out.result };
  }

  // sendNow sends a response message (an object, or its JSON text) if the
  // connection is up; else the daemon asks again after the reconnect.
  function sendNow(resp) {
    if (phase !== "ready" || !ws || ws.readyState !== WS_OPEN) return;
    ws.send(typeof resp === "string" ? resp : JSON.stringify(resp));
  }

  // outcomeUnknown answers a request that started here and whose answer is
  // lost: it may or may not have had its effect, so it is not run again.
  function outcomeUnknown(id, why) {
    return { type: "response", id, error: { code: ERROR_CODES.INTERNAL_ERROR, message: `${why}: it may or may not have taken effect, so it was not run again; look at the page (extract) before sending it again`, reason: REASONS.OUTCOME_UNKNOWN } };
  }

  // fromCache answers a request id the cache knows and no action here is
  // running (the daemon re-sent it after a reconnect): its answer's text,
  // or outcome_unknown.
  function fromCache(id, seen) {
    if (seen.state === ANSWERED) {
      if (seen.answer) return seen.answer;
      return outcomeUnknown(id, `request ${id} ran to its end, but its answer (${seen.answerBytes} bytes) was too large to keep across the extension's worker restart`);
    }
    if (seen.state === CANCELLED) return outcomeUnknown(id, `request ${id} was stopped while it ran (${seen.reason})`);
    return outcomeUnknown(id, `request ${id} was running when the extension's worker restarted`);
  }

  async function onRequest(msg) {
    const id = msg.id;
    // Running here: the re-sent request joins it, whose answer goes out on
    // whichever connection is up when it ends.
    if (inflight.has(id)) return;
    const replay = await cacheReady;
    if (inflight.has(id)) return;
    const seen = replay ? cache.lookup(id) : undefined;
    if (seen) return sendNow(fromCache(id, seen));
    if (msg.replay && replay && cache.unsure()) {
      return sendNow(outcomeUnknown(id, `request ${id} is not in the replay cache, which had to drop live entries (more than ${cache.size} requests within their deadlines)`));
    }
    const ac = new AbortController();
    inflight.set(id, ac);
    if (replay) {
      // The started mark is in storage before the action sends anything to
      // the page: a worker that dies mid-action leaves it behind.
      try {
        await cache.begin(id, msg.deadlineMs);
      } catch (e) {
        inflight.delete(id);
        log("replay cache write failed: request not run", id, e);
        return sendNow({ type: "response", id, error: { code: ERROR_CODES.INTERNAL_ERROR, message: `the extension could not record the request in its replay cache (${e && e.message ? e.message : e}), so it did not run it: send it again` } });
      }
    }
    let out;
    try {
      // abortable: the request is over for us the moment it is cancelled,
      // even if a handler were slow to notice.
      out = await abortable(
        Promise.resolve().then(() => {
          if (ac.signal.aborted) throw ac.signal.reason; // cancelled before it started
          return deps.handleRequest(msg.action, { id, deadlineMs: msg.deadlineMs, signal: ac.signal });
        }),
        ac.signal,
      );
    } catch (e) {
      out = ac.signal.aborted ? null : { error: { code: ERROR_CODES.INTERNAL_ERROR, message: String(e && e.message ? e.message : e) } };
    }
    inflight.delete(id);
    if (ac.signal.aborted || !out) {
      log("request cancelled: no response", id);
      if (replay) cache.cancelled(id, ac.signal.reason && ac.signal.reason.message).catch((e) => log("replay cache write failed", id, e));
      return;
    }
    const text = JSON.stringify(respond(id, out));
    if (replay) cache.answer(id, text).catch((e) => log("replay cache write failed", id, e));
    sendNow(text);
  }

  // abortAll stops every request in flight: the client stopped, or the
  // pairing changed (to another daemon, maybe), so nobody will ask for
  // their answers.
  function abortAll(why) {
    for (const ac of inflight.values()) ac.abort(new CancelledError(why));
  }

  function onClose(code, reason) {
    stopHeartbeat();
    // The actions in flight run on: their answers wait in the replay cache
    // for the daemon to re-send their requests after the reconnect.
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
