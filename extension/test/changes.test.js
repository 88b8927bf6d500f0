import { test } from "node:test";
import assert from "node:assert/strict";
import { createDebuggerController } from "../src/sessions/controller.js";
import { knownAfterExtract, mergeChanges } from "../src/read/changes.js";

// A scripted page for the changes reads: its listed elements are nodes
// {id (backendNodeId), role, name, parent?}; every read returns its array
// of listed nodes as a remote object (a handle), which the next changes
// read runs on, as the page script does in Chromium.
const TAB = 4;
const URL = "http://127.0.0.1:8080/app.html";

function fakePage(nodes) {
  const page = { loaderId: "L1", nodes, handles: new Map(), next: 1, released: [], calls: [] };
  const handle = (ids) => {
    const h = `H${page.next++}`;
    page.handles.set(h, ids);
    return h;
  };
  const item = (n) => {
    const it = { role: n.role, name: n.name, visible: true };
    if (n.parent !== undefined) it.parent = page.nodes.findIndex((m) => m.id === n.parent);
    return it;
  };
  const deep = (read, ids) => ({
    type: "array",
    value: [{ type: "string", value: JSON.stringify(read) }, ...ids.map((backendNodeId) => ({ type: "node", value: { backendNodeId } })), { type: "array" }],
  });
  const changes = (prev, opts) => {
    const all = page.nodes.map((n) => n.id);
    const fresh = page.nodes.filter((n) => !prev.includes(n.id)).slice(0, opts.max);
    const from = all.map((id) => (prev.includes(id) ? prev.indexOf(id) : fresh.some((n) => n.id === id) ? -1 : -2));
    return {
      result: { type: "object", objectId: handle(all), deepSerializedValue: deep({ url: URL, title: "App", items: fresh.map(item), from }, fresh.map((n) => n.id)) },
    };
  };
  const handlers = {
    "Page.getFrameTree": () => ({ frameTree: { frame: { id: "MAIN", loaderId: page.loaderId, url: URL } } }),
    "Runtime.evaluate": (p) => {
      if (p.expression.includes("bua:extract")) {
        const max = JSON.parse(/, (\{[^{}]*\})\)$/.exec(p.expression)[1]).maxElements;
        const kept = page.nodes.slice(0, max);
        const read = { found: true, hasContent: true, text: "App", markdown: "# App", url: URL, title: "App", frameSrcs: [], elements: kept.map(item), elementsTotal: page.nodes.length };
        return { result: { type: "object", objectId: handle(page.nodes.map((n) => n.id)), deepSerializedValue: deep(read, kept.map((n) => n.id)) } };
      }
      if (p.expression.includes("bua:changes")) return changes([], JSON.parse(/\.call\(null, (\{.*\})\)$/.exec(p.expression)[1]));
      return { result: { type: "undefined" } };
    },
    "Runtime.callFunctionOn": (p) => {
      if (!p.functionDeclaration.includes("bua:changes")) return { result: { type: "undefined" } };
      const prev = page.handles.get(p.objectId);
      if (!prev) throw new Error(JSON.stringify({ code: -32000, message: "Could not find object with given id" }));
      return changes(prev, p.arguments[0].value);
    },
    "Runtime.releaseObject": (p) => {
      page.released.push(p.objectId);
      page.handles.delete(p.objectId);
    },
  };
  const dbg = {
    attach: async () => {},
    detach: async () => {},
    sendCommand: async (target, method, params) => {
      page.calls.push(method);
      const h = handlers[method];
      return h ? h(params || {}) || {} : {};
    },
  };
  return { page, c: createDebuggerController({ chromeApi: { debugger: dbg }, managed: true }) };
}

const btn = (id, name) => ({ id, role: "button", name });
const uidsOf = (c) => Object.fromEntries([...c.sessions.get(TAB).uidCache.map].map(([uid, n]) => [uid, n.id]));

test("a changes read lists new elements with uids that continue the numbering, the uids gone, and keeps the rest", async () => {
  const { page, c } = fakePage([btn(11, "A"), btn(12, "B"), btn(13, "C")]);
  const r = await c.run(TAB, { type: "extract" });
  assert.deepEqual(r.elements.map((e) => e.uid), ["e0", "e1", "e2"]);
  assert.deepEqual(await c.run(TAB, { type: "extract", changes: true }), { url: URL, title: "App", changes: { added: [], removed: [] } });

  page.nodes = [btn(14, "New"), btn(11, "A"), btn(13, "C")];
  const ch = await c.run(TAB, { type: "extract", changes: true });
  assert.deepEqual(ch.changes, { added: [{ uid: "e3", role: "button", name: "New", visible: true }], removed: ["e1"] });
  assert.deepEqual(uidsOf(c), { e3: 14, e0: 11, e2: 13 });
  // The array that read ran on is released; the new one is kept.
  assert.equal(page.released.length, 2);
  assert.equal(page.handles.size >= 1, true);

  assert.deepEqual((await c.run(TAB, { type: "extract", changes: true })).changes, { added: [], removed: [] });
  // A full extract numbers from e0 again, in document order.
  const full = await c.run(TAB, { type: "extract" });
  assert.deepEqual(full.elements.map((e) => [e.uid, e.name]), [["e0", "New"], ["e1", "A"], ["e2", "C"]]);
  page.nodes.push(btn(15, "D"));
  assert.deepEqual((await c.run(TAB, { type: "extract", changes: true })).changes.added.map((e) => e.uid), ["e3"]);
});

test("elements past maxElements are known without a uid: they are not reported as added later", async () => {
  const { page, c } = fakePage([btn(1, "a"), btn(2, "b"), btn(3, "c"), btn(4, "d")]);
  const r = await c.run(TAB, { type: "extract", maxElements: 2 });
  assert.deepEqual(r.elements.map((e) => e.uid), ["e0", "e1"]);
  assert.deepEqual((await c.run(TAB, { type: "extract", changes: true })).changes, { added: [], removed: [] });
  page.nodes = [btn(1, "a"), btn(3, "c"), btn(5, "e")];
  assert.deepEqual((await c.run(TAB, { type: "extract", changes: true })).changes, { added: [{ uid: "e2", role: "button", name: "e", visible: true }], removed: ["e1"] });
});

test("when the page lost the last array (its context was replaced), old nodes are matched by backendNodeId", async () => {
  const { page, c } = fakePage([btn(1, "a"), btn(2, "b")]);
  await c.run(TAB, { type: "extract" });
  page.handles.clear();
  page.nodes.push(btn(3, "c"));
  const ch = await c.run(TAB, { type: "extract", changes: true });
  assert.deepEqual(ch.changes, { added: [{ uid: "e2", role: "button", name: "c", visible: true }], removed: [] });
  assert.deepEqual(uidsOf(c), { e0: 1, e1: 2, e2: 3 });
});

test("after a navigation every old uid is removed and the numbering goes on; a first read without an extract starts at e0", async () => {
  const { page, c } = fakePage([btn(1, "a"), btn(2, "b")]);
  assert.deepEqual((await c.run(TAB, { type: "extract", changes: true })).changes.added.map((e) => e.uid), ["e0", "e1"]);
  page.loaderId = "L2";
  page.nodes = [btn(7, "x")];
  c.handleDebuggerEvent({ tabId: TAB }, "Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2", url: URL } });
  const ch = await c.run(TAB, { type: "extract", changes: true });
  assert.deepEqual(ch.changes, { added: [{ uid: "e2", role: "button", name: "x", visible: true }], removed: ["e0", "e1"] });
});

test("a uid a changes read numbered past a full extract's is stale after the next extract, not never handed out", async () => {
  const { page, c } = fakePage([btn(1, "a"), btn(2, "b"), btn(3, "c")]);
  await c.run(TAB, { type: "extract" }); // e0 e1 e2
  page.nodes = [btn(4, "d")];
  const ch = await c.run(TAB, { type: "extract", changes: true });
  assert.deepEqual(ch.changes.added.map((e) => e.uid), ["e3"]);
  // The changes read kept one uid (e3), but handed out e0 … e3.
  await c.run(TAB, { type: "extract" }); // e0 alone now
  const e = await c.run(TAB, { type: "click", uid: "e3" }).then(() => null, (err) => err);
  assert.equal(e && e.code, "element_stale");
  assert.equal(e.reason, undefined, e.message);
  const never = await c.run(TAB, { type: "click", uid: "e4" }).then(() => null, (err) => err);
  assert.equal(never && never.reason, "uid_unknown");
});

test("a new option under a select read before names that select's uid as its parent", () => {
  const last = { map: new Map([["e0", { session: null, id: 5 }]]) };
  const reads = [{ session: null, prev: { uids: ["e0"] }, from: [0, -1], items: [{ role: "option", name: "Pro", visible: true, parent: 0 }], ids: [6] }];
  const m = mergeChanges(last, reads, 1);
  assert.deepEqual(m.added, [{ uid: "e1", role: "option", name: "Pro", visible: true, parent: "e0" }]);
  assert.deepEqual(m.known.get(null).uids, ["e0", "e1"]);
  assert.deepEqual(knownAfterExtract([{ session: "S1", objectId: "H", base: 3, kept: 2 }, { session: null, objectId: undefined, base: 0, kept: 3 }]), new Map([["S1", { objectId: "H", uids: ["e3", "e4"] }]]));
});
