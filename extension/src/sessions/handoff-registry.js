// The handoff registry: the tabs bua has handed to the person because a page
// needs a human (the handoff action, a pure addition to protocol v4). The
// popup and the badge show list(); the handoff executor (actions/handoff.js)
// adds and removes entries. Persisted in chrome.storage.local under
// `handoffs`, so a worker that Chrome restarted still knows which tabs it
// handed over and where they came from.

const KEY = "handoffs";

// createHandoffRegistry({storage, now}): storage is chrome-api.js's
// storage (get/set), now a clock in ms. Call init() once before use.
export function createHandoffRegistry({ storage, now = Date.now }) {
  const entries = new Map(); // tabId -> entry
  const subs = new Set();
  let writes = Promise.resolve();

  function persist() {
    const items = { [KEY]: [...entries.values()] };
    writes = writes.then(() => storage.set(items)).catch(() => {});
    return writes;
  }

  function changed() {
    const snapshot = list();
    for (const fn of subs) {
      try {
        fn(snapshot);
      } catch {
        // A subscriber's bug must not stop the others or the handoff.
      }
    }
  }

  // The public shape: what the person is shown, without the restore data.
  function view(e) {
    return { tabId: e.tabId, domain: e.domain, obstacleType: e.obstacleType, message: e.message, since: e.since };
  }

  function list() {
    return [...entries.values()].sort((a, b) => a.since - b.since).map(view);
  }

  return {
    // init loads the persisted entries (a restarted worker).
    async init() {
      const got = await storage.get(KEY);
      for (const e of Array.isArray(got[KEY]) ? got[KEY] : []) {
        if (e && Number.isInteger(e.tabId)) entries.set(e.tabId, e);
      }
    },
    // request records tabId as handed over and returns its entry. A tab
    // already handed over keeps its first entry (since, restore): the
    // action is idempotent per tab. restore is where the tab came from
    // ({windowId, index, moved}), for resolve's caller.
    request(tabId, { domain = "", obstacleType = "", message = "", restore = null } = {}) {
      const old = entries.get(tabId);
      if (old) return { ...old };
      const e = { tabId, domain, obstacleType, message, since: now(), restore };
      entries.set(tabId, e);
      persist();
      changed();
      return { ...e };
    },
    // get is tabId's entry, or null.
    get(tabId) {
      const e = entries.get(tabId);
      return e ? { ...e } : null;
    },
    // resolve removes tabId's entry and returns it, or null when the tab
    // was not handed over.
    resolve(tabId) {
      const e = entries.get(tabId);
      if (!e) return null;
      entries.delete(tabId);
      persist();
      changed();
      return { ...e };
    },
    // list is every handed-over tab, oldest first: [{tabId, domain,
    // obstacleType, message, since}].
    list,
    // subscribe calls fn(list()) after every change; returns unsubscribe.
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
    // flushed resolves once the last change is in storage (tests).
    flushed: () => writes,
  };
}
