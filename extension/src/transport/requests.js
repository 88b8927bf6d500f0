// The requests in flight on the worker's connection (docs/extension.md
// §ws-client rules, §Replay cache): each runs under its own AbortSignal
// (cancel {id} from the daemon aborts it, and an aborted request sends no
// response: docs/cancellation.md#cancellation), is recorded in the replay cache
// (replay-cache.js) before it runs, and a request the daemon re-sends
// after a reconnect is answered from there, or by the action still
// running, never by running it twice.

import { ERROR_CODES, REASONS } from "../generated/protocol.js";
import { CancelledError } from "../core/errors.js";
import { abortable } from "../core/cdp.js";
import { ANSWERED, CANCELLED } from "./replay-cache.js";

// respond is the response message for id's handler outcome.
function respond(id, out) {
  return out.error ? { type: "response", id, error: out.error } : { type: "response", id, result: out.result };
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

export class Requests {
  #cache;
  #handleRequest;
  #log;
  #inflight = new Map(); // request id -> AbortController, while its action runs

  // cache is the replay cache; handleRequest(action, {id, deadlineMs,
  // signal}) -> {result} | {error} | null (null: cancelled, send nothing).
  constructor({ cache, handleRequest, log }) {
    this.#cache = cache;
    this.#handleRequest = handleRequest;
    this.#log = log;
    // The hello names the cache's instance and lists replay only once the
    // cache is readable: without it a re-sent request could run twice.
    this.cacheReady = cache.ready.then(
      () => true,
      (e) => {
        log("replay cache unreadable: no replay this session", e);
        return false;
      },
    );
  }

  // cancel aborts id's request. An id already answered, or never seen,
  // has nothing to stop.
  cancel(id) {
    const ac = this.#inflight.get(id);
    if (ac) ac.abort(new CancelledError(`request ${id} cancelled by the daemon`));
  }

  // abortAll stops every request in flight: the client stopped, or the
  // pairing changed (to another daemon, maybe), so nobody will ask for
  // their answers.
  abortAll(why) {
    for (const ac of this.#inflight.values()) ac.abort(new CancelledError(why));
  }

  // take runs one request message, msg, and hands its response (an object,
  // or its JSON text) to sendNow, which sends it if the connection is up
  // (else the daemon asks again after the reconnect).
  async take(msg, sendNow) {
    const id = msg.id;
    const cache = this.#cache;
    // Running here: the re-sent request joins it, whose answer goes out on
    // whichever connection is up when it ends.
    if (this.#inflight.has(id)) return;
    const replay = await this.cacheReady;
    if (this.#inflight.has(id)) return;
    const seen = replay ? cache.lookup(id) : undefined;
    if (seen) return sendNow(fromCache(id, seen));
    if (msg.replay && replay && cache.unsure()) {
      return sendNow(outcomeUnknown(id, `request ${id} is not in the replay cache, which had to drop live entries (more than ${cache.size} requests within their deadlines)`));
    }
    const ac = new AbortController();
    this.#inflight.set(id, ac);
    if (replay) {
      const began = this.#begin(msg, sendNow);
      if (began !== true && !(await began)) return;
    }
    const out = await this.#run(msg, ac);
    this.#inflight.delete(id);
    if (ac.signal.aborted || !out) {
      this.#log("request cancelled: no response", id);
      if (replay) cache.cancelled(id, ac.signal.reason && ac.signal.reason.message);
      return;
    }
    const text = JSON.stringify(respond(id, out));
    sendNow(text);
    if (replay) cache.answer(id, text); // written with the next request's mark
  }

  // begin hands the started mark to storage before the action sends
  // anything to the page, so that a worker that dies mid-action leaves it
  // behind. It does not wait for storage to answer: chrome.storage.session
  // lives in the browser process, which takes this worker's extension API
  // calls in the order they were made, over one channel, and applies a
  // session-storage write as it takes it; so by the time the action's
  // first chrome.debugger command reaches the browser, the mark is in
  // storage, and a worker that dies after the call leaves it there. Not
  // waiting saves the write's round trip (0.7 ms) on every request. While
  // storage refuses writes (cache.healthy false), each mark is awaited,
  // and a mark that cannot be written fails the request without running
  // it. It returns true, or a promise of whether the request may run.
  #begin(msg, sendNow) {
    const cache = this.#cache;
    const wait = !cache.healthy;
    const written = cache.begin(msg.id, msg.deadlineMs);
    if (!wait) {
      written.catch((e) => this.#log("replay cache write failed: request ran without its started mark", msg.id, e));
      return true;
    }
    return this.#awaitMark(msg, written, sendNow);
  }

  async #awaitMark(msg, written, sendNow) {
    const id = msg.id;
    const cache = this.#cache;
    try {
      await written;
      return true;
    } catch (e) {
      cache.forget(id); // never started: a re-sent id may run
      this.#inflight.delete(id);
      this.#log("replay cache write failed: request not run", id, e);
      sendNow({ type: "response", id, error: { code: ERROR_CODES.INTERNAL_ERROR, message: `the extension could not record the request in its replay cache (${e && e.message ? e.message : e}), so it did not run it: send it again` } });
      return false;
    }
  }

  // run is the handler's outcome, null once the request was aborted:
  // abortable, so the request is over for us the moment it is cancelled,
  // even if a handler were slow to notice.
  async #run(msg, ac) {
    try {
      return await abortable(
        Promise.resolve().then(() => {
          if (ac.signal.aborted) throw ac.signal.reason; // cancelled before it started
          return this.#handleRequest(msg.action, { id: msg.id, deadlineMs: msg.deadlineMs, signal: ac.signal });
        }),
        ac.signal,
      );
    } catch (e) {
      return ac.signal.aborted ? null : { error: { code: ERROR_CODES.INTERNAL_ERROR, message: String(e && e.message ? e.message : e) } };
    }
  }
}
