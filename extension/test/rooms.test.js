// The extension's modules on their own (docs/decisions/extension-modules.md):
// the TabSession's one
// dispose, the capabilities each action family gets, and the mouse and
// keyboard. The controller's tests (controller.test.js, frames.test.js,
// nav.test.js) drive the same code through run().

import { test } from "node:test";
import assert from "node:assert/strict";
import { TabSession } from "../src/sessions/tab-session.js";
import { contextFor } from "../src/sessions/capabilities.js";
import { TAB_EXECUTORS, USES } from "../src/sessions/executors.js";
import { createTraceStore } from "../src/core/trace.js";
import { budgetFor } from "../src/core/budget.js";
import { mouse, keyboard } from "../src/input/input.js";
import { BridgeError } from "../src/core/errors.js";

const TAB = 7;

function listeners() {
  const set = new Set();
  return { set, addListener: (fn) => set.add(fn), removeListener: (fn) => set.delete(fn) };
}

// session is a TabSession over a fake chrome.debugger that answers the
// attach's setup, with the trace's webRequest listeners.
function session() {
  const webRequest = { onCompleted: listeners(), onErrorOccurred: listeners() };
  const api = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method) => (method === "Page.getFrameTree" ? { frameTree: { frame: { id: "MAIN", loaderId: "L1", url: "http://a.test/" } } } : {}),
  };
  const traces = createTraceStore();
  const s = new TabSession(TAB, { api, tabsApi: null, webRequest, traces, emitEvent: () => {} });
  return { s, webRequest, traces };
}

// filled is a session attached, with every kind of state a tab gathers.
async function filled() {
  const f = session();
  const { s } = f;
  await s.attach();
  s.handleEvent(undefined, "Target.attachedToTarget", { sessionId: "S1", targetInfo: { type: "iframe", targetId: "T1" } });
  s.storeUids(new Map([["e0", { session: null, id: 1 }], ["e1", { session: null, id: 2 }]]), "L1");
  s.evaluating = true;
  s.openDialog = { dialogType: "alert", message: "hi" };
  s.policy = { how: "accept", action: "navigate", answered: [] };
  s.on(() => {});
  s.watchDialogs(() => {});
  s.traces.push(TAB, { kind: "action", action: "click" });
  return f;
}

test("a detach drops the attachment and the page's state, and keeps what only the tab's closing drops", async () => {
  const { s, webRequest, traces } = await filled();
  assert.equal(s.attached, true);
  assert.equal(webRequest.onCompleted.set.size, 1, "the trace watches the tab's requests while attached");
  s.dispose("detached");
  assert.deepEqual(
    { attached: s.attached, mainFrame: s.mainFrame, frames: s.frames.size, uidCache: s.uidCache, lastRead: s.lastRead, evaluating: s.evaluating, openDialog: s.openDialog, policy: s.policy },
    { attached: false, mainFrame: null, frames: 0, uidCache: null, lastRead: null, evaluating: false, openDialog: null, policy: null },
  );
  assert.equal(webRequest.onCompleted.set.size + webRequest.onErrorOccurred.set.size, 0, "no request watch after a detach");
  assert.equal(s.uidsHandedOut, 2, "the uids handed out survive a detach");
  assert.equal(traces.has(TAB), true, "the trace ring survives a detach");
  assert.equal(s.listeners.size + s.dialogWatchers.size, 2, "the actions in flight still hear the tab");
  assert.throws(() => s.uidNode("e1"), (e) => e instanceof BridgeError && e.code === "element_stale" && e.reason === undefined, "a uid handed out is stale, not unknown");

  s.dispose("closed");
  assert.equal(s.uidsHandedOut, 0);
  assert.equal(traces.has(TAB), false, "the trace ring goes with the tab");
  assert.equal(s.listeners.size + s.dialogWatchers.size, 0);
});

test("a detach reaches the actions in flight as bua.detached, after the state is gone", async () => {
  const { s } = await filled();
  const heard = [];
  s.on((method, params) => heard.push([method, params.reason, s.attached]));
  s.handleDetach("canceled_by_user");
  assert.deepEqual(heard, [["bua.detached", "canceled_by_user", false]]);
});

test("a navigation drops the uid cache and keeps the ledger of the last read", async () => {
  const { s } = await filled();
  const read = s.lastRead;
  s.handleEvent(undefined, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2", url: "http://a.test/next" } });
  assert.equal(s.uidCache, null);
  assert.equal(s.lastRead, read);
  assert.deepEqual(s.mainFrame, { id: "MAIN", loaderId: "L2", url: "http://a.test/next" });
});

test("every tab action's ctx holds the capabilities its family names, and no others", async () => {
  const { s } = await filled();
  const request = { sendTo: async () => ({}) };
  const deps = { timers: globalThis, isManaged: () => false, chromeApi: {}, traces: s.traces, handoff: {} };
  const members = {
    cdp: ["send", "sendTo", "sleep", "frames", "timers"],
    events: ["on", "mainFrame", "mainFrameId"],
    uids: ["uidNode", "lookupUid"],
    reads: ["storeUids", "lastRead", "clearUids"],
    input: ["managed", "downloads", "tabs", "webNavigation"],
    dialogs: ["answerDialog"],
    evaluating: ["beginEvaluate", "endEvaluate"],
    handoff: ["handoff"],
    trace: ["readTrace"],
  };
  assert.deepEqual(Object.keys(USES).sort(), Object.keys(TAB_EXECUTORS).sort());
  for (const [type, uses] of Object.entries(USES)) {
    const ctx = contextFor(uses, { tabId: TAB, budget: budgetFor({ type }), deps, session: s, request });
    const want = ["tabId", "budget", ...uses.flatMap((u) => members[u])].sort();
    assert.deepEqual(Object.keys(ctx).sort(), want, type);
  }
  assert.deepEqual(USES.evaluate, ["cdp", "evaluating"], "evaluate reads no uids and answers no dialog");
  assert.deepEqual(USES.click, ["cdp", "events", "uids", "input"]);
});

test("the mouse aims at the tab's point, or at an out-of-process iframe's in its own session; a click is move, press, release at once", async () => {
  const sent = [];
  const ctx = {
    send: (m, p) => (sent.push([null, p.type, p.x, p.y, p.button, p.buttons]), new Promise((r) => setTimeout(r, 5))),
    sendTo: (session, m, p) => (sent.push([session, p.type, p.x, p.y, p.button, p.buttons]), Promise.resolve()),
  };
  const clicking = mouse(ctx).click({ x: 10, y: 20, to: null });
  assert.equal(sent.length, 3, "all three sent before any answered");
  await clicking;
  await mouse(ctx).move({ x: 110, y: 120, to: { session: "S1", x: 10, y: 20 } });
  assert.deepEqual(sent, [
    [null, "mouseMoved", 10, 20, "none", 0],
    [null, "mousePressed", 10, 20, "left", 1],
    [null, "mouseReleased", 10, 20, "left", 0],
    ["S1", "mouseMoved", 10, 20, "none", 0],
  ]);
});

test("the keyboard presses a key's events one after another, or together; an unknown key is invalid_action", async () => {
  const sent = [];
  let inFlight = 0;
  let most = 0;
  const ctx = {
    send: async (m, p) => {
      sent.push([m, p.type]);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
    },
  };
  const keys = keyboard(ctx);
  await keys.press("Enter");
  assert.equal(most, 1, "one after another");
  assert.ok(sent.length >= 2 && sent.every(([m]) => m === "Input.dispatchKeyEvent"));
  most = 0;
  await keys.press("Delete", { together: true });
  assert.ok(most >= 2, "sent together");
  assert.throws(() => keys.eventsFor("NoSuchKey"), (e) => e instanceof BridgeError && e.code === "invalid_action");
  await keys.insertText("héllo");
  assert.deepEqual(sent.at(-1), ["Input.insertText", undefined]);
});
