import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LIMITS,
  TRACE_MAX_BYTES,
  TRACE_MAX_EVENTS,
  actionEvent,
  clip,
  consoleText,
  createTraceRing,
  createTraceStore,
  eventBytes,
  requestEventFor,
  traceEventFor,
  utf8Length,
} from "../src/core/trace.js";

const log = (text) => ({ kind: "console", level: "log", text });

test("the ring holds at most maxEvents: the oldest go, dropped counts them, seqs stay consecutive", () => {
  const r = createTraceRing({ maxEvents: 500, now: () => 1000 });
  for (let i = 1; i <= 600; i++) r.push(log(`m${i}`));
  assert.equal(r.size, 500);
  const all = r.read(0);
  assert.equal(all.events.length, 500);
  assert.equal(all.events[0].seq, 101);
  assert.equal(all.events[0].text, "m101");
  assert.equal(all.events.at(-1).seq, 600);
  assert.equal(all.nextSeq, 601);
  assert.equal(all.dropped, 100);
  assert.ok(all.events.every((e, i) => e.seq === 101 + i && e.t === 1000));
});

test("the ring holds at most maxBytes of event JSON, whatever the count", () => {
  const r = createTraceRing({ maxEvents: 500, maxBytes: 256 * 1024 });
  const big = "é".repeat(999); // 2 bytes each in UTF-8
  for (let i = 0; i < 500; i++) r.push(log(big));
  const { events, nextSeq, dropped } = r.read(0);
  const held = events.reduce((n, e) => n + eventBytes(e), 0);
  assert.equal(held, r.bytes);
  assert.ok(held <= 256 * 1024, `${held} bytes held`);
  assert.ok(held > 256 * 1024 - 2100, "evicts only what it must");
  assert.ok(events.length < 500 && events.length > 100, `${events.length} events`);
  assert.equal(dropped, 500 - events.length);
  assert.equal(nextSeq, 501);
  assert.equal(events[0].seq, dropped + 1);
});

test("sinceSeq reads newer events only; dropped counts the evicted ones at or after it", () => {
  const r = createTraceRing({ maxEvents: 10 });
  for (let i = 0; i < 25; i++) r.push(log(String(i)));
  // holds 16..25
  assert.deepEqual(r.read(20).events.map((e) => e.seq), [20, 21, 22, 23, 24, 25]);
  assert.equal(r.read(20).dropped, 0);
  assert.equal(r.read(12).dropped, 4, "12..15 were evicted");
  assert.equal(r.read(12).events.length, 10);
  assert.deepEqual(r.read(26), { events: [], nextSeq: 26, dropped: 0 }, "nextSeq: nothing new");
  // A sinceSeq from an earlier ring (the worker restarted) reads it all.
  const later = r.read(900);
  assert.equal(later.events.length, 10);
  assert.equal(later.dropped, 15);
  // A follower that polls with nextSeq sees each event exactly once.
  const f = createTraceRing({ maxEvents: 10 });
  let since = 0;
  const seen = [];
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 3; i++) f.push(log(`${round}.${i}`));
    const got = f.read(since);
    seen.push(...got.events.map((e) => e.text));
    assert.equal(got.dropped, 0);
    since = got.nextSeq;
  }
  assert.equal(seen.length, 15);
  assert.equal(new Set(seen).size, 15);
});

test("the default bounds are the documented ones", () => {
  assert.equal(TRACE_MAX_EVENTS, 500);
  assert.equal(TRACE_MAX_BYTES, 256 * 1024);
  const r = createTraceRing();
  for (let i = 0; i < 20000; i++) r.push(log(`flood ${i} ${"x".repeat(i % 300)}`));
  const got = r.read(0);
  assert.ok(got.events.length <= 500);
  assert.ok(r.bytes <= 256 * 1024);
  assert.equal(got.dropped + got.events.length, 20000);
  assert.equal(got.nextSeq, 20001);
});

test("clip cuts to the limit, marks the cut and never splits a surrogate pair", () => {
  assert.equal(clip("short", 10), "short");
  const c = clip("a".repeat(5000), LIMITS.text);
  assert.equal(c.length, 1000);
  assert.ok(c.endsWith("…"));
  const s = clip("a".repeat(998) + "😀😀", 1000);
  assert.ok(s.length <= 1000);
  assert.ok(!/[\uD800-\uDBFF]…$/.test(s), "no lone high surrogate before the mark");
  assert.equal(clip(undefined, 5), "");
  assert.equal(utf8Length("aé😀€"), 1 + 2 + 4 + 3);
});

test("console calls become console events, with format specifiers applied and levels mapped", () => {
  const s = (value) => ({ type: "string", value });
  const n = (value) => ({ type: "number", value, description: String(value) });
  assert.deepEqual(traceEventFor("Runtime.consoleAPICalled", { type: "log", args: [s("hello"), n(3)] }), { kind: "console", level: "log", text: "hello 3" });
  assert.deepEqual(traceEventFor("Runtime.consoleAPICalled", { type: "warning", args: [s("%s has %d items%c!"), s("cart"), n(2.7), s("color:red")] }), {
    kind: "console",
    level: "warning",
    text: "cart has 2 items!",
  });
  assert.equal(traceEventFor("Runtime.consoleAPICalled", { type: "assert", args: [s("x")] }).level, "error");
  assert.equal(traceEventFor("Runtime.consoleAPICalled", { type: "table", args: [] }).level, "log");
  assert.equal(
    consoleText([{ type: "object", className: "Object", description: "Object", preview: { type: "object", properties: [{ name: "a", type: "number", value: "1" }, { name: "b", type: "string", value: "x" }] } }]),
    '{a: 1, b: "x"}',
  );
  assert.equal(consoleText([{ type: "object", subtype: "error", description: "Error: boom\n    at f (x.js:1:1)" }]), "Error: boom\n    at f (x.js:1:1)");
  assert.equal(consoleText([{ type: "undefined" }, { type: "object", subtype: "null", value: null }]), "undefined null");
  const long = traceEventFor("Runtime.consoleAPICalled", { type: "error", args: [s("y".repeat(100000))] });
  assert.equal(long.text.length, LIMITS.text);
});

test("an uncaught exception carries its message and script URL", () => {
  const ev = traceEventFor("Runtime.exceptionThrown", {
    timestamp: 1,
    exceptionDetails: { text: "Uncaught", url: "http://a.test/app.js", exception: { type: "object", subtype: "error", description: "TypeError: x is undefined\n    at go (app.js:3:5)" } },
  });
  assert.deepEqual(ev, { kind: "exception", text: "Uncaught TypeError: x is undefined\n    at go (app.js:3:5)", url: "http://a.test/app.js" });
  const rejection = traceEventFor("Runtime.exceptionThrown", {
    exceptionDetails: { text: "Uncaught (in promise)", exception: { type: "string", value: "nope" }, stackTrace: { callFrames: [{ url: "http://a.test/b.js" }] } },
  });
  assert.deepEqual(rejection, { kind: "exception", text: "Uncaught (in promise) nope", url: "http://a.test/b.js" });
});

test("requests: 4xx/5xx responses and failures by URL, method and status only", () => {
  // webRequest's details as Chrome gives them to a listener that asked for
  // no extra info: no headers, no bodies. Extra fields are ignored anyway.
  const d = (url, method, more) => ({ url, method, tabId: 7, type: "xmlhttprequest", requestId: "1", requestHeaders: [{ name: "Cookie", value: "SECRET" }], ...more });
  assert.equal(requestEventFor("completed", d("http://a.test/ok", "GET", { statusCode: 200 })), null);
  assert.equal(requestEventFor("completed", d("http://a.test/moved", "GET", { statusCode: 304 })), null);
  assert.deepEqual(requestEventFor("completed", d("http://a.test/missing", "POST", { statusCode: 404 })), { kind: "request", url: "http://a.test/missing", method: "POST", status: 404 });
  assert.deepEqual(requestEventFor("completed", d("http://a.test/boom", "GET", { statusCode: 503 })), { kind: "request", url: "http://a.test/boom", method: "GET", status: 503 });
  assert.deepEqual(requestEventFor("error", d("http://down.test/x", "GET", { error: "net::ERR_NAME_NOT_RESOLVED" })), {
    kind: "request",
    url: "http://down.test/x",
    method: "GET",
    errorText: "net::ERR_NAME_NOT_RESOLVED",
  });
  assert.equal(requestEventFor("error", d("http://a.test/aborted", "GET", { error: "net::ERR_ABORTED" })), null, "cancelled is not failed");
  assert.equal(requestEventFor("redirect", d("http://a.test/", "GET", { statusCode: 500 })), null);
  const long = requestEventFor("completed", d("http://a.test/" + "p".repeat(5000), "GET", { statusCode: 404 }));
  assert.equal(long.url.length, LIMITS.url);
  assert.ok(!JSON.stringify(long).includes("SECRET"));
});

test("navigations of the top-level frame and dialogs are recorded; frames' are not", () => {
  assert.deepEqual(traceEventFor("Page.frameNavigated", { frame: { id: "M", url: "http://a.test/next", urlFragment: "#x" } }), { kind: "navigation", url: "http://a.test/next#x" });
  assert.equal(traceEventFor("Page.frameNavigated", { frame: { id: "S", parentId: "M", url: "http://ads.test/" } }), null);
  assert.deepEqual(traceEventFor("Page.javascriptDialogOpening", { type: "confirm", message: "Leave?" }), { kind: "dialog", level: "confirm", text: "Leave?" });
  assert.equal(traceEventFor("Page.lifecycleEvent", { name: "load" }), null);
});

test("an action event has its type, duration and code, nothing else", () => {
  assert.deepEqual(actionEvent("type", 12.6), { kind: "action", action: "type", durationMs: 13 });
  assert.deepEqual(actionEvent("click", 30, "element_not_found"), { kind: "action", action: "click", durationMs: 30, code: "element_not_found" });
  assert.deepEqual(actionEvent("wait_for", 5, "internal_error", true), { kind: "action", action: "wait_for", durationMs: 5, level: "cancelled" });
  // An internal_error keeps the error's stack, for the daemon to map; no other code does.
  const stack = "Error: x\n    at f (chrome-extension://id/src/generated/worker.js:1:2)";
  assert.deepEqual(actionEvent("click", 3, "internal_error", false, stack), { kind: "action", action: "click", durationMs: 3, code: "internal_error", text: stack });
  assert.deepEqual(actionEvent("click", 3, "element_not_found", false, stack), { kind: "action", action: "click", durationMs: 3, code: "element_not_found" });
  assert.equal(actionEvent("click", 3, "internal_error", false, "x".repeat(5000)).text.length, 1000);
});

test("the store keeps rings for at most maxTabs tabs; a tab's ring dropped for room resumes its seqs", () => {
  let t = 0;
  const s = createTraceStore({ maxTabs: 2, now: () => ++t });
  s.push(1, actionEvent("click", 1));
  s.push(1, actionEvent("click", 1));
  s.push(2, actionEvent("click", 1));
  s.read(1, 0); // reading does not count as use; pushing does
  s.push(3, actionEvent("click", 1)); // tab 1 is the least recently pushed
  assert.equal(s.tabCount, 2);
  assert.equal(s.has(1), false);
  assert.deepEqual(s.read(1, 0), { events: [], nextSeq: 3, dropped: 2 });
  assert.deepEqual(s.read(1, 3), { events: [], nextSeq: 3, dropped: 0 });
  s.push(1, actionEvent("click", 1));
  const back = s.read(1, 0);
  assert.deepEqual(back.events.map((e) => e.seq), [3]);
  assert.equal(back.dropped, 2);
  // A closed tab's ring is gone for good.
  s.forget(1);
  assert.deepEqual(s.read(1, 0), { events: [], nextSeq: 1, dropped: 0 });
});

test("the store records events only when they say something", () => {
  const s = createTraceStore();
  assert.equal(s.cdpEvent(5, "Page.lifecycleEvent", { name: "load" }), null);
  assert.equal(s.request(5, "completed", { url: "http://a.test/", method: "GET", statusCode: 200 }), null);
  assert.equal(s.has(5), false, "no ring for an event it does not record");
  const ev = s.request(5, "completed", { url: "http://a.test/x", method: "GET", statusCode: 500 });
  assert.equal(ev.seq, 1);
  s.cdpEvent(5, "Runtime.consoleAPICalled", { type: "log", args: [{ type: "string", value: "hi" }] });
  assert.deepEqual(s.read(5, 0).events.map((e) => [e.seq, e.kind, e.status, e.method, e.text]), [
    [1, "request", 500, "GET", undefined],
    [2, "console", undefined, undefined, "hi"],
  ]);
});

test("withPageStack puts a page script's frames before the worker's, under the error's own first line", async () => {
  const { BridgeError, withPageStack } = await import("../src/core/errors.js");
  const err = new BridgeError("internal_error", "extract failed in the page: TypeError: x");
  const worker = err.stack.split("\n").slice(1);
  withPageStack(err, "TypeError: x\n    at collectElements (bua-page-extract.js:812:20)\n    at bua-page-extract.js:900:3");
  const lines = err.stack.split("\n");
  assert.equal(lines[0], "BridgeError: extract failed in the page: TypeError: x");
  assert.deepEqual(lines.slice(1, 3), ["    at collectElements (bua-page-extract.js:812:20)", "    at bua-page-extract.js:900:3"]);
  assert.deepEqual(lines.slice(3), worker);
  const plain = new BridgeError("internal_error", "y");
  const before = plain.stack;
  assert.equal(withPageStack(plain, "Error: no frames").stack, before);
});
