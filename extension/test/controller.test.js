import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { createDebuggerController } from "../src/sessions/controller.js";
import { WEBDRIVER_SHIM } from "../src/sessions/attach.js";
import { BridgeError, ErrorCodes } from "../src/core/errors.js";
import { budgetFor } from "../src/core/budget.js";
import { shapeResult, wrapExpression } from "../src/actions/evaluate.js";
import { buildPageScript, maxElementsOf, readValue, toElements } from "../src/actions/extract.js";
import { REPLY_MARGIN_MS } from "../src/generated/protocol.js";
import { createFakeTimers } from "./helpers/fake-chrome.js";

const TAB = 7;

// fakeTab is a scripted chrome.debugger for one tab. Handlers answer CDP
// commands; `page` is the state the default handlers read.
function fakeTab(overrides = {}, opts = {}) {
  const calls = [];
  const page = {
    loaderId: "L1",
    connected: new Set([101, 102, 103]), // backendNodeIds still in the document
    exists: new Set([101, 102, 103]), // backendNodeIds CDP can still resolve
    hitFor: (id) => id, // node at a target's centre
    cover: null,
    disabled: new Set(), // backendNodeIds that are :disabled or aria-disabled
    quadsFor: () => [[10, 10, 30, 10, 30, 20, 10, 20]], // DOM.getContentQuads, matching the default box
    hidden: false, // document.visibilityState === "hidden"
  };
  const throwCdp = (message) => {
    throw new Error(JSON.stringify({ code: -32000, message }));
  };
  const handlers = {
    "Page.getFrameTree": () => ({ frameTree: { frame: { id: "MAIN", loaderId: page.loaderId }, childFrames: [] } }),
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("bua:extract")) {
        const read = {
          found: true, hasContent: true, text: "Hello", markdown: "# Hello", url: "http://site.test/", title: "Site", frameSrcs: [],
          elements: [
            { role: "button", name: "Go", visible: true },
            { role: "textbox", name: "Email", value: "a@b", visible: true },
            { role: "link", name: "Hidden", visible: false },
          ],
          elementsTotal: 3,
        };
        const nodes = [101, 102, 103].map((backendNodeId) => ({ type: "node", value: { backendNodeId, nodeType: 1 } }));
        return { result: { type: "object", deepSerializedValue: { type: "array", value: [{ type: "string", value: JSON.stringify(read) }, ...nodes] } } };
      }
      return { result: { type: "undefined" } };
    },
    "DOM.getBoxModel": (p) => {
      if (p.backendNodeId === 103) return { model: { width: 0, height: 0, border: [0, 0, 0, 0, 0, 0, 0, 0] } };
      return { model: { width: 20, height: 10, border: [10, 10, 30, 10, 30, 20, 10, 20] } };
    },
    "DOM.resolveNode": (p) => {
      // By nodeId (the selector path), map through the test's own
      // DOM.describeNode, as Chromium resolves a nodeId to its node.
      const id = p.backendNodeId !== undefined ? p.backendNodeId : (overrides["DOM.describeNode"]
        ? overrides["DOM.describeNode"]({ nodeId: p.nodeId }).node.backendNodeId
        : p.nodeId);
      if (!page.exists.has(id)) throwCdp("No node with given id found");
      return { object: { objectId: `obj-${id}` } };
    },
    "Runtime.callFunctionOn": (p) => {
      if (p.functionDeclaration.includes("bua:actionable")) {
        const id = Number(p.objectId.slice(4));
        const value = { connected: page.connected.has(id), visible: id !== 103, enabled: !page.disabled.has(id), editable: true, animating: Boolean(page.stable), hidden: page.hidden };
        return { result: { type: "object", value } };
      }
      // The stability probe, asked only while an animation runs on the target.
      if (p.functionDeclaration.includes("no frames")) {
        const value = page.stable();
        return { result: { type: typeof value, value } };
      }
      if (p.functionDeclaration.includes("isConnected")) {
        const id = Number(p.objectId.slice(4));
        return { result: { type: "boolean", value: page.connected.has(id) } };
      }
      if (p.functionDeclaration.includes("shadowRoot")) {
        return { result: { type: "object", value: page.cover ? { ok: false, ...page.cover } : { ok: true } } };
      }
      return { result: { type: "undefined" } };
    },
    "DOM.getNodeForLocation": () => ({ backendNodeId: page.hitFor(page.lastBox) }),
    "DOM.getContentQuads": () => ({ quads: page.quadsFor() }),
    "DOM.scrollIntoViewIfNeeded": (p) => {
      page.lastBox = p.backendNodeId !== undefined ? p.backendNodeId : Number(p.objectId.slice(4));
      return {};
    },
    ...overrides,
  };
  const dbg = {
    attach: async (target, version) => {
      calls.push(["attach", target.tabId, version]);
      if (opts.attachError) throw new Error(opts.attachError);
    },
    detach: async (target) => {
      calls.push(["detach", target.tabId]);
    },
    sendCommand: async (target, method, params) => {
      calls.push([method, params]);
      const h = handlers[method];
      return h ? (await h(params || {})) || {} : {};
    },
  };
  return { chromeApi: { debugger: dbg }, calls, page, handlers };
}

function makeController(fake, extra = {}) {
  const events = [];
  const c = createDebuggerController({ chromeApi: fake.chromeApi, emitEvent: (e) => events.push(e), managed: false, ...extra });
  return { c, events };
}

const methods = (calls) => calls.map((c) => c[0]);

async function rejectsWith(p, code, re) {
  let err;
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof BridgeError, `BridgeError, got ${e && e.stack}`);
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    err = e;
    return true;
  });
  return err;
}

test("attaches once with CDP 1.3, enables domains and installs the webdriver shim", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "press_key", key: "a" });
  await c.run(TAB, { type: "press_key", key: "b" });
  assert.deepEqual(fake.calls.filter((x) => x[0] === "attach"), [["attach", TAB, "1.3"]]);
  for (const m of ["Page.enable", "DOM.enable", "Runtime.enable", "Accessibility.enable"]) {
    assert.ok(methods(fake.calls).includes(m), m);
  }
  const shim = fake.calls.find((x) => x[0] === "Page.addScriptToEvaluateOnNewDocument");
  assert.equal(shim[1].source, WEBDRIVER_SHIM);
  assert.ok(fake.calls.some((x) => x[0] === "Runtime.evaluate" && x[1].expression === WEBDRIVER_SHIM), "shim also runs in the current document");
});

test("attach failure is debugger_attach_failed", async () => {
  const fake = fakeTab({}, { attachError: "Another debugger is already attached to the tab with id: 7." });
  const { c } = makeController(fake);
  await rejectsWith(c.run(TAB, { type: "press_key", key: "a" }), "debugger_attach_failed", /already attached/);
});

test("extract assigns uids in document order with visibility and caches them", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  const res = await c.run(TAB, { type: "extract" });
  assert.deepEqual(res.elements, [
    { uid: "e0", role: "button", name: "Go", visible: true },
    { uid: "e1", role: "textbox", name: "Email", value: "a@b", visible: true },
    { uid: "e2", role: "link", name: "Hidden", visible: false },
  ]);
  assert.equal(res.tabId, undefined, "the dispatcher, not the controller, adds tabId");
  assert.equal(res.markdown, "# Hello");
  assert.equal(res.captchaFrame, false);
  assert.equal("obstacle" in res, false, "obstacle absent when nothing fires");
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0" }), { ok: true });
});

test("uid cache survives a late frameNavigated for its own document and SPA route changes, not a new document", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  // late event for the document the extract read
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L1" } });
  c.handleDebuggerEvent({ tabId: TAB }, "Page.navigatedWithinDocument", { frameId: "MAIN", url: "http://site.test/#/route" });
  // a child frame navigating is not the page navigating
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "SUB", parentId: "MAIN", loaderId: "X9" } });
  assert.deepEqual(await c.run(TAB, { type: "hover", uid: "e1" }), { ok: true });

  fake.page.loaderId = "L2";
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } });
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_stale", /no extract since it last loaded/);
});

test("a uid is stale when the document changed even before frameNavigated arrives", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  fake.page.loaderId = "L2"; // committed, event still in flight
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_stale");
  assert.equal(methods(fake.calls).includes("Input.dispatchMouseEvent"), false);
});

test("navigate clears the uid cache", async () => {
  const fake = fakeTab({
    "Page.navigate": () => ({ frameId: "MAIN", loaderId: "L1" }),
  });
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  const nav = c.run(TAB, { type: "navigate", url: "http://site.test/next" });
  await new Promise((r) => setTimeout(r, 5));
  c.handleDebuggerEvent({ tabId: TAB }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L1", name: "load" });
  assert.deepEqual(await nav, { ok: true });
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_stale", /^uid e0 is stale: the page has no extract since it last loaded$/);
});

test("uid never extracted is element_stale; a removed node is element_not_found and never clicked", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  // Never handed out on the tab: the same code, saying so, with its reason.
  const never = await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_stale", /^uid e0 was never handed out on this page$/);
  assert.equal(never.reason, "uid_unknown");
  await c.run(TAB, { type: "extract" }); // e0, e1, e2
  const past = await rejectsWith(c.run(TAB, { type: "click", uid: "e9" }), "element_stale", /^uid e9 was never handed out on this page$/);
  assert.equal(past.reason, "uid_unknown");
  // Handed out, then outdated: the page changed.
  c.sessions.get(TAB).uidCache.map.delete("e2");
  const stale = await rejectsWith(c.run(TAB, { type: "click", uid: "e2" }), "element_stale", /is stale: it is not in the last extract/);
  assert.equal(stale.reason, undefined);

  fake.page.connected.delete(101); // detached but still resolvable
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_not_found", /no longer in the page/);
  fake.page.exists.delete(102); // garbage collected
  await rejectsWith(c.run(TAB, { type: "type", uid: "e1", text: "x" }), "element_not_found");
  await rejectsWith(c.run(TAB, { type: "wait_for", uid: "e0", timeoutMs: 150 }), "timeout");
  assert.equal(methods(fake.calls).includes("Input.dispatchMouseEvent"), false);
  assert.equal(methods(fake.calls).includes("Input.insertText"), false);
});

// pageQuery answers the page-side selector lookups the way Chromium does:
// "#go" matches the node of backendNodeId 101, "##" throws a SyntaxError,
// anything else matches nothing. `probe` is the result of type's page-side
// checks for a match (TYPE_PROBE).
function pageQuery(probe = { connected: true, visible: true, enabled: true, editable: true, focused: true }) {
  return (p) => {
    const m = /document\.querySelector\(("[^"]*")\)/.exec(p.expression);
    if (!m) return { result: { type: "undefined" } };
    const sel = JSON.parse(m[1]);
    const typeProbe = p.expression.includes("bua:type");
    if (sel === "##") {
      const text = "SyntaxError: Failed to execute 'querySelector' on 'Document': '##' is not a valid selector.";
      if (typeProbe) return { result: { type: "object", value: { invalid: text } } };
      return { exceptionDetails: { text: "Uncaught", exception: { description: `${text}\n    at <anonymous>:1:10` } }, result: { type: "object", subtype: "error" } };
    }
    if (sel !== "#go") return { result: typeProbe ? { type: "object", value: { found: false } } : { type: "object", subtype: "null", value: null } };
    return { result: typeProbe ? { type: "object", value: probe } : { type: "object", subtype: "node", objectId: "obj-101" } };
  };
}

test("selector with no match is element_not_found; a malformed one is invalid_action", async () => {
  const fake = fakeTab({
    "Runtime.evaluate": pageQuery(),
    "DOM.describeNode": (p) => ({ node: { backendNodeId: Number(p.objectId.slice(4)) } }),
  });
  const { c } = makeController(fake);
  await rejectsWith(c.run(TAB, { type: "click", selector: "#nope" }), "element_not_found", /#nope/);
  await rejectsWith(c.run(TAB, { type: "click", selector: "##" }), "invalid_action", /invalid CSS selector "##": SyntaxError: .*not a valid selector\.$/);
  await rejectsWith(c.run(TAB, { type: "type", selector: "#nope", text: "x" }), "element_not_found", /#nope/);
  await rejectsWith(c.run(TAB, { type: "type", selector: "##", text: "x" }), "invalid_action", /invalid CSS selector "##": SyntaxError/);
  assert.deepEqual(await c.run(TAB, { type: "click", selector: "#go" }), { ok: true });
  const mouse = fake.calls.filter((x) => x[0] === "Input.dispatchMouseEvent").map((x) => [x[1].type, x[1].x, x[1].y]);
  assert.deepEqual(mouse, [["mouseMoved", 20, 15], ["mousePressed", 20, 15], ["mouseReleased", 20, 15]]);
  assert.deepEqual(await c.run(TAB, { type: "type", selector: "#go", text: "hi" }), { ok: true });
  assert.deepEqual(fake.calls.filter((x) => x[0] === "Input.insertText").map((x) => x[1].text), ["hi"]);
});

test("click's button and clickCount: each press and release carries the button, and a double click counts up", async () => {
  const fake = fakeTab({ "Runtime.evaluate": pageQuery(), "DOM.describeNode": (p) => ({ node: { backendNodeId: Number(p.objectId.slice(4)) } }) });
  const { c } = makeController(fake);
  const sent = () => fake.calls.filter((x) => x[0] === "Input.dispatchMouseEvent").map((x) => [x[1].type, x[1].button, x[1].buttons, x[1].clickCount]);
  assert.deepEqual(await c.run(TAB, { type: "click", selector: "#go", clickCount: 2 }), { ok: true });
  assert.deepEqual(sent(), [
    ["mouseMoved", "none", 0, undefined],
    ["mousePressed", "left", 1, 1],
    ["mouseReleased", "left", 0, 1],
    ["mousePressed", "left", 1, 2],
    ["mouseReleased", "left", 0, 2],
  ]);
  for (const [button, bit] of [["right", 2], ["middle", 4], ["back", 8], ["forward", 16]]) {
    fake.calls.length = 0;
    await c.run(TAB, { type: "click", selector: "#go", button });
    assert.deepEqual(sent().slice(1), [["mousePressed", button, bit, 1], ["mouseReleased", button, 0, 1]], button);
  }
});

test("a click or hover on a hidden page draws it a frame first; on a shown page it does not", async () => {
  const fake = fakeTab({ "Runtime.evaluate": pageQuery(), "DOM.describeNode": (p) => ({ node: { backendNodeId: Number(p.objectId.slice(4)) } }) });
  const { c } = makeController(fake);
  const seq = () => fake.calls.map((x) => (x[0] === "Input.dispatchMouseEvent" ? x[1].type : x[0])).filter((m) => m === "Page.captureScreenshot" || m.startsWith("mouse"));
  await c.run(TAB, { type: "click", selector: "#go" });
  assert.deepEqual(seq(), ["mouseMoved", "mousePressed", "mouseReleased"], "a shown page: no capture");
  fake.calls.length = 0;
  fake.page.hidden = true; // a tab of the minimized BUA window
  await c.run(TAB, { type: "click", selector: "#go" });
  assert.deepEqual(seq(), ["Page.captureScreenshot", "mouseMoved", "mousePressed", "mouseReleased"]);
  const shot = fake.calls.find((x) => x[0] === "Page.captureScreenshot")[1];
  assert.deepEqual(shot.clip, { x: 0, y: 0, width: 1, height: 1, scale: 1 }, "one pixel: the frame, not the picture, is the point");
  fake.calls.length = 0;
  await c.run(TAB, { type: "hover", selector: "#go" });
  assert.deepEqual(seq(), ["Page.captureScreenshot", "mouseMoved"]);
});

test("type checks and focuses in one page call, then inserts: nothing else before the settle", async () => {
  const fake = fakeTab({ "Runtime.evaluate": pageQuery() });
  const { c } = makeController(fake);
  await c.run(TAB, { type: "press_key", key: "a" }); // attach outside the count
  fake.calls.length = 0;
  assert.deepEqual(await c.run(TAB, { type: "type", selector: "#go", text: "hi" }), { ok: true });
  const sent = fake.calls.map((x) => (x[0] === "Runtime.evaluate" ? (x[1].expression.includes("bua:type") ? "probe" : x[1].expression) : x[0]));
  // The probe, the insert, the settle's page round trip; no DOM.focus, no
  // release (nothing came back by reference).
  assert.deepEqual(sent, ["probe", "Input.insertText", "0"]);
});

test("type waits while its target is not editable, and fails when it cannot take focus", async () => {
  const probe = { connected: true, visible: true, enabled: true, editable: false, focused: false };
  const fake = fakeTab({ "Runtime.evaluate": pageQuery(probe) });
  const { c } = makeController(fake);
  const started = Date.now();
  await rejectsWith(c.run(TAB, { type: "type", selector: "#go", text: "x" }, budgetFor({ type: "type" }, 1500)), "timeout", /not editable \(read-only\)/);
  assert.ok(Date.now() - started < 1400, "answers before the budget ends");
  probe.editable = true;
  await rejectsWith(c.run(TAB, { type: "type", selector: "#go", text: "x" }), "element_not_found", /cannot take focus/);
  assert.equal(methods(fake.calls).includes("Input.insertText"), false);
  probe.focused = true;
  assert.deepEqual(await c.run(TAB, { type: "type", selector: "#go", text: "x" }), { ok: true });
});

test("a covered target fails naming the cover", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  fake.page.hitFor = () => 999;
  fake.page.exists.add(999);
  fake.page.cover = { cover: "div#consent.modal", text: "Accept cookies" };
  const action = { type: "click", uid: "e0" };
  // The check's own timeout, not the controller's watchdog ("click did not
  // finish within 500 ms"): the waits ended within the budget.
  await rejectsWith(c.run(TAB, action, budgetFor(action, 1000)), "timeout", /^uid e0 is covered by div#consent\.modal "Accept cookies" .*\(waited \d+ ms/);
  assert.equal(methods(fake.calls).includes("Input.dispatchMouseEvent"), false);
});

test("a probe still running at the budget's end is given up: the timeout names the check that failed last, not the watchdog", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  fake.page.disabled.add(101);
  // After the first probe the page stops answering (a loaded machine, a
  // busy page): the probe that started before the end never comes back.
  const scroll = fake.handlers["DOM.scrollIntoViewIfNeeded"];
  let probes = 0;
  fake.handlers["DOM.scrollIntoViewIfNeeded"] = (p) => (++probes > 1 ? new Promise(() => {}) : scroll(p));
  const action = { type: "click", uid: "e0" };
  await rejectsWith(c.run(TAB, action, budgetFor(action, 1000)), "timeout", /^uid e0 is not enabled \(waited \d+ ms/);
  assert.equal(probes, 2);
  // A page that never answers the first probe.
  probes = 1;
  await rejectsWith(c.run(TAB, action, budgetFor(action, 1000)), "timeout", /^uid e0 is not checked in time/);
});

test("click waits while the target is covered, then clicks once the cover leaves", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  fake.page.hitFor = () => 999;
  fake.page.exists.add(999);
  fake.page.cover = { cover: "div.overlay", text: "" };
  setTimeout(() => {
    fake.page.hitFor = (id) => id;
    fake.page.cover = null;
  }, 120);
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0" }), { ok: true });
  assert.equal(fake.calls.filter((x) => x[0] === "Input.dispatchMouseEvent").length, 3);
});

test("click waits for a disabled target to be enabled; force clicks at once", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  fake.page.disabled.add(101);
  const action = { type: "click", uid: "e0" };
  await rejectsWith(c.run(TAB, action, budgetFor(action, 800)), "timeout", /uid e0 is not enabled \(waited \d+ ms/);
  assert.equal(methods(fake.calls).includes("Input.dispatchMouseEvent"), false);

  const hitTests = () => fake.calls.filter((x) => x[0] === "DOM.getNodeForLocation").length;
  const checks = () => fake.calls.filter((x) => x[0] === "Runtime.callFunctionOn" && x[1].functionDeclaration.includes("bua:actionable")).length;
  const before = [hitTests(), checks()];
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0", force: true }), { ok: true });
  assert.equal(fake.calls.filter((x) => x[0] === "Input.dispatchMouseEvent").length, 3);
  assert.deepEqual([hitTests(), checks()], before, "force skips the hit test and the checks: nothing to wait for");

  fake.page.disabled.delete(101);
  setTimeout(() => fake.page.disabled.add(101), 0); // hover ignores enabled
  assert.deepEqual(await c.run(TAB, { type: "hover", uid: "e0" }), { ok: true });
});

// A role target or a selector is looked up again on each probe, so a page
// that replaces the element between a lookup and its checks (the old node
// detached: it still resolves, no longer connected) costs one probe, and
// the new element is clicked; a uid names one node, so its removal is
// final at once (above). lookups() lists the backendNodeIds each lookup
// found, in order.
function replacedPage(kind, ids) {
  let n = 0;
  const next = () => ids[Math.min(n++, ids.length - 1)];
  const overrides =
    kind === "role"
      ? {
          "Runtime.evaluate": (p) => (p.expression.includes("visibilityState") ? { result: { type: "object", objectId: "doc-1" } } : { result: { type: "undefined" } }),
          "Accessibility.queryAXTree": () => ({ nodes: [{ nodeId: "1", backendDOMNodeId: next(), ignored: false, role: { value: "button" }, name: { value: "Pay now" } }] }),
        }
      : {
          "Runtime.evaluate": (p) => (p.expression.includes("querySelector") ? { result: { type: "object", subtype: "node", objectId: `obj-${next()}` } } : { result: { type: "undefined" } }),
          "DOM.describeNode": (p) => {
            const id = Number(p.objectId.slice(4));
            if (!fake.page.exists.has(id)) throw new Error(JSON.stringify({ code: -32000, message: "No node with given id found" }));
            return { node: { backendNodeId: id } };
          },
        };
  const fake = fakeTab(overrides);
  fake.page.exists.add(104);
  fake.page.connected.add(104);
  fake.lookups = () => n;
  return fake;
}

for (const kind of ["role", "selector"]) {
  const action = kind === "role" ? { type: "click", role: "button", name: "Pay now" } : { type: "click", selector: "#pay" };
  test(`a ${kind} target replaced between its lookup and its checks is looked up again and the new element clicked`, async () => {
    for (const detachedAt of ["resolve", "checks"]) {
      // resolve: gone before DOM.resolveNode (garbage collected); checks:
      // resolved, then detached (ACTIONABLE reads isConnected false).
      const fake = replacedPage(kind, [101, 104]);
      if (detachedAt === "resolve") fake.page.exists.delete(101);
      fake.page.connected.delete(101);
      const { c } = makeController(fake);
      assert.deepEqual(await c.run(TAB, action), { ok: true }, detachedAt);
      assert.equal(fake.lookups(), 2, detachedAt);
      const presses = fake.calls.filter((x) => x[0] === "Input.dispatchMouseEvent");
      assert.equal(presses.length, 3, detachedAt);
      assert.equal(fake.page.lastBox, 104, `${detachedAt}: the new element was aimed at`);
    }
  });
}

test("a role target removed after every lookup times out saying so, within its budget", async () => {
  const fake = replacedPage("role", [101]);
  fake.page.connected.delete(101);
  const { c } = makeController(fake);
  const action = { type: "click", role: "button", name: "Pay now" };
  await rejectsWith(c.run(TAB, action, budgetFor(action, 800)), "timeout", /^role button named "Pay now" is no longer in the page \(removed each time after it was found\) \(waited \d+ ms/);
  assert.ok(fake.lookups() >= 2, `looked up ${fake.lookups()} times: once more after the removal at least`);
  assert.equal(methods(fake.calls).includes("Input.dispatchMouseEvent"), false);
});

test("click waits for a moving target to stand still", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  // Each probe reads the content quads twice, after the scroll and with
  // the page-side checks: the click waits until two reads agree.
  const at = (x) => [[x, 10, x + 20, 10, x + 20, 20, x, 20]];
  let moves = 3;
  fake.page.quadsFor = () => (moves-- > 0 ? at(10 + moves * 5) : at(10));
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0" }), { ok: true });
  assert.ok(moves < 0, "clicked while it moved");
  const action = { type: "click", uid: "e0" };
  // Always more than 1 px from the last read: within 1 px reads as still.
  let x = 10;
  fake.page.quadsFor = () => at((x += 5));
  await rejectsWith(c.run(TAB, action, budgetFor(action, 800)), "timeout", /not stable/);
});

test("the stability check compares the hit-target box with itself: an inline link whose line box differs from its quads is clicked at once", async () => {
  // An <a> around an <img> with whitespace about it: its border box is
  // the link's own line box (17 px, the font's), its content quads the
  // image (40 px) and the trailing space; neither moves.
  const fake = fakeTab({
    "DOM.getBoxModel": () => ({ model: { width: 124, height: 17, border: [22, 42, 146, 42, 146, 59, 22, 59] } }),
    "DOM.getContentQuads": () => ({ quads: [[22, 16, 142, 16, 142, 56, 22, 56], [142, 42, 146, 42, 146, 59, 142, 59]] }),
  });
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0" }), { ok: true });
  assert.equal(fake.calls.filter((x) => x[0] === "DOM.getContentQuads").length, 2, "one probe, no retries: two reads of the same box");
  const down = fake.calls.find((x) => x[0] === "Input.dispatchMouseEvent" && x[1].type === "mousePressed")[1];
  assert.deepEqual([down.x, down.y], [82, 36], "aimed at the image's centre, the first quad");
});

test("an animating target is clicked once two frames show it still, never on a tab that draws no frames", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  const answers = [false, "no frames", true];
  fake.page.stable = () => answers.shift();
  assert.deepEqual(await c.run(TAB, { type: "click", uid: "e0" }), { ok: true });
  assert.equal(answers.length, 0, "clicked before the probe said stable");
  fake.page.stable = () => "no frames";
  const action = { type: "click", uid: "e0" };
  await rejectsWith(c.run(TAB, action, budgetFor(action, 800)), "timeout", /animating, in a tab that draws no frames/);
});

test("during evaluate, alerts are accepted and confirms/prompts dismissed", async () => {
  let answer;
  const fake = fakeTab({
    "Runtime.evaluate": (p) =>
      new Promise((resolve) => {
        if (!p.expression.includes("confirm")) return resolve({ result: { type: "undefined" } });
        answer = resolve;
        c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "alert", message: "hi" });
        c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "confirm", message: "sure?" });
        c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "prompt", message: "name?" });
        c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "beforeunload", message: "" });
        setTimeout(() => answer({ result: { type: "boolean", value: false } }), 5);
      }),
  });
  const { c, events } = makeController(fake);
  const res = await c.run(TAB, { type: "evaluate", expression: "alert('hi'); return confirm('sure?')" });
  assert.deepEqual(res, { type: "boolean", value: false });
  const answers = fake.calls.filter((x) => x[0] === "Page.handleJavaScriptDialog").map((x) => x[1].accept);
  assert.deepEqual(answers, [true, false, false, true]);
  assert.deepEqual(events, [], "no dialog_opened event for dialogs the evaluate raised");
  assert.equal(c.sessions.get(TAB).evaluating, false, "evaluateInProgress cleared");
});

for (const managed of [true, false]) {
  test(`${managed ? "managed" : "user"} browser: a dialog outside evaluate is left open, the raising action and later ones fail at once naming it, handle_dialog answers it`, async () => {
    const fake = fakeTab({
      "Input.dispatchMouseEvent": (p) => {
        if (p.type !== "mouseReleased") return {};
        // The renderer is blocked by the dialog: this call never answers.
        setTimeout(() => c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "alert", message: "Are you sure?" }), 1);
        return new Promise(() => {});
      },
    });
    const { c, events } = makeController(fake, { managed });
    await c.run(TAB, { type: "extract" });
    const e1 = await rejectsWith(
      c.run(TAB, { type: "click", uid: "e0" }),
      "invalid_action",
      /^an alert "Are you sure\?" is open on tab 7 \(it opened during click\): answer it with handle_dialog, or set dialogs: accept or dismiss in a flow \(or on a navigate, reload, go_back, go_forward or close_tab, which answers it and leaves the page\)$/,
    );
    assert.equal(e1.reason, "dialog_opened");
    assert.equal(c.hasOpenDialog(TAB), true);
    assert.deepEqual(events, [{ type: "dialog_opened", tabId: TAB, dialogType: "alert", message: "Are you sure?" }]);
    const before = fake.calls.length;
    const e2 = await rejectsWith(c.run(TAB, { type: "press_key", key: "Enter" }), "invalid_action", /^an alert "Are you sure\?" is open on tab 7, so press_key did not run: answer it with handle_dialog/);
    assert.equal(e2.reason, "dialog_open");
    assert.equal(fake.calls.length, before, "no CDP call while the dialog is open");
    assert.equal(methods(fake.calls).includes("Page.handleJavaScriptDialog"), false, "left for the caller to answer");
    assert.deepEqual(await c.run(TAB, { type: "handle_dialog", accept: true }), { ok: true, dialogType: "alert", message: "Are you sure?", accepted: true });
    assert.deepEqual(fake.calls.find((x) => x[0] === "Page.handleJavaScriptDialog")[1], { accept: true });
    assert.equal(c.hasOpenDialog(TAB), false);
    assert.deepEqual(await c.run(TAB, { type: "press_key", key: "Enter" }), { ok: true });
  });
}

test("an action a dialog or the caller ended leaves no timer armed behind it", async () => {
  // Real timers, counted: the click's work never answers, and the deadline
  // over it must go with the action, not 29 s later.
  const armed = new Set();
  const timers = {
    setTimeout(fn, ms) {
      const id = setTimeout(() => {
        armed.delete(id);
        fn();
      }, ms);
      armed.add(id);
      return id;
    },
    clearTimeout(id) {
      armed.delete(id);
      clearTimeout(id);
    },
  };
  const fake = fakeTab({
    "Input.dispatchMouseEvent": (p) => {
      if (p.type !== "mouseReleased") return {};
      setTimeout(() => c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "alert", message: "Hi" }), 1);
      return new Promise(() => {});
    },
    "Input.dispatchKeyEvent": () => new Promise(() => {}),
  });
  const { c } = makeController(fake, { timers });
  await c.run(TAB, { type: "extract" });
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "invalid_action", /it opened during click/);
  assert.equal(armed.size, 0, "the dialog ended the click: its deadline goes too");
  await c.run(TAB, { type: "handle_dialog", accept: true });
  const ac = new AbortController();
  const press = c.run(TAB, { type: "press_key", key: "a" }, budgetFor({ type: "press_key" }, 30000, Date.now(), ac.signal));
  await new Promise((r) => setTimeout(r, 20));
  ac.abort(new BridgeError(ErrorCodes.TIMEOUT, "stopped by the test"));
  await rejectsWith(press, "timeout", /stopped by the test/);
  assert.equal(armed.size, 0, "the caller's abort ended the press: its deadline goes too");
});

test("handle_dialog answers a prompt with its text, and with no dialog open is invalid_action", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await rejectsWith(c.run(TAB, { type: "handle_dialog", accept: true }), "invalid_action", /^no dialog is open on tab 7: there is nothing for handle_dialog to answer$/);
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "prompt", message: "Name?" });
  assert.deepEqual(await c.run(TAB, { type: "handle_dialog", accept: true, promptText: "Ada" }), { ok: true, dialogType: "prompt", message: "Name?", accepted: true });
  assert.deepEqual(fake.calls.find((x) => x[0] === "Page.handleJavaScriptDialog")[1], { accept: true, promptText: "Ada" });
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "confirm", message: "Delete?" });
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogClosed", { result: false });
  await rejectsWith(c.run(TAB, { type: "handle_dialog", accept: false }), "invalid_action", /no dialog is open/);
});

test("a dialog closed by someone else lets actions through again", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake, { managed: false });
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "confirm", message: "" });
  await rejectsWith(c.run(TAB, { type: "press_key", key: "Enter" }), "invalid_action", /^a confirm is open on tab 7, so press_key did not run/);
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogClosed", { result: true });
  assert.deepEqual(await c.run(TAB, { type: "press_key", key: "Enter" }), { ok: true });
});

test("onDetach listeners hear Chrome's detach and the tab's state is dropped", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  const heard = [];
  c.onDetach((tabId, reason) => heard.push([tabId, reason]));
  c.handleDetach({ tabId: TAB }, "canceled_by_user");
  assert.deepEqual(heard, [[TAB, "canceled_by_user"]]);
  assert.equal(c.sessions.get(TAB).uidCache, null);
  await c.run(TAB, { type: "press_key", key: "a" });
  assert.equal(fake.calls.filter((x) => x[0] === "attach").length, 2, "re-attaches on the next action");
});

test("evaluate: throw is invalid_action with the JS message; never-settling promise is timeout", async () => {
  const fake = fakeTab({
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("boom")) {
        return {
          result: { type: "object", subtype: "error" },
          exceptionDetails: { text: "Uncaught", exception: { description: "TypeError: boom is not a function\n    at <anonymous>:2:1" } },
        };
      }
      return {};
    },
  });
  const { c } = makeController(fake);
  const threw = await rejectsWith(c.run(TAB, { type: "evaluate", expression: "boom()" }), "invalid_action", /^TypeError: boom is not a function$/);
  assert.equal(threw.reason, "script_threw", "the page script threw: the hint may blame it");
  assert.match(fake.calls.find((x) => x[0] === "Runtime.evaluate" && x[1].expression.includes("boom"))[1].expression, /^\(\(\) => \{\nboom\(\)\n\}\)\(\)$/);
  const ev = fake.calls.find((x) => x[0] === "Runtime.evaluate" && x[1].expression.includes("boom"))[1];
  assert.equal(ev.awaitPromise, true);
  assert.equal(ev.userGesture, true);
  assert.equal(ev.timeout, 10000);
});

test("evaluate: a body that uses await is sent again wrapped async; any other body, and other SyntaxErrors, once as the spec wraps it", async () => {
  const syntax = (msg) => ({ result: { type: "object", subtype: "error", className: "SyntaxError" }, exceptionDetails: { text: "Uncaught", exception: { className: "SyntaxError", description: `SyntaxError: ${msg}` } } });
  const fake = fakeTab({
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("await") && !p.expression.startsWith("(async ")) return syntax("await is only valid in async functions and the top level bodies of modules");
      if (p.expression.includes("return )")) return syntax("Unexpected token ')'");
      return { result: { type: "number", value: 1 } };
    },
  });
  const { c } = makeController(fake);
  const sent = () => fake.calls.filter((x) => x[0] === "Runtime.evaluate").map((x) => x[1].expression);
  assert.deepEqual(await c.run(TAB, { type: "evaluate", expression: "return await 1" }), { type: "number", value: 1 });
  assert.deepEqual(sent().slice(-2), ["(() => {\nreturn await 1\n})()", "(async () => {\nreturn await 1\n})()"]);
  const before = sent().length;
  assert.deepEqual(await c.run(TAB, { type: "evaluate", expression: "return 1" }), { type: "number", value: 1 });
  assert.deepEqual(sent().slice(before), ["(() => {\nreturn 1\n})()"]);
  const again = sent().length;
  await rejectsWith(c.run(TAB, { type: "evaluate", expression: "return )" }), "invalid_action", /^SyntaxError: Unexpected token '\)'$/);
  assert.equal(sent().length - again, 1);
});

test("evaluate: own clock terminates a hung evaluate with timeout", async () => {
  // Fake timers: the test fires evaluate's own clock (10 s and its slack)
  // once it is armed, with the controller's watchdog (59.5 s) still
  // pending, however long a loaded machine takes to get there.
  const timers = createFakeTimers();
  const fake = fakeTab({
    "Runtime.evaluate": (p) => (p.expression.includes("never") ? new Promise(() => {}) : {}),
  });
  const { c } = makeController(fake, { timers });
  const action = { type: "evaluate", expression: "return new Promise(() => {}) // never" };
  const ran = c.run(TAB, action, budgetFor(action, 60000));
  ran.catch(() => {});
  const own = () => timers.list("timeout").find((t) => t.ms > 10000 && t.ms < 20000);
  for (let i = 0; !own() && i < 1000; i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(own(), `evaluate's own clock is armed: ${JSON.stringify(timers.list())}`);
  assert.ok(timers.list("timeout").some((t) => t.ms > 50000), "the watchdog is armed behind it");
  timers.fire(own().id);
  await rejectsWith(ran, "timeout", /within 10000 ms/);
  assert.ok(methods(fake.calls).includes("Runtime.terminateExecution"));
  assert.equal(c.sessions.get(TAB).evaluating, false);
});

test("evaluate result shapes", async () => {
  const ser = (json) => async () => json;
  assert.deepEqual(await shapeResult({ type: "string", value: "hi" }, ser()), { type: "string", value: "hi" });
  assert.deepEqual(await shapeResult({ type: "number", value: 3 }, ser()), { type: "number", value: 3 });
  assert.deepEqual(await shapeResult({ type: "boolean", value: false }, ser()), { type: "boolean", value: false });
  assert.deepEqual(await shapeResult({ type: "undefined" }, ser()), { type: "undefined" });
  assert.deepEqual(await shapeResult({ type: "number", unserializableValue: "NaN", description: "NaN" }, ser()), { type: "number", description: "NaN" });
  assert.deepEqual(await shapeResult({ type: "bigint", unserializableValue: "5n", description: "5n" }, ser()), { type: "bigint", description: "5n" });
  assert.deepEqual(await shapeResult({ type: "object", subtype: "null", value: null }, ser()), { type: "object", value: null });
  assert.deepEqual(await shapeResult({ type: "object", objectId: "o", className: "Object" }, ser('{"a":[1,2]}')), { type: "object", value: { a: [1, 2] } });
  assert.deepEqual(await shapeResult({ type: "object", subtype: "node", objectId: "o", description: "div#main" }, ser("{}")), { type: "object", description: "div#main" });
  assert.deepEqual(await shapeResult({ type: "object", subtype: "map", objectId: "o", description: "Map(1)" }, ser("{}")), { type: "object", description: "Map(1)" });
  assert.deepEqual(await shapeResult({ type: "function", objectId: "o", description: "() => 1" }, ser()), { type: "function", description: "() => 1" });
  const circular = await shapeResult({ type: "object", objectId: "o", description: "Object" }, async () => {
    throw new Error("Converting circular structure to JSON");
  });
  assert.deepEqual(circular, { type: "object", description: "Object" });

  const big = "x".repeat(10000);
  const s = await shapeResult({ type: "string", value: big }, ser());
  assert.equal(s.truncated, true);
  assert.equal(s.value, undefined);
  assert.equal(s.preview, JSON.stringify(big).slice(0, 8192) + "…[truncated 1810 chars]");
  const arr = JSON.stringify(Array.from({ length: 3000 }, (_, i) => i));
  const o = await shapeResult({ type: "object", subtype: "array", objectId: "o" }, ser(arr));
  assert.equal(o.truncated, true);
  assert.ok(o.preview.startsWith("[0,1,2,"));
  assert.ok(o.preview.endsWith(`…[truncated ${arr.length - 8192} chars]`));
  assert.equal(wrapExpression("return 1 // c"), "(() => {\nreturn 1 // c\n})()");
});

test("the page's read gets each element's backendNodeId from its deep-serialized node", () => {
  const read = { found: true, elements: [{ role: "combobox", name: "Plan", visible: true }, { role: "option", name: "Free", visible: true, selected: true, parent: 0 }] };
  const deep = {
    type: "array",
    value: [{ type: "string", value: JSON.stringify(read) }, { type: "node", value: { backendNodeId: 7 } }, { type: "node", value: { backendNodeId: 9 } }],
  };
  const page = readValue(deep);
  assert.deepEqual(page.elements.map((e) => e.backendNodeId), [7, 9]);
  const { elements, uids } = toElements(page.elements);
  assert.deepEqual(elements, [
    { uid: "e0", role: "combobox", name: "Plan", visible: true },
    { uid: "e1", role: "option", name: "Free", visible: true, selected: true, parent: "e0" },
  ]);
  assert.deepEqual([...uids], [["e0", { session: null, id: 7 }], ["e1", { session: null, id: 9 }]]);

  const short = { type: "array", value: [deep.value[0], deep.value[1]] };
  assert.throws(() => readValue(short), /no backend node for element 1/);
  assert.throws(() => readValue({ type: "array", value: [] }), /read nothing/);
});

test("element states: checked false and expanded false are kept, a parent never points forward", () => {
  const { elements } = toElements([
    { role: "checkbox", name: "a", visible: true, checked: false, backendNodeId: 1 },
    { role: "checkbox", name: "b", visible: true, checked: "mixed", disabled: true, backendNodeId: 2 },
    { role: "button", name: "c", visible: false, expanded: false, backendNodeId: 3 },
    { role: "option", name: "d", visible: true, parent: 5, backendNodeId: 4 },
  ]);
  assert.deepEqual(elements.map((e) => [e.checked, e.disabled, e.expanded, e.parent]), [
    [false, undefined, undefined, undefined],
    ["mixed", true, undefined, undefined],
    [undefined, undefined, false, undefined],
    [undefined, undefined, undefined, undefined],
  ]);
});

test("maxElements defaults to 200 and is capped at 5000", () => {
  assert.equal(maxElementsOf({}), 200);
  assert.equal(maxElementsOf({ maxElements: 1000 }), 1000);
  assert.equal(maxElementsOf({ maxElements: 9000 }), 5000);
});

test("the extract page script parses, whatever the selector's quotes", () => {
  assert.doesNotThrow(() => new Function(`return ${buildPageScript(undefined)}`));
  assert.doesNotThrow(() => new Function(`return ${buildPageScript("a[href*='x\"y']")}`));
  assert.doesNotThrow(() => new Function(`return ${buildPageScript(undefined, { final: true })}`));
});

// flush lets pending promise chains (CDP replies, awaits) run.
const flush = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test("reload waits for the new document's load, not a late event of the old one, and makes uids stale", async () => {
  const fake = fakeTab({
    "Page.reload": () => {
      setTimeout(() => {
        // a late load of the old document must not end the wait
        c.handleDebuggerEvent({ tabId: TAB }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L1", name: "load" });
        fake.page.loaderId = "L2";
        c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } });
      }, 2);
      setTimeout(() => {
        c.handleDebuggerEvent({ tabId: TAB }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "load" });
      }, 15);
      return {};
    },
  });
  const { c } = makeController(fake);
  await c.run(TAB, { type: "extract" });
  let settled = false;
  const p = c.run(TAB, { type: "reload" }).finally(() => (settled = true));
  await new Promise((r) => setTimeout(r, 8));
  assert.equal(settled, false, "the old document's load does not count");
  assert.deepEqual(await p, { ok: true });
  assert.ok(methods(fake.calls).includes("Page.reload"));
  await rejectsWith(c.run(TAB, { type: "click", uid: "e0" }), "element_stale", /no extract since it last loaded/);
});

test("reload resolves on DOMContentLoaded when load never comes, just before the budget ends", async () => {
  mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  try {
    const fake = fakeTab({
      "Page.reload": () => {
        fake.page.loaderId = "L2";
        c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" } });
        c.handleDebuggerEvent({ tabId: TAB }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" });
        return {};
      },
    });
    const { c } = makeController(fake);
    let out;
    const p = c.run(TAB, { type: "reload" }, budgetFor({ type: "reload" }, 4000 + REPLY_MARGIN_MS, 0)).then((r) => (out = r), (e) => (out = e));
    for (let t = 0; t < 3700; t += 100) {
      await flush();
      mock.timers.tick(100);
    }
    await flush();
    assert.equal(out, undefined, "still waiting for load at 3.7 s of a 4 s budget");
    for (let t = 0; t < 400; t += 50) {
      mock.timers.tick(50);
      await flush();
    }
    await p;
    assert.deepEqual(out, { ok: true });
  } finally {
    mock.timers.reset();
  }
});

test("a navigate with deadlineMs 50 s is not cut at 25 or 28 s", async () => {
  mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  try {
    const fake = fakeTab({ "Page.navigate": () => ({ frameId: "MAIN", loaderId: "L9" }) });
    const { c } = makeController(fake);
    const action = { type: "navigate", url: "http://slow.test/" };
    let out;
    const p = c.run(TAB, action, budgetFor(action, 50000, 0)).then((r) => (out = r), (e) => (out = e));
    for (let t = 0; t < 40000; t += 500) {
      await flush(5);
      mock.timers.tick(500);
    }
    await flush();
    assert.equal(out, undefined, `still loading at 40 s, got ${out && out.message}`);
    c.handleDebuggerEvent({ tabId: TAB }, "Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L9", name: "load" });
    await flush();
    await p;
    assert.deepEqual(out, { ok: true });
  } finally {
    mock.timers.reset();
  }
});

test("a navigate that never loads fails timeout inside its budget", async () => {
  mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  try {
    const fake = fakeTab({ "Page.navigate": () => ({ frameId: "MAIN", loaderId: "L9" }) });
    const { c } = makeController(fake);
    const action = { type: "navigate", url: "http://never.test/" };
    let out;
    let at;
    const p = c.run(TAB, action, budgetFor(action, 2000 + REPLY_MARGIN_MS, 0)).then((r) => (out = r), (e) => (out = e)).finally(() => (at = Date.now()));
    for (let t = 0; t < 2000; t += 100) {
      await flush(5);
      mock.timers.tick(100);
    }
    await flush();
    await p;
    assert.ok(out instanceof BridgeError && out.code === "timeout", String(out));
    assert.match(out.message, /http:\/\/never\.test\/ did not load within 1750 ms/);
    assert.ok(at < 2000, `answered at ${at} ms, before the 2 s action budget ended`);
  } finally {
    mock.timers.reset();
  }
});

test("wait_for and evaluate take their inner timeouts from the budget", async () => {
  const fake = fakeTab({
    "Runtime.evaluate": (p) => (p.expression.includes("querySelector") ? { result: { type: "object", value: { ok: false, seen: "no element matches" } } } : { result: { type: "undefined" } }),
  });
  const { c } = makeController(fake);
  const w = { type: "wait_for", selector: "#never", timeoutMs: 60000 };
  await rejectsWith(c.run(TAB, w, budgetFor(w, 750 + REPLY_MARGIN_MS)), "timeout", /^selector "#never" still not visible after (4\d\d|500) ms \(no element matches\)$/);
  const e = { type: "evaluate", expression: "return 1" };
  await c.run(TAB, e, budgetFor(e, 3000 + REPLY_MARGIN_MS));
  const sent = fake.calls.filter((x) => x[0] === "Runtime.evaluate" && x[1].expression.includes("return 1")).at(-1)[1];
  assert.ok(sent.timeout <= 3000 - 250 && sent.timeout > 2500, `CDP timeout ${sent.timeout}`);
});

test("scroll reports whether the page moved", async () => {
  let moved = false;
  const fake = fakeTab({
    "Runtime.evaluate": (p) => (p.expression.includes("scrollBy") ? { result: { type: "boolean", value: moved } } : { result: { type: "undefined" } }),
  });
  const { c } = makeController(fake);
  assert.deepEqual(await c.run(TAB, { type: "scroll", direction: "up" }), { ok: true, scrolled: false });
  moved = true;
  assert.deepEqual(await c.run(TAB, { type: "scroll", direction: "down" }), { ok: true, scrolled: true });
});

test("an action with no tab executor is invalid_action", async () => {
  const fake = fakeTab();
  const { c } = makeController(fake);
  await rejectsWith(c.run(TAB, { type: "get_tabs" }), "invalid_action", /not a per-tab action/);
  await rejectsWith(c.run(TAB, { type: "drag" }), "invalid_action");
  assert.equal(fake.calls.length, 0, "nothing attached");
});

test("a click that starts a navigation returns once the new document reached DOMContentLoaded", async () => {
  let fire;
  const fake = fakeTab({
    "Input.dispatchMouseEvent": (p) => {
      if (p.type === "mouseReleased") fire("Page.frameRequestedNavigation", { frameId: "MAIN", reason: "anchorClick", url: "http://site.test/slow" });
      return {};
    },
  });
  const { c } = makeController(fake);
  fire = (m, p) => c.handleDebuggerEvent({ tabId: TAB }, m, p);
  await c.run(TAB, { type: "extract" });
  let done = false;
  const click = c.run(TAB, { type: "click", uid: "e0" }).then((r) => ((done = true), r));
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(done, false, "returned before the new document committed");
  fire("Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2" }, type: "Navigation" });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(done, false, "returned before DOMContentLoaded");
  fire("Page.lifecycleEvent", { frameId: "MAIN", loaderId: "L2", name: "DOMContentLoaded" });
  assert.deepEqual(await click, { ok: true });
  // The settle task ran in the page after the input.
  const order = methods(fake.calls).filter((m) => m === "Input.dispatchMouseEvent" || m === "Runtime.evaluate");
  assert.equal(order.at(-1), "Runtime.evaluate");
});

test("a click whose navigation never commits fails timeout; one that is cancelled returns", async () => {
  let fire;
  const fake = fakeTab({
    "Input.dispatchMouseEvent": (p) => {
      if (p.type === "mouseReleased") fire("Page.frameStartedLoading", { frameId: "MAIN" });
      return {};
    },
  });
  const { c } = makeController(fake);
  fire = (m, p) => c.handleDebuggerEvent({ tabId: TAB }, m, p);
  await c.run(TAB, { type: "extract" });
  const action = { type: "click", uid: "e0" };
  await rejectsWith(c.run(TAB, action, budgetFor(action, 800)), "timeout", /click started a navigation whose page never committed/);
  const cancelled = c.run(TAB, { type: "click", uid: "e0" });
  await new Promise((r) => setTimeout(r, 20));
  fire("Page.frameStoppedLoading", { frameId: "MAIN" }); // a download or a 204
  assert.deepEqual(await cancelled, { ok: true });
});

test("a navigation in a child frame or within the document does not hold the click", async () => {
  let fire;
  const fake = fakeTab({
    "Input.dispatchMouseEvent": (p) => {
      if (p.type === "mouseReleased") {
        fire("Page.frameRequestedNavigation", { frameId: "CHILD", reason: "anchorClick", url: "http://ads.test/" });
        fire("Page.navigatedWithinDocument", { frameId: "MAIN", url: "http://site.test/#/next" });
      }
      return {};
    },
  });
  // On timers that never fire, a click held for a navigation would never
  // answer (its only ends are the commit and its deadline), so any bound
  // on the answer tells, however loaded the machine.
  const { c } = makeController(fake, { timers: createFakeTimers() });
  fire = (m, p) => c.handleDebuggerEvent({ tabId: TAB }, m, p);
  await c.run(TAB, { type: "extract" });
  let bound;
  const held = new Promise((resolve) => {
    bound = setTimeout(() => resolve("held"), 5000);
  });
  // It answers at once, saying where the tab went within the document.
  assert.deepEqual(await Promise.race([c.run(TAB, { type: "click", uid: "e0" }), held]), { ok: true, url: "http://site.test/#/next" });
  clearTimeout(bound);
  assert.deepEqual(await c.run(TAB, { type: "press_key", key: "Enter" }), { ok: true });
});

test("aimPoint takes the first content quad with an area, else the border box's centre", async () => {
  const { aimPoint } = await import("../src/input/geometry.js");
  const border = [0, 0, 100, 0, 100, 40, 0, 40];
  // An inline link wrapped over two lines: two quads; the box's centre
  // (50, 20) lies between them.
  const quads = [[0, 0, 0, 0, 0, 0, 0, 0], [60, 0, 100, 0, 100, 10, 60, 10], [0, 30, 30, 30, 30, 40, 0, 40]];
  assert.deepEqual(aimPoint(border, quads), { x: 80, y: 5 });
  assert.deepEqual(aimPoint(border, []), { x: 50, y: 20 });
  assert.deepEqual(aimPoint(border, null), { x: 50, y: 20 });
});

test("committedUrl follows the attached main frame and is null when detached", async () => {
  const fake = fakeTab({
    "Page.getFrameTree": () => ({ frameTree: { frame: { id: "MAIN", loaderId: "L1", url: "http://a.test/" }, childFrames: [] } }),
  });
  const { c } = makeController(fake);
  assert.equal(c.committedUrl(TAB), null, "never attached");
  await c.run(TAB, { type: "press_key", key: "a" });
  assert.equal(c.committedUrl(TAB), "http://a.test/");
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "CHILD", parentId: "MAIN", loaderId: "C1", url: "http://ads.test/" } });
  assert.equal(c.committedUrl(TAB), "http://a.test/", "a child frame is not the tab's page");
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2", url: "http://b.test/" } });
  assert.equal(c.committedUrl(TAB), "http://b.test/");
  c.handleDetach({ tabId: TAB }, "target_closed");
  assert.equal(c.committedUrl(TAB), null);
});

test("prepare attaches ahead of the first action, which retries a failed early attach", async () => {
  const opts = { attachError: "Cannot access a chrome:// URL" };
  const fake = fakeTab({}, opts);
  const { c } = makeController(fake);
  c.prepare(TAB);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(fake.calls.filter((x) => x[0] === "attach").length, 1, "attached before any action");
  opts.attachError = undefined; // the tab has moved on to a page the debugger may attach to
  await c.run(TAB, { type: "press_key", key: "a" });
  assert.equal(fake.calls.filter((x) => x[0] === "attach").length, 2, "the action attached again");

  const ok = fakeTab();
  const { c: c2 } = makeController(ok);
  c2.prepare(TAB);
  await c2.run(TAB, { type: "press_key", key: "a" });
  c2.prepare(TAB); // already attached: nothing more
  assert.equal(ok.calls.filter((x) => x[0] === "attach").length, 1, "one attach serves both");
});

test("a command cut short by a detach answers as the tab's new state would", async () => {
  const cases = [
    { name: "on its way to chrome://", tab: { url: "https://a.test/", pendingUrl: "chrome://version/" }, code: ErrorCodes.DEBUGGER_ATTACH_FAILED, reason: "restricted_page", re: /chrome:\/\//, hint: /http\(s\) page/ },
    { name: "on the Web Store", tab: { url: "https://chromewebstore.google.com/detail/x" }, code: ErrorCodes.DEBUGGER_ATTACH_FAILED, reason: "restricted_page", re: /Web Store/ },
    { name: "closed", tab: null, code: ErrorCodes.TAB_NOT_FOUND },
    { name: "detached by someone else", tab: { url: "https://a.test/" }, code: ErrorCodes.INTERNAL_ERROR, re: /detached from tab .* during Runtime\.evaluate/ },
  ];
  for (const k of cases) {
    const fake = fakeTab({
      "Runtime.evaluate": (p) => {
        if (p.expression !== WEBDRIVER_SHIM) throw new Error("Detached while handling command.");
        return { result: { type: "undefined" } };
      },
    });
    fake.chromeApi.tabs = { get: async () => (k.tab ? k.tab : Promise.reject(new Error("No tab with id"))) };
    const { c } = makeController(fake);
    await assert.rejects(c.run(TAB, { type: "evaluate", expression: "1" }), (e) => {
      assert.ok(e instanceof BridgeError, `${k.name}: ${e && e.stack}`);
      assert.equal(e.code, k.code, `${k.name}: ${e.message}`);
      if (k.reason) assert.equal(e.reason, k.reason, k.name);
      if (k.re) assert.match(e.message, k.re, k.name);
      if (k.hint) assert.match(e.message, k.hint, k.name);
      return true;
    });
    assert.equal(fake.calls.filter((x) => x[0] === "attach").length, 1, `${k.name}: attached again after the detach`);
  }
});

// fakeWebRequest stands in for chrome.webRequest's two events: listeners
// with their filters, and fire(), which calls those whose tabId matches.
function fakeWebRequest() {
  const make = () => {
    const ls = new Map();
    return {
      ls,
      addListener: (fn, filter) => ls.set(fn, filter),
      removeListener: (fn) => ls.delete(fn),
      fire: (d) => {
        for (const [fn, f] of ls) if (f.tabId === d.tabId) fn(d);
      },
    };
  };
  return { onCompleted: make(), onErrorOccurred: make() };
}

test("the trace: page events, failed requests and bua's actions land in the tab's ring, typed text never", async () => {
  const fake = fakeTab({ "Runtime.evaluate": pageQuery(), "DOM.describeNode": (p) => ({ node: { backendNodeId: Number(p.objectId.slice(4)) } }) });
  const wr = fakeWebRequest();
  fake.chromeApi.webRequest = wr;
  const { c } = makeController(fake);
  await c.run(TAB, { type: "type", selector: "#go", text: "hunter2-TYPED" });
  assert.equal(methods(fake.calls).includes("Network.enable"), false, "requests come from webRequest, not the Network domain");
  assert.deepEqual([...wr.onCompleted.ls.values()], [{ urls: ["<all_urls>"], tabId: TAB }], "listened to for this tab only");
  assert.deepEqual([...wr.onErrorOccurred.ls.values()], [{ urls: ["<all_urls>"], tabId: TAB }]);
  c.handleDebuggerEvent({ tabId: TAB }, "Runtime.consoleAPICalled", { type: "error", args: [{ type: "string", value: "boom" }] });
  c.handleDebuggerEvent({ tabId: 99 }, "Runtime.consoleAPICalled", { type: "log", args: [{ type: "string", value: "other tab" }] });
  wr.onCompleted.fire({ tabId: TAB, url: "http://site.test/ok", method: "GET", statusCode: 200 });
  wr.onCompleted.fire({ tabId: TAB, url: "http://site.test/api", method: "POST", statusCode: 500 });
  wr.onErrorOccurred.fire({ tabId: 99, url: "http://other.test/", method: "GET", error: "net::ERR_FAILED" });
  await rejectsWith(c.run(TAB, { type: "click", selector: "#nope" }), "element_not_found");
  const got = await c.run(TAB, { type: "get_trace", sinceSeq: 0 });
  assert.deepEqual(
    got.events.map(({ seq, kind, action, level, text, code, status }) => ({ seq, kind, action, level, text, code, status })),
    [
      { seq: 1, kind: "action", action: "type", level: undefined, text: undefined, code: undefined, status: undefined },
      { seq: 2, kind: "console", action: undefined, level: "error", text: "boom", code: undefined, status: undefined },
      { seq: 3, kind: "request", action: undefined, level: undefined, text: undefined, code: undefined, status: 500 },
      { seq: 4, kind: "action", action: "click", level: undefined, text: undefined, code: "element_not_found", status: undefined },
    ],
  );
  assert.ok(got.events.every((e) => typeof e.t === "number" && e.t > 0));
  assert.ok(got.events[0].durationMs >= 0);
  assert.equal(got.nextSeq, 5);
  assert.equal(got.dropped, 0);
  assert.equal(JSON.stringify(got).includes("hunter2"), false, "typed text never reaches the trace");
  assert.deepEqual((await c.run(TAB, { type: "get_trace", sinceSeq: 4 })).events.map((e) => e.seq), [4]);
  assert.equal((await c.run(TAB, { type: "get_trace" })).nextSeq, 5, "get_trace itself is not traced");
  // The ring outlives a detach, which stops the request listeners; it goes with the tab.
  c.handleDetach({ tabId: TAB }, "canceled_by_user");
  assert.equal(wr.onCompleted.ls.size + wr.onErrorOccurred.ls.size, 0, "no listener left for a detached tab");
  assert.equal((await c.run(TAB, { type: "get_trace" })).events.length, 4);
  c.forgetTab(TAB);
  assert.deepEqual(await c.run(TAB, { type: "get_trace" }), { events: [], nextSeq: 1, dropped: 0 });
});

test("get_trace neither attaches nor waits for an open dialog", async () => {
  const fresh = fakeTab();
  const { c: c1 } = makeController(fresh);
  assert.deepEqual(await c1.run(TAB, { type: "get_trace" }), { events: [], nextSeq: 1, dropped: 0 });
  assert.deepEqual(fresh.calls, [], "no attach, no CDP call");

  const fake = fakeTab();
  const { c } = makeController(fake, { managed: false });
  await c.run(TAB, { type: "press_key", key: "a" });
  c.handleDebuggerEvent({ tabId: TAB }, "Page.javascriptDialogOpening", { type: "prompt", message: "Your name?" });
  await rejectsWith(c.run(TAB, { type: "press_key", key: "b" }), "invalid_action", /prompt "Your name\?" is open on tab/);
  const got = await c.run(TAB, { type: "get_trace" });
  assert.deepEqual(got.events.map((e) => [e.kind, e.level, e.text, e.code]), [
    ["action", undefined, undefined, undefined],
    ["dialog", "prompt", "Your name?", undefined],
    ["action", undefined, undefined, "invalid_action"],
  ]);
});
