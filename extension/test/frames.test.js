import { test } from "node:test";
import assert from "node:assert/strict";
import { createDebuggerController } from "../src/sessions/controller.js";
import { BridgeError } from "../src/core/errors.js";
import { toMarkdown } from "../src/page/markdown.js";

// Frames through chrome.debugger child sessions: a scripted tab whose
// session (no sessionId) holds the main document with one button, and
// whose out-of-process iframe (child session S1, target T1, owner node 500
// at content origin (100, 200)) holds one textbox, node 201.

const TAB = 9;
const PAY = "http://localhost:8080/pay.html";

function fakeFrames() {
  const calls = []; // [sessionId or "", method, params]
  const detached = new Set();
  const deep = (read, ids) => ({
    result: {
      type: "object",
      deepSerializedValue: { type: "array", value: [{ type: "string", value: JSON.stringify(read) }, ...ids.map((backendNodeId) => ({ type: "node", value: { backendNodeId } }))] },
    },
  });
  const box = { width: 20, height: 10, border: [10, 10, 30, 10, 30, 20, 10, 20], content: [10, 10, 30, 10, 30, 20, 10, 20] };
  const main = {
    "Page.getFrameTree": () => ({ frameTree: { frame: { id: "MAIN", loaderId: "L1", url: "http://127.0.0.1:8080/page.html" } } }),
    "Page.getLayoutMetrics": () => ({ cssVisualViewport: { pageX: 0, pageY: 0 } }),
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("bua:extract")) {
        return deep({ found: true, hasContent: true, text: "Checkout", markdown: "# Checkout", url: "http://127.0.0.1:8080/page.html", title: "Checkout", frameSrcs: [], elements: [{ role: "button", name: "Back", visible: true }], elementsTotal: 1 }, [101]);
      }
      if (p.expression.includes("bua:frame")) return { result: { type: "string", value: 'nomatch["http://127.0.0.1:8080/same.html"]' } };
      return { result: { type: "undefined" } };
    },
    "DOM.getFrameOwner": (p) => {
      assert.equal(p.frameId, "T1");
      return { backendNodeId: 500 };
    },
    "DOM.getBoxModel": (p) => (p.backendNodeId === 500 ? { model: { ...box, content: [100, 200, 520, 200, 520, 440, 100, 440] } } : { model: box }),
    "DOM.getNodeForLocation": () => ({ backendNodeId: 500 }),
  };
  const child = {
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("bua:frame")) {
        return p.expression.includes('"pay"') ? { result: { type: "object", subtype: "node", objectId: "S1-201" } } : { result: { type: "string", value: `nomatch${JSON.stringify([PAY])}` } };
      }
      if (p.expression.includes("bua:elements")) {
        return deep({ url: PAY, elements: [{ role: "textbox", name: "Card number", visible: true, frame: PAY }], elementsTotal: 1 }, [201]);
      }
      return { result: { type: "undefined" } };
    },
    "DOM.describeNode": () => ({ node: { backendNodeId: 201 } }),
    "DOM.resolveNode": (p) => ({ object: { objectId: `S1-${p.backendNodeId}` } }),
    "DOM.getBoxModel": () => ({ model: box }),
    "DOM.getContentQuads": () => ({ quads: [box.border] }),
    "Runtime.callFunctionOn": (p) => {
      if (p.functionDeclaration.includes("bua:actionable")) {
        return { result: { type: "object", value: { connected: true, visible: true, enabled: true, editable: true, animating: false, hidden: false } } };
      }
      if (p.functionDeclaration.includes("elementFromPoint")) return { result: { type: "object", value: { ok: true } } };
      return { result: { type: "undefined" } };
    },
  };
  const dbg = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method, params) => {
      calls.push([target.sessionId || "", method, params || {}]);
      if (target.sessionId && detached.has(target.sessionId)) throw new Error(JSON.stringify({ code: -32001, message: `Session with given id not found.` }));
      const h = (target.sessionId ? child : main)[method];
      return h ? h(params || {}) || {} : {};
    },
  };
  return { chromeApi: { debugger: dbg }, calls, detached };
}

function setup() {
  const fake = fakeFrames();
  const c = createDebuggerController({ chromeApi: fake.chromeApi, managed: true });
  return { fake, c };
}

// attachFrame delivers the auto-attach events Chrome sends for the tab's
// out-of-process iframe (and a worker, which AUTO_ATTACH's filter keeps
// out but a fake may still send).
function attachFrame(c) {
  c.handleDebuggerEvent({ tabId: TAB }, "Target.attachedToTarget", { sessionId: "S1", targetInfo: { targetId: "T1", type: "iframe", url: PAY } });
  c.handleDebuggerEvent({ tabId: TAB }, "Target.attachedToTarget", { sessionId: "W1", targetInfo: { targetId: "W", type: "worker", url: "" } });
}

const mouse = (calls) => calls.filter((x) => x[1] === "Input.dispatchMouseEvent");

test("the attach asks for the out-of-process iframes as flat child sessions, and each child for its own", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "press_key", key: "a" });
  const auto = fake.calls.find((x) => x[1] === "Target.setAutoAttach");
  assert.deepEqual(auto, ["", "Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: "iframe" }] }]);
  attachFrame(c);
  assert.deepEqual(c.sessions.get(TAB).frames.size, 1, "the worker is not a frame");
  assert.ok(fake.calls.some((x) => x[0] === "S1" && x[1] === "Target.setAutoAttach"), "the child attaches its own frames");
});

test("extract lists the frame's elements after the page's, with its URL, and a uid reaches them in the frame's session", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "press_key", key: "a" });
  attachFrame(c);
  const r = await c.run(TAB, { type: "extract" });
  assert.deepEqual(r.elements, [
    { uid: "e0", role: "button", name: "Back", visible: true },
    { uid: "e1", role: "textbox", name: "Card number", visible: true, frame: PAY },
  ]);
  assert.equal(r.elementsTotal, 2);
  assert.deepEqual(c.sessions.get(TAB).uidCache.map.get("e1"), { session: "S1", id: 201 });

  fake.calls.length = 0;
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e1" }), { ok: true });
  // The box is read in the frame's session, and the mouse goes there too,
  // at the box's centre in the frame's viewport: sent to the tab's, it
  // would be routed by a hit test on drawn frames, which a background tab
  // does not have.
  assert.ok(fake.calls.some((x) => x[0] === "S1" && x[1] === "DOM.getBoxModel" && x[2].backendNodeId === 201));
  const m = mouse(fake.calls);
  assert.equal(m.length, 3);
  for (const [session, , p] of m) {
    assert.equal(session, "S1");
    assert.deepEqual([p.x, p.y], [20, 15]);
  }
});

test("a selector with frame is looked for in the frame whose URL or name matches; no such frame lists the frames there are", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "press_key", key: "a" });
  attachFrame(c);
  assert.deepEqual(await c.run(TAB, { type: "click", selector: "#card", frame: "pay" }), { ok: true });
  assert.deepEqual(mouse(fake.calls).map((x) => [x[0], x[2].x, x[2].y]), [["S1", 20, 15], ["S1", 20, 15], ["S1", 20, 15]]);

  await assert.rejects(c.run(TAB, { type: "click", selector: "#card", frame: "nope" }), (e) => {
    assert.ok(e instanceof BridgeError);
    assert.equal(e.code, "element_not_found");
    assert.match(e.message, /no frame matches "nope".*same\.html.*localhost:8080\/pay\.html/);
    return true;
  });
});

test("the frame's hit test must land on its iframe in the tab: an overlay there is named and waited out", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "press_key", key: "a" });
  attachFrame(c);
  await c.run(TAB, { type: "extract" });
  let covered = true;
  const real = fake.chromeApi.debugger.sendCommand;
  fake.chromeApi.debugger.sendCommand = async (target, method, params) => {
    if (covered && !target.sessionId && method === "DOM.getNodeForLocation") return { backendNodeId: 777 };
    if (!target.sessionId && method === "DOM.resolveNode" && params.backendNodeId === 777) return { object: { objectId: "cover" } };
    if (!target.sessionId && method === "Runtime.callFunctionOn" && params.objectId === "cover") return { result: { value: { cover: "div#cover", text: "Please wait" } } };
    return real(target, method, params);
  };
  setTimeout(() => (covered = false), 150);
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e1" }), { ok: true });
  assert.equal(mouse(fake.calls).length, 3);

  covered = true;
  const action = { type: "click", uid: "e1" };
  const { budgetFor } = await import("../src/core/budget.js");
  await assert.rejects(c.run(TAB, action, budgetFor(action, 700)), /covered by div#cover "Please wait" at \(120, 215\), over its frame/);
});

test("a frame that went away makes its uids element_not_found, and frames() forgets it", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "press_key", key: "a" });
  attachFrame(c);
  await c.run(TAB, { type: "extract" });
  c.handleDebuggerEvent({ tabId: TAB }, "Target.detachedFromTarget", { sessionId: "S1" });
  fake.detached.add("S1");
  assert.equal(c.sessions.get(TAB).frames.size, 0);
  await assert.rejects(c.run(TAB, { type: "click", uid: "e1" }), (e) => e.code === "element_not_found");
  // wait_for by uid sees it gone, not an error.
  await assert.rejects(c.run(TAB, { type: "wait_for", uid: "e1", timeoutMs: 200 }), (e) => e.code === "timeout");
});

test("a tab without out-of-process frames sends nothing to child sessions", async () => {
  const { fake, c } = setup();
  await c.run(TAB, { type: "extract" });
  await c.run(TAB, { type: "click", uid: "e0" }).catch(() => {});
  assert.equal(fake.calls.filter((x) => x[0] !== "").length, 0);
});

test("markdown shows a same-origin frame's text under a frame marker, and nothing for an empty one", () => {
  const h = (tag, attrs, ...children) => ({ tag, attrs: attrs || {}, style: {}, children: children.map((c) => (typeof c === "string" ? { text: c } : c)) });
  const tree = h("body", null,
    h("p", null, "Your order"),
    h("iframe", { src: "http://site.test/notes.html" }, h("body", null, h("p", null, "Gift wrap is free"))),
    h("iframe", { src: "http://site.test/empty.html" }, h("body", null)),
    h("iframe", { src: "https://pay.test/form" }, h("body", null, h("h2", null, "Pay"))),
  );
  assert.equal(
    toMarkdown(tree, { pageUrl: "http://site.test/page.html" }),
    "Your order\n\n[frame: /notes.html]\n\nGift wrap is free\n\n[frame: https://pay.test/form]\n\n## Pay",
  );
});
