// The one thin wrapper around the chrome.* calls the worker makes (MV3 APIs
// return promises since Chrome 116; our minimum is 125, whose chrome.debugger
// sends to out-of-process iframes' child sessions). Modules take this object
// instead of touching the global, so node tests hand them a fake with the
// same shape (test/helpers/fake-chrome.js).
//
// Event objects (onRemoved, onEvent, ...) are passed through untouched: the
// worker must add listeners synchronously at top level, and wrapping them
// would only hide that.

// NAV_EVENTS are the chrome.webNavigation events the worker listens to.
const NAV_EVENTS = ["onCreatedNavigationTarget", "onCommitted", "onHistoryStateUpdated", "onReferenceFragmentUpdated"];

// pick is obj's named fields (events passed through), {} without obj.
function pick(obj, names) {
  return Object.fromEntries(names.map((n) => [n, obj ? obj[n] : undefined]));
}

export function createChromeApi(c = globalThis.chrome, fetchImpl = globalThis.fetch) {
  return {
    runtime: {
      getURL: (p) => c.runtime.getURL(p),
      getManifest: () => c.runtime.getManifest(),
      id: c.runtime.id,
    },
    storage: {
      get: (keys) => c.storage.local.get(keys),
      set: (items) => c.storage.local.set(items),
      remove: (keys) => c.storage.local.remove(keys),
    },
    // chrome.storage.session: kept across the worker's restarts, not the
    // browser's; the replay cache's (replay-cache.js).
    storageSession: {
      get: (keys) => c.storage.session.get(keys),
      set: (items) => c.storage.session.set(items),
      remove: (keys) => c.storage.session.remove(keys),
    },
    tabs: {
      get: (tabId) => c.tabs.get(tabId),
      query: (q) => c.tabs.query(q),
      create: (props) => c.tabs.create(props),
      update: (tabId, props) => c.tabs.update(tabId, props),
      move: (tabId, props) => c.tabs.move(tabId, props),
      remove: (tabId) => c.tabs.remove(tabId),
    },
    windows: {
      get: (windowId, q) => c.windows.get(windowId, q),
      getAll: (q) => c.windows.getAll(q),
      getLastFocused: (q) => c.windows.getLastFocused(q),
      create: (props) => c.windows.create(props),
      update: (windowId, props) => c.windows.update(windowId, props),
      remove: (windowId) => c.windows.remove(windowId),
    },
    alarms: {
      create: (name, info) => c.alarms.create(name, info),
      clear: (name) => c.alarms.clear(name),
    },
    idle: {
      setDetectionInterval: (s) => c.idle.setDetectionInterval(s),
    },
    action: {
      setBadgeText: (d) => c.action.setBadgeText(d),
      setBadgeBackgroundColor: (d) => c.action.setBadgeBackgroundColor(d),
      setTitle: (d) => c.action.setTitle(d),
    },
    debugger: {
      attach: (target, version) => c.debugger.attach(target, version),
      detach: (target) => c.debugger.detach(target),
      sendCommand: (target, method, params) => c.debugger.sendCommand(target, method, params),
      getTargets: () => c.debugger.getTargets(),
      onEvent: c.debugger?.onEvent,
      onDetach: c.debugger?.onDetach,
    },
    // downloads: the ones an input started (input/downloads.js); the events
    // are listened to only while such an action runs, so they need not be
    // registered at top level.
    downloads: c.downloads
      ? {
          search: (q) => c.downloads.search(q),
          onCreated: c.downloads.onCreated,
          onChanged: c.downloads.onChanged,
        }
      : undefined,
    // The tab an input opens (input/new-tab.js): onCreatedNavigationTarget
    // names the tab a navigation opened and the tab it came from, listened
    // to only while an input runs. The recorder (recorder/navigation.js)
    // follows a recorded tab's navigations with the others, only while a
    // recording runs.
    webNavigation: pick(c.webNavigation, NAV_EVENTS),
    // The trace's request outcomes (core/trace.js): events passed through,
    // listened to per attached tab with a tabId filter.
    webRequest: {
      onCompleted: c.webRequest?.onCompleted,
      onErrorOccurred: c.webRequest?.onErrorOccurred,
    },
    fetch: (...args) => fetchImpl(...args),
  };
}
