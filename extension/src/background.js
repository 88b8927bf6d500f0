// bua bridge service worker. Chrome only wakes a worker for events whose
// listeners were added synchronously during its first run, so every chrome.*
// listener is added here at top level; each waits for `ready` (pairing,
// schema and storage loaded) before doing anything.

import { createChromeApi } from "./chrome-api.js";
import { loadPairing } from "./pairing.js";
import { loadValidator, parseMessage } from "./validator.js";
import { createWsClient } from "./ws-client.js";
import { createSessionManager } from "./session-manager.js";
import { createWindowManager } from "./window-manager.js";
import { createDispatcher } from "./action-dispatcher.js";
import { createDebuggerController } from "./debugger-controller.js";
import { budgetFor } from "./lib/budget.js";
import { abortable } from "./lib/cdp.js";
import { END_REASONS, EVENTS } from "./generated/protocol.js";

const KEEPALIVE_ALARM = "bua-reconnect";
const IDLE_DETECTION_S = 30 * 60; // spec 001: system_idle after 30 min

const api = createChromeApi();
const log = (...a) => console.debug("[bua]", ...a);
const pairing = { managed: false, kind: "default", url: "", token: "" };

function emitEvent(event) {
  client.sendEvent(event);
}

const sessions = createSessionManager({ storage: api.storage, emit: emitEvent });
const windows = createWindowManager({ api });
// Created synchronously so the controller can add its chrome.debugger
// listeners at top level. `managed` is a getter: the pairing file is read
// asynchronously, after this line runs.
const controller = createDebuggerController({
  chromeApi: api,
  emitEvent,
  get managed() {
    return pairing.managed;
  },
});
const dispatcher = createDispatcher({ api, sessions, windows, controller, emit: emitEvent });

const client = createWsClient({
  clientVersion: api.runtime.getManifest().version,
  WebSocketImpl: WebSocket,
  parseMessage,
  getConfig: async () => {
    Object.assign(pairing, await loadPairing(api));
    return { url: pairing.url, token: pairing.token };
  },
  handleRequest: async (action, { deadlineMs, signal } = {}) => {
    // The budget starts now: waiting for init counts against it too.
    // signal is the request's: cancel {id} aborts it (spec 001 §Cancellation).
    const budget = budgetFor(action, deadlineMs, Date.now(), signal);
    await abortable(ready, signal);
    return dispatcher.handle(action, budget);
  },
  setState: (state) => api.storage.set({ connectionState: { ...state, kind: pairing.kind } }),
  log,
});

// Frames can only be parsed once the validator is loaded; everything else
// only has to be ready before the first request runs (handleRequest awaits
// `ready`). So the hello goes out as soon as the validator is in, while
// storage is still opening: on a cold start that is about 100 ms sooner
// (docs/architecture.md §Cold start).
const validatorReady = loadValidator(async () => (await api.fetch(api.runtime.getURL("schema/protocol.schema.json"))).json());

// A managed browser opens the BUA window now, alongside the hello, so the
// first open_tab or navigate finds it, its tab attached (docs/architecture.md
// §Cold start). A person's Chrome gets no window until an agent asks.
const pairingLoaded = loadPairing(api);
pairingLoaded
  .then((p) => p.managed && windows.prewarm())
  .then((tab) => tab && controller.prepare(tab.id))
  .catch((e) => log("BUA window not prewarmed", e));

async function init() {
  const [, , loaded] = await Promise.all([validatorReady, sessions.init(), pairingLoaded]);
  Object.assign(pairing, loaded);
  if (pairing.blocklist && pairing.blocklist.length) await sessions.addToBlocklist(pairing.blocklist);
  if (!pairing.managed) {
    // A managed browser has no person at the keyboard: idle and lock never
    // mean the user walked away, so only user browsers end sessions on them.
    api.idle.setDetectionInterval(IDLE_DETECTION_S);
  }
  await api.alarms.create(KEEPALIVE_ALARM, { periodInMinutes: 0.5 });
}

const ready = init().catch((e) => {
  console.error("[bua] worker init failed", e);
  throw e;
});
validatorReady.then(
  () => client.start(),
  (e) => console.error("[bua] schema did not load; not connecting", e),
);

controller.onDetach?.((tabId, reason) => {
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
  });
});

chrome.windows.onRemoved.addListener((windowId) => {
  windows.windowRemoved(windowId);
});

chrome.idle.onStateChanged.addListener((state) => {
  ready.then(() => {
    if (pairing.managed) return;
    if (state === "locked") sessions.endAll(END_REASONS.SCREEN_LOCKED);
    else if (state === "idle") sessions.endAll(END_REASONS.SYSTEM_IDLE);
  });
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  ready.then(() => {
    if (changes.bridge_config && !pairing.managed) client.pairingChanged();
    if (changes.blocklist && !sameList(changes.blocklist.newValue, sessions.blocklist)) {
      sessions.setBlocklistFromStorage(changes.blocklist.newValue);
    }
  });
});

// The options page talks to the worker only through these messages.
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || msg.kind !== "bua_options" || sender.id !== chrome.runtime.id) return false;
  ready
    .then(async () => {
      switch (msg.op) {
        case "reconnect":
          client.pairingChanged();
          return { ok: true };
        case "stop_all": {
          await Promise.allSettled(sessions.list().map((x) => controller.detach?.(x.tabId)));
          const endedCount = sessions.endAll(END_REASONS.GLOBAL_STOP);
          emitEvent({ type: EVENTS.GLOBAL_STOP, endedCount });
          return { ok: true, endedCount };
        }
        case "state":
          return { ok: true, phase: client.phase, terminal: client.terminal, pairing: { kind: pairing.kind, url: pairing.url }, sessions: sessions.list() };
        default:
          return { ok: false, message: `unknown op ${msg.op}` };
      }
    })
    .then(sendResponse, (e) => sendResponse({ ok: false, message: String(e) }));
  return true; // answer asynchronously
});

function sameList(a, b) {
  return Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
}
