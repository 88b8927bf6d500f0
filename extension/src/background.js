// bua bridge service worker. Chrome only wakes a worker for events whose
// listeners were added synchronously during its first run, so every chrome.*
// listener is added here at top level; each waits for `ready` (pairing and
// storage loaded) before doing anything.

import { createChromeApi } from "./core/chrome-api.js";
import { claimCode, loadPairing } from "./transport/pairing.js";
import { parseMessage } from "./transport/validator.js";
import { createWsClient } from "./transport/ws-client.js";
import { createReplayCache } from "./transport/replay-cache.js";
import { createSessionManager } from "./sessions/session-manager.js";
import { createWindowManager } from "./windows/window-manager.js";
import { createDispatcher } from "./routing/action-dispatcher.js";
import { createDebuggerController } from "./sessions/controller.js";
import { createHandoffRegistry } from "./sessions/handoff-registry.js";
import { createHandoffService } from "./actions/handoff.js";
import { createRecorder } from "./recorder/recorder.js";
import { budgetFor } from "./core/budget.js";
import { abortable } from "./core/cdp.js";
import { END_REASONS } from "./generated/protocol.js";
import { createIdleGuard } from "./sessions/idle-guard.js";
import { createLocalUiService } from "./services/ui-service-local.js";
import { MESSAGE_KIND, STATE_PORT } from "./services/ui-service.js";

const KEEPALIVE_ALARM = "bua-reconnect";

const api = createChromeApi();
const log = (...a) => console.debug("[bua]", ...a);
const pairing = { managed: false, kind: "default", url: "", token: "" };

function emitEvent(event) {
  client.sendEvent(event);
}

const sessions = createSessionManager({ storage: api.storage, emit: emitEvent });
const windows = createWindowManager({ api, isManaged: () => pairing.managed });
const handoffs = createHandoffRegistry({ storage: api.storage });
const handoffService = createHandoffService({ api, windows, registry: handoffs, emit: emitEvent });
// Created synchronously so the controller can add its chrome.debugger
// listeners at top level. `managed` is a getter: the pairing file is read
// asynchronously, after this line runs.
const controller = createDebuggerController({
  chromeApi: api,
  emitEvent,
  handoff: handoffService,
  get managed() {
    return pairing.managed;
  },
});
// Created synchronously too: the recorder adds its own chrome.debugger
// listener (the page side's binding calls), as the controller does.
const recorder = createRecorder({ api, controller, sessions });
const dispatcher = createDispatcher({ api, sessions, windows, controller, emit: emitEvent, recorder });

const client = createWsClient({
  clientVersion: api.runtime.getManifest().version,
  // Read back from chrome.storage.session as the worker starts, and the
  // hello waits for it: a restarted worker knows what its predecessor
  // started.
  cache: createReplayCache({ storage: api.storageSession }),
  WebSocketImpl: WebSocket,
  parseMessage,
  getConfig: async () => {
    Object.assign(pairing, await loadPairing(api));
    return { url: pairing.url, token: pairing.token };
  },
  handleRequest: async (action, { deadlineMs, signal } = {}) => {
    // The budget starts now: waiting for init counts against it too.
    // signal is the request's: cancel {id} aborts it (docs/cancellation.md#cancellation).
    const budget = budgetFor(action, deadlineMs, Date.now(), signal);
    await abortable(ready, signal);
    return dispatcher.handle(action, budget);
  },
  setState: (state) => {
    service.setConnection({ ...state, url: state.url || pairing.url });
    return api.storage.set({ connectionState: { ...state, kind: pairing.kind } });
  },
  log,
});

// The pages' UiService (docs/extension.md#layering): the popup and
// the options page reach the worker only through it.
const service = createLocalUiService({
  api,
  sessions,
  client,
  pairing: () => pairing,
  handoffs,
  controller,
  recorder,
  windows,
  emit: emitEvent,
  claim: (url, code) => claimCode(api, url, code),
});
const idleGuard = createIdleGuard({ idle: api.idle, endAll: (reason) => service.endAll(reason), isManaged: () => pairing.managed });


// A managed browser opens the BUA window now, alongside the hello, so the
// first open_tab or navigate finds it, its tab attached (docs/cold-start.md#what-a-cold-start-overlaps).
// A person's Chrome gets no window until an agent asks.
const pairingLoaded = loadPairing(api);
pairingLoaded
  .then((p) => p.managed && windows.prewarm())
  .then((tab) => tab && controller.prepare(tab.id))
  .catch((e) => log("BUA window not prewarmed", e));

async function init() {
  const [, loaded] = await Promise.all([sessions.init(), pairingLoaded, handoffs.init()]);
  Object.assign(pairing, loaded);
  if (pairing.blocklist && pairing.blocklist.length) await sessions.addToBlocklist(pairing.blocklist);
  idleGuard.start();
  await api.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 0.5 });
  service.refreshBadge().catch(() => {});
}

const ready = init().catch((e) => {
  console.error("[bua] worker init failed", e);
  throw e;
});
controller.onDetach?.((tabId, reason) => {
  // canceled_by_user is the person's Cancel on Chrome's debugger bar: the
  // session ends with debugger_detached, its requests fail at once and the
  // tab is refused from then on (docs/cancellation.md#cancellation).
  // target_closed is a closed tab: tabs.onRemoved ends that session. It may
  // come first, so the actions pending on a tab that is really gone end
  // with tab_not_found here already.
  if (reason !== "target_closed") ready.then(() => sessions.endSession(tabId, END_REASONS.DEBUGGER_DETACHED));
  else api.tabs.get(tabId).then((tab) => !tab, () => true).then((gone) => gone && dispatcher.tabClosed(tabId));
});

chrome.runtime.onStartup.addListener(() => {
  ready.then(() => client.ensureConnected());
});

chrome.runtime.onInstalled.addListener(() => {
  ready.then(() => client.ensureConnected());
});

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === KEEPALIVE_ALARM) ready.then(() => client.ensureConnected());
});

chrome.tabs.onRemoved.addListener((tabId) => {
  // At once, not after ready: whoever closed the tab, every action pending
  // on it ends with tab_not_found now rather than at its timeout.
  dispatcher.tabClosed(tabId);
  ready.then(() => {
    controller.forgetTab?.(tabId);
    sessions.tabRemoved(tabId);
    handoffs.resolve(tabId); // a closed tab is nobody's to clear any more
  });
});

chrome.windows.onRemoved.addListener((windowId) => {
  windows.windowRemoved(windowId);
});

// The window manager keeps a new BUA window, and one a click activated,
// hidden while the window manager may still show it (HIDE_WATCH_MS).
chrome.windows.onFocusChanged.addListener((windowId) => {
  windows.focusChanged(windowId);
});
chrome.windows.onBoundsChanged.addListener((win) => {
  windows.boundsChanged(win);
});

chrome.idle.onStateChanged.addListener((state) => {
  ready.then(() => idleGuard.onState(state));
});

// chrome.storage.local's own onChanged, not chrome.storage.onChanged: that
// one would also wake the worker for each replay cache write to
// chrome.storage.session (one a request), with the entry's old and new
// values, answers included.
chrome.storage.local.onChanged.addListener((changes) => {
  ready.then(() => {
    if (changes.bridge_config && !pairing.managed) client.pairingChanged();
    if (changes.blocklist && !sameList(changes.blocklist.newValue, sessions.blocklist)) {
      sessions.setBlocklistFromStorage(changes.blocklist.newValue);
    }
  });
});

// The popup and the options page talk to the worker only through the
// contract's messages (services/ui-service.js) and its state port.
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || msg.kind !== MESSAGE_KIND || sender.id !== chrome.runtime.id) return false;
  ready.then(() => service.handleMessage(msg)).then(sendResponse, (e) => sendResponse({ ok: false, error: { code: "internal", message: String(e) } }));
  return true; // answer asynchronously
});

chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== STATE_PORT || !port.sender || port.sender.id !== chrome.runtime.id) return;
  ready.then(() => service.connectPort(port), () => port.disconnect());
});

function sameList(a, b) {
  return Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
}

// Frames are validated by generated code, which needs nothing loaded;
// everything else only has to be ready before the first request runs
// (handleRequest awaits `ready`). So the hello goes out as soon as the
// listeners above are in, while storage is still opening
// (docs/cold-start.md#what-a-cold-start-overlaps).
client.start();
