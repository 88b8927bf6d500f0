// docs/extension.md#state-ownership: the worker can be killed at any time; what
// chrome.storage.local holds (bridge_config, blocklist, activeSessions,
// buaWindowId, sessionHistory, and stoppedTabs) comes back in a fresh
// worker, and what lived only in memory (the uid caches, the debugger
// attachments) is reported stale rather than trusted.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionManager } from "../src/sessions/session-manager.js";
import { createWindowManager } from "../src/windows/window-manager.js";
import { createDispatcher } from "../src/routing/action-dispatcher.js";
import { createDebuggerController } from "../src/sessions/controller.js";
import { loadPairing } from "../src/transport/pairing.js";
import { budgetFor } from "../src/core/budget.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

test("a fresh worker over the same storage gets back every key of §State Ownership", async () => {
  const api = createFakeApi();
  // The first worker's life.
  const person = api.mkWindow({ focused: true });
  const stoppedTab = api.mkTab(person.id, "http://stopped.test/");
  const sm1 = createSessionManager({ storage: api.storage, emit: () => {} });
  await sm1.init();
  await api.storage.set({ bridge_config: { url: "ws://127.0.0.1:7/ws/browser", token: "tok" } });
  await sm1.addToBlocklist(["blocked.test"]);
  const win1 = createWindowManager({ api });
  const opened = await win1.openTab("http://live.test/");
  sm1.ensureSession(opened.id, "live.test");
  sm1.recordAction(opened.id);
  sm1.ensureSession(stoppedTab.id, "stopped.test");
  sm1.endSession(stoppedTab.id, "user_stopped");
  await sm1.flush();
  assert.deepEqual(
    [...api.storeMap.keys()].sort(),
    ["activeSessions", "blocklist", "bridge_config", "buaWindowId", "sessionHistory", "stoppedTabs"],
  );

  // Chrome kills the worker; a new one starts from storage alone.
  const events = [];
  const sm2 = createSessionManager({ storage: api.storage, emit: (e) => events.push(e) });
  await sm2.init();
  const pairing = await loadPairing(api);
  assert.deepEqual([pairing.kind, pairing.url, pairing.token], ["user", "ws://127.0.0.1:7/ws/browser", "tok"]);
  assert.deepEqual(sm2.blocklist, ["blocked.test"]);
  assert.deepEqual(sm2.list().map(({ tabId, domain, actionCount }) => ({ tabId, domain, actionCount })), [{ tabId: opened.id, domain: "live.test", actionCount: 1 }]);
  assert.equal(await createWindowManager({ api }).buaWindowId(), opened.windowId);
  assert.deepEqual(sm2.history.map((h) => [h.tabId, h.reason]), [[stoppedTab.id, "user_stopped"]]);
  assert.equal(sm2.stoppedReason(stoppedTab.id), "user_stopped", "a stop survives the restart");

  // The restarted dispatcher honours all of it.
  const controller = { run: async () => ({ ok: true }) };
  const d = createDispatcher({ api, sessions: sm2, windows: createWindowManager({ api }), controller, emit: (e) => events.push(e) });
  const refused = await d.handle({ type: "evaluate", expression: "return 1", tabId: stoppedTab.id }, budgetFor({ type: "evaluate" }));
  assert.equal(refused.error.code, "session_not_found");
  const ok = await d.handle({ type: "evaluate", expression: "return 1" }, budgetFor({ type: "evaluate" }));
  assert.deepEqual(ok.result, { ok: true, tabId: opened.id }, "the rehydrated session in the BUA window is picked without a tabId");
  assert.equal(events.filter((e) => e.type === "session_started").length, 0, "no session started twice");
});

test("in-memory state is not trusted after a restart: uids are stale and the debugger attaches again", async () => {
  const attaches = [];
  const chromeApi = {
    ...createFakeApi(),
    debugger: {
      attach: async (t) => attaches.push(t.tabId),
      detach: async () => {},
      sendCommand: async (t, method) => (method === "Page.getFrameTree" ? { frameTree: { frame: { id: "F", loaderId: "L", url: "http://a.test/" } } } : {}),
      getTargets: async () => [],
    },
  };
  const fresh = createDebuggerController({ chromeApi, emitEvent: () => {}, managed: false });
  assert.equal(fresh.committedUrl(7), null, "no attachment is assumed");
  await assert.rejects(fresh.run(7, { type: "click", uid: "e3" }, budgetFor({ type: "click" })), (e) => e.code === "element_stale");
  assert.deepEqual(attaches, [7], "the first action attaches again");
});
