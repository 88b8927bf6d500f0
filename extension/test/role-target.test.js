import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { BridgeError, ErrorCodes } from "../src/core/errors.js";
import { describeRoleTarget, findByRole, normalizeName, parseName, queryRole } from "../src/target/role-target.js";
import { executors as waitExecutors } from "../src/actions/wait.js";
import { budgetFor } from "../src/core/budget.js";

// fakeCtx answers the CDP commands a role lookup sends: Runtime.evaluate of
// the document, Accessibility.queryAXTree (from nodes(), called per query
// so a test can change the page between polls) and DOM.describeNode.
const DOC_EXPR = "document.visibilityState === 'hidden' ? null : document";

function fakeCtx(nodes, described = {}, { hidden = false } = {}) {
  const sent = [];
  const ctx = {
    sent,
    budget: budgetFor({ type: "wait_for", timeoutMs: 2000 }, 5000),
    sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    async send(method, params) {
      sent.push({ method, params });
      // wait_for's probe of "no element" evaluates PROBE with null.
      if (method === "Runtime.evaluate" && params.expression !== DOC_EXPR) return { result: { value: { ok: false, seen: "no element matches" } } };
      if (method === "Runtime.evaluate") return { result: hidden ? { type: "object", subtype: "null" } : { type: "object", objectId: "doc-1" } };
      if (method === "Accessibility.getFullAXTree") {
        if (!hidden) throw new Error("getFullAXTree on a shown page");
        return { nodes: nodes({}) };
      }
      if (method === "DOM.resolveNode") return { object: { objectId: `node-${params.backendNodeId}` } };
      if (method === "Runtime.callFunctionOn") return { result: { value: { ok: true, seen: "it is visible" } } };
      if (method === "Accessibility.queryAXTree") {
        // As Chromium does: accessibleName keeps only nodes whose raw name is it.
        const all = nodes(params);
        return { nodes: params.accessibleName === undefined ? all : all.filter((n) => n.name && n.name.value === params.accessibleName) };
      }
      if (method === "DOM.describeNode") return { node: described[params.backendNodeId] || { localName: "button", attributes: [] } };
      throw new Error(`unexpected ${method}`);
    },
  };
  return ctx;
}

const ax = (id, role, name, extra = {}) => ({ nodeId: String(id), backendDOMNodeId: id, ignored: false, role: { type: "role", value: role }, name: { type: "computedString", value: name }, ...extra });

function assertCode(err, code, re) {
  assert.ok(err instanceof BridgeError, `want a BridgeError, got ${err}`);
  assert.equal(err.code, code, err.message);
  if (re) assert.match(err.message, re);
  return true;
}

test("parseName reads /pattern/flags as a RegExp and anything else as an exact name", () => {
  assert.deepEqual(parseName("Sign in"), { exact: "Sign in" });
  assert.deepEqual(parseName(undefined), { any: true });
  const { regex } = parseName("/^sign in$/i");
  assert.ok(regex instanceof RegExp);
  assert.equal(regex.flags, "i");
  assert.ok(regex.test("Sign In"));
  assert.throws(() => parseName("/(/"), (e) => assertCode(e, ErrorCodes.INVALID_ACTION, /not a valid regular expression/));
  assert.throws(() => parseName("/a/q"), (e) => assertCode(e, ErrorCodes.INVALID_ACTION, /name \/a\/q/));
});

// The syntax's one statement, shared with pkg/roletarget (TestNameVectors
// reads the same file): each name, exact or /pattern/flags.
function nameVectors() {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "go.mod"))) dir = dirname(dir); // the repository's root
  return JSON.parse(readFileSync(join(dir, "testdata", "roletarget", "names.json"), "utf8")).names;
}

test("parseName meets testdata/roletarget/names.json, as Go's ParseName does", () => {
  const vectors = nameVectors();
  assert.ok(vectors.length >= 15, `only ${vectors.length} vectors`);
  for (const v of vectors) {
    if (!v.regex) {
      assert.deepEqual(parseName(v.name), { exact: v.name }, v.why);
    } else if (!v.compiles) {
      assert.throws(() => parseName(v.name), (e) => assertCode(e, ErrorCodes.INVALID_ACTION, /is not a valid regular expression/), v.why);
    } else {
      const { regex } = parseName(v.name);
      const want = new RegExp(v.pattern, v.flags);
      assert.equal(regex.source, want.source, v.why);
      assert.equal(regex.flags, want.flags, v.why);
    }
  }
});

test("names compare after whitespace is collapsed, as Playwright compares them", () => {
  assert.equal(normalizeName("  Hello \n  world "), "Hello world");
});

test("describeRoleTarget quotes an exact name and shows a regex as written", () => {
  assert.equal(describeRoleTarget({ role: "button", name: "Sign in" }), 'role button named "Sign in"');
  assert.equal(describeRoleTarget({ role: "link", name: "/docs/i", nth: 2 }), "role link named /docs/i (nth 2)");
  assert.equal(describeRoleTarget({ role: "textbox" }), "role textbox");
});

test("queryRole asks for the role, skips ignored nodes and compares names with whitespace collapsed", async () => {
  const ctx = fakeCtx(() => [
    ax(1, "button", " Hello "),
    ax(2, "button", "Hello", { ignored: true }),
    ax(3, "button", "Hallo"),
    { nodeId: "4", ignored: false, role: { value: "button" }, name: { value: "Hello" } }, // no DOM node
    ax(5, "button", "Help"),
  ]);
  const exact = await queryRole(ctx, { role: "button", name: "Hello" });
  assert.deepEqual(exact.map((m) => m.backendNodeId), [1]);
  const re = await queryRole(ctx, { role: "button", name: "/^H[ae]llo$/" });
  assert.deepEqual(re.map((m) => m.backendNodeId), [1, 3]);
  const all = await queryRole(ctx, { role: "button" });
  assert.deepEqual(all.map((m) => m.backendNodeId), [1, 3, 5]);
  const queries = ctx.sent.filter((c) => c.method === "Accessibility.queryAXTree").map((c) => c.params);
  assert.deepEqual(queries.slice(0, 2), [
    { objectId: "doc-1", role: "button", accessibleName: "Hello" }, // finds only the ignored one
    { objectId: "doc-1", role: "button" }, // so every button, compared here
  ]);
});

test("an exact name Chromium finds costs one query, not the whole role", async () => {
  const ctx = fakeCtx(() => [ax(1, "button", "Save"), ax(2, "button", "Cancel")]);
  assert.deepEqual((await queryRole(ctx, { role: "button", name: "Save" })).map((m) => m.backendNodeId), [1]);
  const queries = ctx.sent.filter((c) => c.method === "Accessibility.queryAXTree");
  assert.equal(queries.length, 1);
  assert.equal(queries[0].params.accessibleName, "Save");
});

test("a regex with the g flag matches every candidate, not every other one", async () => {
  const ctx = fakeCtx(() => [ax(1, "link", "Docs"), ax(2, "link", "Docs")]);
  assert.equal((await queryRole(ctx, { role: "link", name: "/docs/gi" })).length, 2);
});

test("img and directory are asked for by the names Chromium's tree uses", async () => {
  const ctx = fakeCtx(() => []);
  await queryRole(ctx, { role: "img" });
  await queryRole(ctx, { role: "directory" });
  await queryRole(ctx, { role: "button" });
  const roles = ctx.sent.filter((c) => c.method === "Accessibility.queryAXTree").map((c) => c.params.role);
  assert.deepEqual(roles, ["image", "list", "button"]);
});

test("findByRole: one match, the nth of several, or nth past the end", async () => {
  const ctx = fakeCtx(() => [ax(7, "button", "Save"), ax(9, "button", "Save")]);
  assert.equal((await findByRole(ctx, { role: "button", name: "Save", nth: 1 })).backendNodeId, 9);
  assert.equal((await findByRole(ctx, { role: "button", name: "Save", nth: 0 })).backendNodeId, 7);
  await assert.rejects(findByRole(ctx, { role: "button", name: "Save", nth: 2 }), (e) =>
    assertCode(e, ErrorCodes.ELEMENT_NOT_FOUND, /matches 2 elements, so there is no nth 2/));
});

test("several matches without nth are invalid_action listing each candidate with a locator hint", async () => {
  const ctx = fakeCtx(() => [ax(7, "button", "Save"), ax(9, "button", "Save")], {
    7: { localName: "button", attributes: ["id", "save-top", "class", "primary big extra"] },
    9: { localName: "button", attributes: ["name", "save", "class", "secondary"] },
  });
  await assert.rejects(findByRole(ctx, { role: "button", name: "Save" }), (e) => {
    assertCode(e, ErrorCodes.INVALID_ACTION);
    assert.equal(
      e.message,
      'role button named "Save" matches 2 elements; add nth (0-based) or a more exact name to pick one: ' +
        'nth 0: button "Save" <button#save-top.primary.big>; nth 1: button "Save" <button[name="save"].secondary>',
    );
    return true;
  });
});

test("no match is element_not_found naming what the role does have", async () => {
  const ctx = fakeCtx((p) => (p.role === "button" ? [ax(1, "button", "Sign up"), ax(2, "button", "Cancel")] : []));
  await assert.rejects(findByRole(ctx, { role: "button", name: "Sign in" }), (e) =>
    assertCode(e, ErrorCodes.ELEMENT_NOT_FOUND, /no element with role button named "Sign in" in the page; its button elements are named "Sign up", "Cancel"/));
  await assert.rejects(findByRole(ctx, { role: "heading" }), (e) =>
    assertCode(e, ErrorCodes.ELEMENT_NOT_FOUND, /no element with role heading in the page \(hidden ones do not count\)/));
});

test("wait_for by role polls until the element is in the tree", async () => {
  let polls = 0;
  const ctx = fakeCtx(() => (++polls < 3 ? [] : [ax(4, "heading", "Welcome back")]));
  assert.deepEqual(await waitExecutors.wait_for(ctx, { type: "wait_for", role: "heading", name: "Welcome back" }), { ok: true });
  assert.equal(polls, 3);
});

test("wait_for by role fails at once when several match without nth", async () => {
  const ctx = fakeCtx(() => [ax(1, "button", "Save"), ax(2, "button", "Save")]);
  await assert.rejects(waitExecutors.wait_for(ctx, { type: "wait_for", role: "button", name: "Save" }), (e) =>
    assertCode(e, ErrorCodes.INVALID_ACTION, /matches 2 elements/));
});

test("wait_for by role times out naming the target", async () => {
  const ctx = fakeCtx(() => []);
  await assert.rejects(waitExecutors.wait_for(ctx, { type: "wait_for", role: "button", name: "Never", timeoutMs: 50 }), (e) =>
    assertCode(e, ErrorCodes.TIMEOUT, /role button named "Never" still not visible after 50 ms \(no element matches\)/));
});

test("a hidden page is read whole: queryAXTree, which a page drawing no frames never answers, is not sent", async () => {
  const ctx = fakeCtx(() => [ax(1, "heading", "Save"), ax(2, "button", "Save"), ax(3, "button", " Save "), ax(4, "button", "Cancel")], {}, { hidden: true });
  const got = await queryRole(ctx, { role: "button", name: "Save" });
  assert.deepEqual(got.map((m) => m.backendNodeId), [2, 3]);
  assert.ok(!ctx.sent.some((c) => c.method === "Accessibility.queryAXTree"));
  await assert.rejects(findByRole(ctx, { role: "button", name: "Send" }), (e) =>
    assertCode(e, ErrorCodes.ELEMENT_NOT_FOUND, /its button elements are named "Save", "Cancel"/));
});

// framedCtx is a tab with frames: trees maps a query root ("main", or a
// frame root's backendNodeId) to its AX nodes; sameOrigin lists the tab's
// same-origin frames [{url, root}] and oopifs the out-of-process ones
// [{sessionId, url, root}], each answering in its own session.
function framedCtx(trees, { sameOrigin = [], oopifs = [] } = {}) {
  const sent = [];
  const deep = (frames) => ({
    result: { type: "object", deepSerializedValue: { type: "array", value: [
      { type: "string", value: JSON.stringify(frames.map((f) => f.url)) },
      ...frames.map((f) => ({ type: "node", value: { backendNodeId: f.root } })),
    ] } },
  });
  const answer = (session, method, params) => {
    sent.push({ session, method, params });
    if (method === "Runtime.evaluate" && params.expression === DOC_EXPR) return { result: { type: "object", objectId: "doc-1" } };
    if (method === "Runtime.evaluate" && params.expression.startsWith("document.visibilityState")) return { result: { type: "boolean", value: true } };
    if (method === "Runtime.evaluate" && params.expression.includes("bua:frame-roots")) {
      if (session === null) return deep(sameOrigin);
      return deep(oopifs.filter((f) => f.sessionId === session));
    }
    if (method === "Accessibility.queryAXTree") {
      const all = trees[params.objectId === "doc-1" ? "main" : params.backendNodeId] || [];
      return { nodes: params.accessibleName === undefined ? all : all.filter((n) => n.name.value === params.accessibleName) };
    }
    if (method === "DOM.describeNode") return { node: { localName: "button", attributes: ["id", `b${params.backendNodeId}`] } };
    throw new Error(`unexpected ${method} in session ${session}`);
  };
  return {
    sent,
    send: async (method, params) => answer(null, method, params),
    sendTo: async (session, method, params) => answer(session, method, params),
    frames: () => oopifs.map((f) => ({ sessionId: f.sessionId, targetId: f.sessionId, parent: null })),
  };
}

test("without frame, the main frame's matches win and no other frame is asked", async () => {
  const ctx = framedCtx({ main: [ax(1, "button", "Pay")], 50: [ax(51, "button", "Pay")] }, { oopifs: [{ sessionId: "S1", url: "http://pay.test/", root: 50 }] });
  const hit = await findByRole(ctx, { role: "button", name: "Pay" });
  assert.deepEqual([hit.backendNodeId, hit.session, hit.frame], [1, null, undefined]);
  assert.ok(!ctx.sent.some((c) => c.session === "S1"), "an out-of-process frame was asked");
});

test("without frame, the one frame with matches wins: a same-origin frame's in the tab's session, an out-of-process one's in its own", async () => {
  const same = framedCtx({ main: [ax(1, "button", "Back")], 20: [ax(21, "button", "Pay")] }, { sameOrigin: [{ url: "http://shop.test/notes.html", root: 20 }] });
  const a = await findByRole(same, { role: "button", name: "Pay" });
  assert.deepEqual([a.backendNodeId, a.session, a.frame], [21, null, "http://shop.test/notes.html"]);

  const oop = framedCtx({ main: [], 50: [ax(51, "button", "Pay"), ax(52, "button", "Pay")] }, { oopifs: [{ sessionId: "S1", url: "http://pay.test/", root: 50 }] });
  const b = await findByRole(oop, { role: "button", name: "Pay", nth: 1 });
  assert.deepEqual([b.backendNodeId, b.session, b.frame], [52, "S1", "http://pay.test/"]);
  assert.ok(oop.sent.some((c) => c.session === "S1" && c.method === "Accessibility.queryAXTree" && c.params.backendNodeId === 50));
  // Several in that one frame, without nth, is the usual ambiguity, saying where.
  await assert.rejects(findByRole(oop, { role: "button", name: "Pay" }), (e) =>
    assertCode(e, ErrorCodes.INVALID_ACTION, /^role button named "Pay" matches 2 elements in frame "http:\/\/pay.test\/"; add nth .*nth 0: button "Pay" <button#b51>; nth 1: button "Pay" <button#b52>$/));
});

test("without frame, matches in several frames are invalid_action naming each with its frame", async () => {
  const ctx = framedCtx(
    { main: [ax(1, "button", "Back")], 20: [ax(21, "button", "Pay")], 50: [ax(51, "button", "Pay")] },
    { sameOrigin: [{ url: "http://shop.test/notes.html", root: 20 }], oopifs: [{ sessionId: "S1", url: "http://pay.test/", root: 50 }] },
  );
  await assert.rejects(findByRole(ctx, { role: "button", name: "Pay", nth: 0 }), (e) => {
    assertCode(e, ErrorCodes.INVALID_ACTION);
    assert.equal(
      e.message,
      'role button named "Pay" (nth 0) matches elements in 2 frames and none in the main frame; add frame (a part of its URL, or its name) to pick one: ' +
        'button "Pay" <button#b21> in frame "http://shop.test/notes.html"; button "Pay" <button#b51> in frame "http://pay.test/"',
    );
    return true;
  });
  // None anywhere names what the role has, the frames' too.
  await assert.rejects(findByRole(ctx, { role: "button", name: "Refund" }), (e) =>
    assertCode(e, ErrorCodes.ELEMENT_NOT_FOUND, /its button elements are named "Back", "Pay"$/));
});

test("wait_for by role without frame finds the element in a frame", async () => {
  const ctx = framedCtx({ main: [], 50: [ax(51, "heading", "Paid")] }, { oopifs: [{ sessionId: "S1", url: "http://pay.test/", root: 50 }] });
  const seen = [];
  ctx.budget = budgetFor({ type: "wait_for", timeoutMs: 2000 }, 5000);
  ctx.sleep = (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5)));
  const base = ctx.sendTo;
  ctx.sendTo = async (session, method, params) => {
    if (method === "DOM.resolveNode") return { object: { objectId: `node-${params.backendNodeId}` } };
    if (method === "Runtime.callFunctionOn") {
      seen.push([session, params.objectId]);
      return { result: { value: { ok: true, seen: "it is visible" } } };
    }
    return base(session, method, params);
  };
  assert.deepEqual(await waitExecutors.wait_for(ctx, { type: "wait_for", role: "heading", name: "Paid" }), { ok: true });
  assert.deepEqual(seen, [["S1", "node-51"]]);
});
