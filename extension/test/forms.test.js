import { test } from "node:test";
import assert from "node:assert/strict";
import { pickedBy, selectVerdict, upload, SELECT } from "../src/actions/forms.js";
import { describe, watchDownload, withDownload } from "../src/input/downloads.js";
import { budgetUntil } from "../src/core/budget.js";
import { BridgeError, ErrorCodes } from "../src/core/errors.js";
import { REASONS } from "../src/generated/protocol.js";
import { validateMessage } from "../src/transport/validator.js";


// validateAction is the extension validator's verdict on a request carrying
// action: null when valid, else its message.
function validateAction(action) {
  const r = validateMessage({ type: "request", id: "3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f", action });
  return r.ok ? null : r.message;
}

test("select_option picks by the one of value, label or index it was given, one item standing for a list", () => {
  assert.deepEqual(pickedBy({ value: "blue" }), { by: "value", items: ["blue"] });
  assert.deepEqual(pickedBy({ label: ["Blue", "Red"] }), { by: "label", items: ["Blue", "Red"] });
  assert.deepEqual(pickedBy({ index: 0 }), { by: "index", items: [0] });
  assert.deepEqual(pickedBy({ value: [] }), { by: "value", items: [] });
  assert.throws(() => pickedBy({}), (e) => e.code === ErrorCodes.INVALID_ACTION);
});

test("select_option's verdicts: not a select and too many options are invalid_action, a missing option element_not_found naming it", () => {
  const code = (st) => {
    try {
      selectVerdict("selector \"#s\"", "label", st);
      return "ok";
    } catch (e) {
      assert.ok(e instanceof BridgeError);
      return `${e.code}: ${e.message}`;
    }
  };
  assert.match(code({ connected: true, notSelect: "<div>" }), /^invalid_action: selector "#s" is not a <select> element \(it is <div>\)/);
  assert.match(code({ connected: true, tooMany: 2 }), /^invalid_action: .*takes one option .*2 were given/);
  assert.match(code({ connected: true, missing: "Teal", count: 14, shown: ["Black", "Blue"] }), /^element_not_found: selector "#s" has no option with label "Teal": its options' labels are "Black", "Blue", … \(14 in all\)/);
  assert.match(code({ connected: false }), /^element_not_found: .*no longer in the page/);
  assert.equal(code({ connected: true, ok: false, why: "not visible" }), "ok"); // waited for, not thrown
  assert.match(String(SELECT), /composed: true/);
  try {
    selectVerdict("uid e3", "index", { connected: true, missing: 9, count: 2, shown: ["a", "b"] });
  } catch (e) {
    assert.equal(e.message, 'uid e3 has no option at index 9: its options\' values are "a", "b"');
  }
});

// uploadCtx answers the page-side check with st and records every command.
function uploadCtx(st) {
  const sent = [];
  return {
    sent,
    budget: budgetUntil(Date.now() + 30_000),
    mainFrameId: () => null,
    on: () => () => {},
    sleep: () => Promise.resolve(),
    uidNode: () => ({ id: 42, current: Promise.resolve() }),
    send(method, params) {
      sent.push([method, params]);
      if (method === "DOM.resolveNode") return Promise.resolve({ object: { objectId: "obj" } });
      if (method === "Runtime.callFunctionOn") return Promise.resolve({ result: { value: st } });
      return Promise.resolve({});
    },
  };
}

test("upload sets the files on the input's backend node, after checking it is a file input", async () => {
  const ctx = uploadCtx({ connected: true, ok: true, disabled: false });
  const r = await upload(ctx, { type: "upload", uid: "e3", files: ["/tmp/a.txt"] });
  assert.deepEqual(r, { ok: true });
  const set = ctx.sent.find(([m]) => m === "DOM.setFileInputFiles");
  assert.deepEqual(set[1], { files: ["/tmp/a.txt"], backendNodeId: 42 });
});

test("upload refuses what is not a file input, and several files for a single one, sending no files", async () => {
  for (const [st, want] of [
    [{ connected: true, notFile: "<input type=text>" }, /uid e3 is not a file input \(it is <input type=text>\)/],
    [{ connected: true, tooMany: true }, /takes one file .*2 were given/],
    [{ connected: true, ok: true, disabled: true }, /is disabled/],
  ]) {
    const ctx = uploadCtx(st);
    await assert.rejects(upload(ctx, { type: "upload", uid: "e3", files: ["/a", "/b"] }), (e) => e.code === ErrorCodes.INVALID_ACTION && want.test(e.message));
    assert.ok(!ctx.sent.some(([m]) => m === "DOM.setFileInputFiles"));
  }
});

// fakeDownloads is chrome.downloads with events the test fires.
function fakeDownloads(items = {}) {
  const listeners = { created: new Set(), changed: new Set() };
  const ev = (set) => ({ addListener: (f) => set.add(f), removeListener: (f) => set.delete(f) });
  return {
    listeners,
    onCreated: ev(listeners.created),
    onChanged: ev(listeners.changed),
    search: async ({ id }) => (items[id] ? [items[id]] : []),
    create: (it) => listeners.created.forEach((f) => f(it)),
    change: (d) => listeners.changed.forEach((f) => f(d)),
  };
}

test("a download followed to completion answers path, filename, size, mime and url", async () => {
  const now = Date.now();
  const done = { id: 7, filename: "/home/me/Downloads/report.csv", fileSize: 120, mime: "text/csv", finalUrl: "http://x/report", state: "complete" };
  const api = fakeDownloads({ 7: done });
  const w = watchDownload(api, now);
  api.create({ id: 6, startTime: new Date(now - 60_000).toISOString(), state: "in_progress" }); // an older one
  api.create({ id: 7, startTime: new Date(now).toISOString(), state: "in_progress", url: "http://x/report" });
  api.create({ id: 8, startTime: new Date(now).toISOString(), state: "in_progress" }); // a later one
  api.change({ id: 6, state: { current: "complete" } });
  api.change({ id: 7, state: { current: "complete" } });
  assert.deepEqual(describe(await w.finished), { path: "/home/me/Downloads/report.csv", filename: "report.csv", size: 120, mime: "text/csv", url: "http://x/report" });
  w.off();
  assert.equal(api.listeners.created.size + api.listeners.changed.size, 0);
});

test("an interrupted download is internal_error, reason download_interrupted, with Chrome's reason", async () => {
  const api = fakeDownloads();
  const w = watchDownload(api, Date.now());
  api.create({ id: 1, startTime: new Date().toISOString(), state: "in_progress", filename: "/d/big.bin" });
  api.change({ id: 1, state: { current: "interrupted" }, error: { current: "NETWORK_FAILED" } });
  await assert.rejects(w.finished, (e) => e.code === ErrorCodes.INTERNAL_ERROR && e.reason === REASONS.DOWNLOAD_INTERRUPTED && /big\.bin was interrupted: NETWORK_FAILED/.test(e.message));
});

test("withDownload runs the input alone without download: true, and adds the download with it", async () => {
  const api = fakeDownloads({ 3: { id: 3, filename: "/d/f.txt", fileSize: 5, mime: "text/plain", state: "complete" } });
  const ctx = { downloads: api, budget: budgetUntil(Date.now() + 10_000) };
  assert.deepEqual(await withDownload(ctx, { type: "click" }, "click", async () => ({ ok: true })), { ok: true });
  assert.equal(api.listeners.created.size, 0);
  const r = await withDownload(ctx, { type: "click", download: true }, "click", async () => {
    api.create({ id: 3, startTime: new Date().toISOString(), state: "in_progress" });
    setTimeout(() => api.change({ id: 3, state: { current: "complete" } }), 5);
    return { ok: true };
  });
  assert.deepEqual(r, { ok: true, download: { path: "/d/f.txt", filename: "f.txt", size: 5, mime: "text/plain" } });
  assert.equal(api.listeners.created.size + api.listeners.changed.size, 0);
});

test("an input that starts no download times out saying so, within the budget", async () => {
  const api = fakeDownloads();
  const ctx = { downloads: api, budget: budgetUntil(Date.now() + 400) };
  const t0 = Date.now();
  await assert.rejects(withDownload(ctx, { type: "press_key", download: true }, "press_key", async () => ({ ok: true })), (e) => e.code === ErrorCodes.TIMEOUT && /the press_key started no download within \d+ ms/.test(e.message));
  assert.ok(Date.now() - t0 < 2000);
});

test("the schema takes one item or a list for value, label and index, and absolute paths for files", () => {
  assert.equal(validateAction({ type: "select_option", selector: "s", value: "a" }), null);
  assert.equal(validateAction({ type: "select_option", selector: "s", index: [0, 2] }), null);
  assert.equal(validateAction({ type: "select_option", selector: "s", value: "a", label: "A" }), "action: needs exactly one of value, label or index (got 2)");
  assert.equal(validateAction({ type: "select_option", selector: "s", index: -1 }), "action.index: must be >= 0");
  assert.equal(validateAction({ type: "upload", selector: "s", files: ["rel/x"] }), "action.files.0: must be an absolute path (/…, C:\\… or \\\\server\\share\\…)");
  assert.equal(validateAction({ type: "click", selector: "s", download: 1 }), "action.download: must be boolean, got number");
});

// upload_windows_paths: one schema serves every OS, so the validator takes
// a Windows path beside /… (the daemon sends one only to an extension that
// lists the feature, and has checked it is absolute on its own OS).
test("the schema takes drive-letter and UNC paths for upload's files, and still refuses relative ones", () => {
  for (const path of ["C:\\x\\y.txt", "C:/x/y.txt", "\\\\srv\\share\\f.txt", "/tmp/a.txt"]) {
    assert.equal(validateAction({ type: "upload", selector: "s", files: [path] }), null, path);
  }
  for (const path of ["x\\y.txt", "C:y.txt", "\\\\srv", "\\y.txt"]) {
    assert.equal(validateAction({ type: "upload", selector: "s", files: [path] }), "action.files.0: must be an absolute path (/…, C:\\… or \\\\server\\share\\…)", path);
  }
});

test("upload hands Windows paths to DOM.setFileInputFiles as they are", async () => {
  const ctx = uploadCtx({ connected: true, ok: true, disabled: false });
  const files = ["C:\\Users\\me\\report.pdf", "\\\\srv\\share\\f.txt"];
  await upload(ctx, { type: "upload", uid: "e3", files });
  const set = ctx.sent.find(([m]) => m === "DOM.setFileInputFiles");
  assert.deepEqual(set[1], { files, backendNodeId: 42 });
});

test("upload of no files empties the input in the page instead of DOM.setFileInputFiles", async () => {
  const ctx = uploadCtx({ connected: true, ok: true, disabled: false });
  await upload(ctx, { type: "upload", uid: "e3", files: [] });
  assert.ok(!ctx.sent.some(([m]) => m === "DOM.setFileInputFiles"));
  const calls = ctx.sent.filter(([m]) => m === "Runtime.callFunctionOn");
  assert.match(calls[calls.length - 1][1].functionDeclaration, /this\.value = ""/);
});
