// The replay cache (docs/decisions/replay-cache.md, the schema's x-replay,
// docs/extension.md §Replay cache): the request ids this worker has
// received, so that a request the daemon re-sends after a reconnect, with
// the same id, is answered from here or from the action still running,
// and never runs twice. It lives in chrome.storage.session, which outlives
// the service worker (a restarted worker reads it back) but not the
// browser, and is mirrored in memory.
//
// Each entry's started mark is written as its action starts: begin()
// hands it to chrome.storage.session at once, in one storage.set with the
// answers and ends queued since the last write, and resolves once storage
// holds it (requests.js says why the action need not wait for that). Its
// answer (the response message's JSON text, as sent: chrome.storage.session
// counts a string at about its length, an object at several times its
// JSON) or its end is queued, and written with the next request's mark, or
// FLUSH_MS later when none comes: one write per request on the hot path,
// not two. Keys that expire or are evicted leave storage in one remove
// every REMOVE_MS (a key left there a moment longer only knows more).
// Bounds, from x-replay: an entry lives until the request's deadlineMs has
// passed since it arrived, at most maxAgeMs; at most maxEntries are kept,
// the oldest answered ones going first; an answer larger than
// maxAnswerBytes is kept in memory only (storage holds that there was one). Since the daemon never re-sends a
// request past its deadline, nor past maxAgeMs after it first sent it, an
// entry that expires is never asked for again. One evicted before its
// expiry may be: until that expiry the cache is unsure, and a re-sent id
// it does not know is answered outcome_unknown rather than run.

import { REPLAY } from "../generated/protocol.js";

export const KEY_PREFIX = "replay:"; // + request id: one storage key per entry
export const INSTANCE_KEY = "replay.instance";
export const UNSURE_KEY = "replay.unsureUntil";

// Entry states.
export const STARTED = "started";
export const ANSWERED = "answered";
export const CANCELLED = "cancelled";

// FLUSH_MS is how long an answer or an end waits for the next request's
// started mark to carry it to storage; REMOVE_MS how long expired and
// evicted keys wait to leave it. A worker that dies within FLUSH_MS of an
// answer it could not send has its request answered outcome_unknown
// instead of from storage: never run twice.
export const FLUSH_MS = 20;
export const REMOVE_MS = 1000;

// memoryStorage is a chrome.storage-shaped store in a Map: a cache over it
// lives as long as the worker (tests, and a worker without
// chrome.storage.session).
export function memoryStorage(map = new Map()) {
  const clone = (x) => (x === undefined ? x : JSON.parse(JSON.stringify(x)));
  return {
    map,
    async get(keys) {
      const ks = keys == null ? [...map.keys()] : Array.isArray(keys) ? keys : [keys];
      const out = {};
      for (const k of ks) if (map.has(k)) out[k] = clone(map.get(k));
      return out;
    },
    async set(items) {
      for (const [k, v] of Object.entries(items)) map.set(k, clone(v));
    },
    async remove(keys) {
      for (const k of Array.isArray(keys) ? keys : [keys]) map.delete(k);
    },
  };
}

// createReplayCache reads the cache back from storage (chrome.storage.session
// in the worker) and returns it once `ready` resolves. newId makes the
// instance id the hello names (hello.instance) when storage has none yet.
// timers schedules the deferred writes (FLUSH_MS, REMOVE_MS).
export function createReplayCache({ storage, now = Date.now, newId = () => crypto.randomUUID(), bounds = REPLAY, timers = globalThis }) {
  return new ReplayCache(storage, now, newId, bounds, timers);
}

class ReplayCache {
  #storage;
  #now;
  #bounds;
  #entries = new Map(); // id -> {startedAt, expiresAt, state, answer?, answerBytes?, reason?}, oldest first
  #unsureUntil = 0;
  #instance = "";
  #timers;
  #queued = new Set(); // ids whose answer or end waits for the next write
  #flushTimer = null;
  #gone = new Set(); // storage keys to remove
  #removeTimer = null;
  // healthy is false from a write storage refused until one it took:
  // meanwhile requests.js waits for each mark before it runs the action.
  healthy = true;

  constructor(storage, now, newId, bounds, timers) {
    this.#storage = storage;
    this.#now = now;
    this.#bounds = bounds;
    this.#timers = timers;
    this.ready = this.#load(newId);
  }

  // instance is the hello's instance id, once ready.
  instance() {
    return this.#instance;
  }

  get size() {
    return this.#entries.size;
  }

  // lookup is id's entry, or undefined: {state, answer?, answerBytes?,
  // reason?}. A STARTED entry whose action no longer runs here was cut
  // short by a worker restart.
  lookup(id) {
    const e = this.#entries.get(id);
    return e && e.expiresAt > this.#now() ? e : undefined;
  }

  // unsure says whether an entry was evicted before its expiry, which has
  // not come yet: a re-sent id the cache does not know may have run.
  unsure() {
    return this.#now() < this.#unsureUntil;
  }

  // begin records that id starts now, to live deadlineMs (at most
  // maxAgeMs): the started mark, handed to storage before begin returns
  // and in storage once the promise resolves. The promise rejects when
  // storage refuses the write (then forget(id) if the action did not run).
  begin(id, deadlineMs) {
    const t = this.#now();
    const maxAgeMs = this.#bounds.maxAgeMs;
    const life = Number.isFinite(deadlineMs) && deadlineMs > 0 ? Math.min(deadlineMs, maxAgeMs) : maxAgeMs;
    const gone = this.#expire(t);
    const before = this.#unsureUntil;
    this.#evict(t, gone);
    const e = { startedAt: t, expiresAt: t + life, state: STARTED };
    this.#entries.set(id, e);
    this.#queued.delete(id);
    this.#gone.delete(KEY_PREFIX + id);
    this.#remove(gone);
    return this.#write({ [KEY_PREFIX + id]: this.#stored(e) }, this.#unsureUntil !== before ? { [UNSURE_KEY]: this.#unsureUntil } : {});
  }

  // forget drops id's entry: its started mark was refused and its action
  // never ran, so a re-sent id may run.
  forget(id) {
    this.#entries.delete(id);
  }

  // answer records id's response message, text: its JSON, as sent.
  answer(id, text) {
    this.#end(id, { state: ANSWERED, answer: text, answerBytes: text.length });
  }

  // cancelled records that id ended without an answer: cancel {id}, or
  // the client stopping; reason says which.
  cancelled(id, reason) {
    this.#end(id, { state: CANCELLED, reason: String(reason || "cancelled") });
  }

  // flush writes the queued answers and ends now; it resolves once storage
  // holds them.
  flush() {
    return this.#write({}, {});
  }

  async #load(newId) {
    const storage = this.#storage;
    const all = await storage.get(null);
    const t = this.#now();
    const stale = [];
    const loaded = [];
    for (const [key, e] of Object.entries(all)) {
      if (!key.startsWith(KEY_PREFIX)) continue;
      if (!e || typeof e !== "object" || !(e.expiresAt > t)) stale.push(key);
      else loaded.push([key.slice(KEY_PREFIX.length), e]);
    }
    loaded.sort((a, b) => a[1].startedAt - b[1].startedAt);
    for (const [id, e] of loaded) this.#entries.set(id, e);
    this.#unsureUntil = Number(all[UNSURE_KEY]) || 0;
    this.#instance = typeof all[INSTANCE_KEY] === "string" && all[INSTANCE_KEY] ? all[INSTANCE_KEY] : "";
    const writes = [];
    if (!this.#instance) {
      this.#instance = newId();
      writes.push(storage.set({ [INSTANCE_KEY]: this.#instance }));
    }
    if (stale.length) writes.push(storage.remove(stale));
    await Promise.all(writes);
  }

  // expire forgets the entries whose time is up and returns their keys.
  #expire(t) {
    const gone = [];
    for (const [id, e] of this.#entries) {
      if (e.expiresAt <= t) {
        this.#entries.delete(id);
        gone.push(KEY_PREFIX + id);
      }
    }
    return gone;
  }

  // evict makes room for one more entry: the oldest that has ended goes
  // first, else the oldest. One that goes before its expiry makes the
  // cache unsure until then.
  #evict(t, gone) {
    const entries = this.#entries;
    while (entries.size >= this.#bounds.maxEntries) {
      let victim = null;
      for (const [id, e] of entries) {
        if (e.state !== STARTED) {
          victim = id;
          break;
        }
      }
      if (victim === null) victim = entries.keys().next().value;
      const e = entries.get(victim);
      entries.delete(victim);
      gone.push(KEY_PREFIX + victim);
      if (e.expiresAt > t && e.expiresAt > this.#unsureUntil) this.#unsureUntil = e.expiresAt;
    }
  }

  // stored is what storage keeps of e: its answer only up to
  // maxAnswerBytes, else the answer's size.
  #stored(e) {
    const { answer, ...rest } = e;
    if (answer !== undefined && e.answerBytes <= this.#bounds.maxAnswerBytes) rest.answer = answer;
    return rest;
  }

  // write hands items to storage in one set, with every queued answer
  // and end, and tells healthy what storage said.
  #write(items, extra) {
    for (const id of this.#queued) {
      const e = this.#entries.get(id);
      if (e) items[KEY_PREFIX + id] = this.#stored(e); // else expired or evicted meanwhile
    }
    this.#queued.clear();
    if (this.#flushTimer !== null) {
      this.#timers.clearTimeout(this.#flushTimer);
      this.#flushTimer = null;
    }
    Object.assign(items, extra);
    if (!Object.keys(items).length) return Promise.resolve();
    return this.#storage.set(items).then(
      () => {
        this.healthy = true;
      },
      (err) => {
        this.healthy = false;
        throw err;
      },
    );
  }

  #end(id, fields) {
    const e = this.#entries.get(id);
    if (!e) return; // expired or evicted meanwhile: nothing to keep
    Object.assign(e, fields);
    this.#queued.add(id);
    if (this.#flushTimer === null) {
      this.#flushTimer = this.#timers.setTimeout(() => {
        this.#flushTimer = null;
        this.flush().catch((err) => console.warn("[bua] replay cache write failed", err));
      }, FLUSH_MS);
    }
  }

  // remove takes keys out of storage in one remove, REMOVE_MS from the
  // first of them.
  #remove(keys) {
    for (const k of keys) this.#gone.add(k);
    if (!this.#gone.size || this.#removeTimer !== null) return;
    this.#removeTimer = this.#timers.setTimeout(() => {
      this.#removeTimer = null;
      const ks = [...this.#gone];
      this.#gone.clear();
      this.#storage.remove(ks).catch((err) => console.warn("[bua] replay cache remove failed", err));
    }, REMOVE_MS);
  }
}
