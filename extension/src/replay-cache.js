// The replay cache (spec 004 §Dedupe, the schema's x-replay,
// docs/extension.md §Replay cache): the request ids this worker has
// received, so that a request the daemon re-sends after a reconnect, with
// the same id, is answered from here or from the action still running,
// and never runs twice. It lives in chrome.storage.session, which outlives
// the service worker (a restarted worker reads it back) but not the
// browser, and is mirrored in memory.
//
// Each entry is written before its action sends anything to the page (a
// started mark: begin() resolves once chrome.storage.session holds it),
// then again with its answer (the response message's JSON text, as sent:
// chrome.storage.session counts a string at about its length, an object at
// several times its JSON) or its end. Bounds, from x-replay: an entry
// lives until the request's deadlineMs has passed since it arrived, at
// most maxAgeMs; at most maxEntries are kept, the oldest answered ones
// going first; an answer larger than maxAnswerBytes is kept in memory only
// (storage holds that there was one). Since the daemon never re-sends a
// request past its deadline, nor past maxAgeMs after it first sent it, an
// entry that expires is never asked for again. One evicted before its
// expiry may be: until that expiry the cache is unsure, and a re-sent id
// it does not know is answered outcome_unknown rather than run.

import { REPLAY } from "./generated/protocol.js";

export const KEY_PREFIX = "replay:"; // + request id: one storage key per entry
export const INSTANCE_KEY = "replay.instance";
export const UNSURE_KEY = "replay.unsureUntil";

// Entry states.
export const STARTED = "started";
export const ANSWERED = "answered";
export const CANCELLED = "cancelled";

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
export function createReplayCache({ storage, now = Date.now, newId = () => crypto.randomUUID(), bounds = REPLAY }) {
  return new ReplayCache(storage, now, newId, bounds);
}

class ReplayCache {
  #storage;
  #now;
  #bounds;
  #entries = new Map(); // id -> {startedAt, expiresAt, state, answer?, answerBytes?, reason?}, oldest first
  #unsureUntil = 0;
  #instance = "";

  constructor(storage, now, newId, bounds) {
    this.#storage = storage;
    this.#now = now;
    this.#bounds = bounds;
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
  // maxAgeMs): the started mark, in storage once it resolves. It rejects
  // when storage refuses the write.
  begin(id, deadlineMs) {
    const t = this.#now();
    const maxAgeMs = this.#bounds.maxAgeMs;
    const life = Number.isFinite(deadlineMs) && deadlineMs > 0 ? Math.min(deadlineMs, maxAgeMs) : maxAgeMs;
    const gone = this.#expire(t);
    const before = this.#unsureUntil;
    this.#evict(t, gone);
    const e = { startedAt: t, expiresAt: t + life, state: STARTED };
    this.#entries.set(id, e);
    return this.#write(id, e, gone, this.#unsureUntil !== before ? { [UNSURE_KEY]: this.#unsureUntil } : {}).catch((err) => {
      this.#entries.delete(id); // never started: a re-sent id may run
      throw err;
    });
  }

  // answer records id's response message, text: its JSON, as sent.
  answer(id, text) {
    return this.#end(id, { state: ANSWERED, answer: text, answerBytes: text.length });
  }

  // cancelled records that id ended without an answer: cancel {id}, or
  // the client stopping; reason says which.
  cancelled(id, reason) {
    return this.#end(id, { state: CANCELLED, reason: String(reason || "cancelled") });
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

  #write(id, e, gone = [], extra = {}) {
    const items = { [KEY_PREFIX + id]: this.#stored(e), ...extra };
    return Promise.all([this.#storage.set(items), gone.length ? this.#storage.remove(gone) : null]);
  }

  #end(id, fields) {
    const e = this.#entries.get(id);
    if (!e) return Promise.resolve(); // expired or evicted meanwhile: nothing to keep
    Object.assign(e, fields);
    return this.#write(id, e);
  }
}
