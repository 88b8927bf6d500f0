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
  const entries = new Map(); // id -> {startedAt, expiresAt, state, answer?, answerBytes?, reason?}, oldest first
  let unsureUntil = 0;
  let instance = "";

  async function load() {
    const all = await storage.get(null);
    const t = now();
    const stale = [];
    const loaded = [];
    for (const [key, e] of Object.entries(all)) {
      if (!key.startsWith(KEY_PREFIX)) continue;
      if (!e || typeof e !== "object" || !(e.expiresAt > t)) stale.push(key);
      else loaded.push([key.slice(KEY_PREFIX.length), e]);
    }
    loaded.sort((a, b) => a[1].startedAt - b[1].startedAt);
    for (const [id, e] of loaded) entries.set(id, e);
    unsureUntil = Number(all[UNSURE_KEY]) || 0;
    instance = typeof all[INSTANCE_KEY] === "string" && all[INSTANCE_KEY] ? all[INSTANCE_KEY] : "";
    const writes = [];
    if (!instance) {
      instance = newId();
      writes.push(storage.set({ [INSTANCE_KEY]: instance }));
    }
    if (stale.length) writes.push(storage.remove(stale));
    await Promise.all(writes);
  }

  // expire forgets the entries whose time is up and returns their keys.
  function expire(t) {
    const gone = [];
    for (const [id, e] of entries) {
      if (e.expiresAt <= t) {
        entries.delete(id);
        gone.push(KEY_PREFIX + id);
      }
    }
    return gone;
  }

  // evict makes room for one more entry: the oldest that has ended goes
  // first, else the oldest. One that goes before its expiry makes the
  // cache unsure until then.
  function evict(t, gone) {
    while (entries.size >= bounds.maxEntries) {
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
      if (e.expiresAt > t && e.expiresAt > unsureUntil) unsureUntil = e.expiresAt;
    }
  }

  // stored is what storage keeps of e: its answer only up to
  // maxAnswerBytes, else the answer's size.
  function stored(e) {
    const { answer, ...rest } = e;
    if (answer !== undefined && e.answerBytes <= bounds.maxAnswerBytes) rest.answer = answer;
    return rest;
  }

  function write(id, e, gone = [], extra = {}) {
    const items = { [KEY_PREFIX + id]: stored(e), ...extra };
    return Promise.all([storage.set(items), gone.length ? storage.remove(gone) : null]);
  }

  function end(id, fields) {
    const e = entries.get(id);
    if (!e) return Promise.resolve(); // expired or evicted meanwhile: nothing to keep
    Object.assign(e, fields);
    return write(id, e);
  }

  const ready = load();

  return {
    ready,
    // instance is the hello's instance id, once ready.
    instance: () => instance,
    get size() {
      return entries.size;
    },
    // lookup is id's entry, or undefined: {state, answer?, answerBytes?,
    // reason?}. A STARTED entry whose action no longer runs here was cut
    // short by a worker restart.
    lookup(id) {
      const e = entries.get(id);
      return e && e.expiresAt > now() ? e : undefined;
    },
    // unsure says whether an entry was evicted before its expiry, which has
    // not come yet: a re-sent id the cache does not know may have run.
    unsure: () => now() < unsureUntil,
    // begin records that id starts now, to live deadlineMs (at most
    // maxAgeMs): the started mark, in storage once it resolves. It
    // rejects when storage refuses the write.
    begin(id, deadlineMs) {
      const t = now();
      const life = Number.isFinite(deadlineMs) && deadlineMs > 0 ? Math.min(deadlineMs, bounds.maxAgeMs) : bounds.maxAgeMs;
      const gone = expire(t);
      const before = unsureUntil;
      evict(t, gone);
      const e = { startedAt: t, expiresAt: t + life, state: STARTED };
      entries.set(id, e);
      return write(id, e, gone, unsureUntil !== before ? { [UNSURE_KEY]: unsureUntil } : {}).catch((err) => {
        entries.delete(id); // never started: a re-sent id may run
        throw err;
      });
    },
    // answer records id's response message, text: its JSON, as sent.
    answer: (id, text) => end(id, { state: ANSWERED, answer: text, answerBytes: text.length }),
    // cancelled records that id ended without an answer: cancel {id}, or
    // the client stopping; reason says which.
    cancelled: (id, reason) => end(id, { state: CANCELLED, reason: String(reason || "cancelled") }),
  };
}
