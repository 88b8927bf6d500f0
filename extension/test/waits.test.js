import { test } from "node:test";
import assert from "node:assert/strict";
import { globRegExp, regexOf, urlMatcher, waitedFor, waitFor } from "../src/actions/wait.js";
import { probe as PROBE } from "../src/page/wait.js";
import { goBack, goForward } from "../src/actions/nav.js";
import { budgetFor } from "../src/core/budget.js";
import { BridgeError } from "../src/core/errors.js";
import { CdpError } from "../src/core/cdp.js";

// el is a fake element with what PROBE reads.
function el({ connected = true, w = 10, h = 10, visible = true, text = "", shown = text } = {}) {
  return {
    isConnected: connected,
    getBoundingClientRect: () => ({ width: w, height: h }),
    checkVisibility: () => visible,
    textContent: text,
    innerText: shown,
  };
}

test("PROBE: a target's four states", () => {
  const cases = [
    // [element, state, ok]
    [null, "attached", false],
    [null, "detached", true],
    [null, "visible", false],
    [null, "hidden", true],
    [el(), "visible", true],
    [el(), "hidden", false],
    [el({ w: 0 }), "visible", false],
    [el({ w: 0 }), "hidden", true],
    [el({ w: 0 }), "attached", true],
    [el({ visible: false }), "visible", false],
    [el({ connected: false }), "detached", true],
  ];
  for (const [e, state, ok] of cases) {
    assert.equal(PROBE(e, true, { state }).ok, ok, `${JSON.stringify(e && { w: e.getBoundingClientRect().width, v: e.checkVisibility(), c: e.isConnected })} ${state}`);
  }
  assert.equal(PROBE(el({ w: 0 }), true, { state: "visible" }).seen, "it is attached but hidden");
  assert.equal(PROBE(null, true, { state: "visible" }).seen, "no element matches");
});

test("PROBE: text in the page, shown or only in the DOM, substring or regex", () => {
  globalThis.document = { body: el({ text: "Saving…  Saved\n draft", shown: "Saved draft" }) };
  try {
    assert.equal(PROBE(null, false, { state: "visible", text: "Saved draft" }).ok, true, "whitespace collapsed");
    assert.equal(PROBE(null, false, { state: "visible", text: "Saving" }).ok, false, "hidden text is not shown");
    assert.equal(PROBE(null, false, { state: "attached", text: "Saving" }).ok, true, "but it is in the DOM");
    assert.equal(PROBE(null, false, { state: "hidden", text: "Saving" }).ok, true);
    assert.equal(PROBE(null, false, { state: "detached", text: "Saving" }).ok, false);
    assert.equal(PROBE(null, false, { state: "detached", text: "Gone" }).ok, true);
    assert.equal(PROBE(null, false, { state: "visible", text: "saved", re: { source: "^saved", flags: "gi" } }).ok, true);
    assert.equal(PROBE(null, false, { state: "visible", text: "x", re: { source: "^draft", flags: "" } }).ok, false);
    assert.equal(PROBE(null, false, { state: "visible", text: "Saving" }).seen, "it is in the DOM but not shown");
  } finally {
    delete globalThis.document;
  }
  // Within a target: its own text, and only while it is visible.
  assert.equal(PROBE(el({ text: "Done" }), true, { state: "visible", text: "Done" }).ok, true);
  assert.equal(PROBE(el({ text: "Done", w: 0 }), true, { state: "visible", text: "Done" }).ok, false);
  assert.equal(PROBE(null, true, { state: "visible", text: "Done" }).seen, "the target is not in the page");
  assert.equal(PROBE(null, true, { state: "hidden", text: "Done" }).ok, true);
});

test("url globs and regexes match the whole URL as Playwright's waitForURL does", () => {
  const cases = [
    ["**/done.html", "http://127.0.0.1:8080/a/b/done.html", true],
    ["**/done.html", "http://127.0.0.1:8080/done.html?x=1", false],
    ["http://h.test/*/end", "http://h.test/a/end", true],
    ["http://h.test/*/end", "http://h.test/a/b/end", false],
    ["**/page.{html,php}", "http://h.test/page.php", true],
    ["**/page.{html,php}", "http://h.test/page.asp", false],
    ["http://h.test/a?b", "http://h.test/a?b", true],
    ["http://h.test/a?b", "http://h.test/axb", false],
    ["/step=\\d+$/", "http://h.test/?step=12", true],
    ["/STEP/i", "http://h.test/?step=1", true],
    ["/STEP/", "http://h.test/?step=1", false],
  ];
  for (const [pattern, url, want] of cases) assert.equal(urlMatcher(pattern)(url), want, `${pattern} ~ ${url}`);
  assert.equal(globRegExp("a.b").source, "^a\\.b$");
  assert.throws(() => urlMatcher("**/{a,b"), (e) => e instanceof BridgeError && e.code === "invalid_action" && /without its }/.test(e.message));
  assert.throws(() => regexOf("text", "/(/"), (e) => e instanceof BridgeError && e.code === "invalid_action" && /^text "\/\(\/" is not a valid regular expression/.test(e.message));
  assert.equal(regexOf("text", "Saved"), null);
  assert.equal(regexOf("text", "/"), null);
  assert.deepEqual(waitedFor(10000), "10 s");
  assert.deepEqual(waitedFor(1500), "1.5 s");
  assert.deepEqual(waitedFor(400), "400 ms");
});

// fakeCtx is an executor's ctx over scripted CDP handlers.
function fakeCtx(handlers, action, { deadlineMs = 5000, signal, url = "http://h.test/" } = {}) {
  const calls = [];
  const listeners = new Set();
  const ctx = {
    tabId: 7,
    timers: globalThis,
    calls,
    budget: budgetFor(action, deadlineMs, Date.now(), signal),
    async send(method, params) {
      if (signal && signal.aborted) throw signal.reason;
      calls.push([method, params]);
      const h = handlers[method];
      return h ? (await h(params)) || {} : {};
    },
    sleep: (ms) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener("abort", () => {
          clearTimeout(t);
          reject(signal.reason);
        });
      }),
    on(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    emit: (m, p) => [...listeners].forEach((fn) => fn(m, p)),
    mainFrame: async () => ({ id: "MAIN", loaderId: "L1", url: ctx.url }),
    mainFrameId: () => "MAIN",
    url,
    cleared: 0,
    clearUids() {
      this.cleared++;
    },
  };
  return ctx;
}

test("wait_for text times out saying what was still not true", async () => {
  const action = { type: "wait_for", text: "Done", timeoutMs: 300 };
  const ctx = fakeCtx({ "Runtime.evaluate": () => ({ result: { value: { ok: false, seen: "it is not in the page" } } }) }, action);
  await assert.rejects(waitFor(ctx, action), (e) => e.code === "timeout" && e.message === 'text "Done" still not visible after 300 ms (it is not in the page)');
  const detached = { type: "wait_for", selector: ".spinner", state: "detached", timeoutMs: 200 };
  const ctx2 = fakeCtx({ "Runtime.evaluate": () => ({ result: { value: { ok: false, seen: "it is visible" } } }) }, detached);
  await assert.rejects(waitFor(ctx2, detached), (e) => e.code === "timeout" && e.message === 'selector ".spinner" still not detached after 200 ms (it is visible)');
  const sent = ctx2.calls[0][1].expression;
  assert.match(sent, /document\.querySelector\("\.spinner"\), true, \{"state":"detached"\}\)$/);
});

test("wait_for url polls the tab's URL until it matches", async () => {
  const action = { type: "wait_for", url: "**/done.html", timeoutMs: 3000 };
  const ctx = fakeCtx({}, action);
  setTimeout(() => (ctx.url = "http://h.test/flow/done.html"), 150);
  const t0 = Date.now();
  assert.deepEqual(await waitFor(ctx, action), { ok: true });
  assert.ok(Date.now() - t0 < 1500, `took ${Date.now() - t0} ms`);
  const never = { type: "wait_for", url: "/never/", timeoutMs: 200 };
  await assert.rejects(waitFor(fakeCtx({}, never), never), (e) => e.message === `the tab's URL still does not match "/never/" after 200 ms (it is http://h.test/)`);
});

test("wait_for stops at once when its request is cancelled", async () => {
  const ac = new AbortController();
  const action = { type: "wait_for", text: "Never", timeoutMs: 60000 };
  const ctx = fakeCtx({ "Runtime.evaluate": () => ({ result: { value: { ok: false, seen: "" } } }) }, action, { deadlineMs: 70000, signal: ac.signal });
  const p = waitFor(ctx, action);
  setTimeout(() => ac.abort(new BridgeError("internal_error", "cancelled")), 150);
  const t0 = Date.now();
  await assert.rejects(p, (e) => e.message === "cancelled");
  assert.ok(Date.now() - t0 < 500, `stopped ${Date.now() - t0} ms after the abort`);
});

test("wait_for treats an evaluate lost to a navigation as not yet", async () => {
  let n = 0;
  const action = { type: "wait_for", text: "Next page", timeoutMs: 3000 };
  const ctx = fakeCtx({
    "Runtime.evaluate": () => {
      if (++n === 1) throw new CdpError("Runtime.evaluate", "Execution context was destroyed.");
      if (n === 2) return { result: { value: { ok: true } } };
      throw new TypeError("a bug"); // anything but a CdpError is thrown
    },
  }, action);
  assert.deepEqual(await waitFor(ctx, action), { ok: true });
  assert.equal(n, 2);
  await assert.rejects(waitFor(ctx, action), TypeError);
});

test("go_back with no earlier entry does nothing and says so; with one it waits for the page", async () => {
  const action = { type: "go_back" };
  const none = fakeCtx({ "Page.getNavigationHistory": () => ({ currentIndex: 0, entries: [{ id: 1, url: "http://h.test/a" }] }) }, action);
  assert.deepEqual(await goBack(none, action), { ok: true, moved: false });
  assert.deepEqual(none.calls.map((c) => c[0]), ["Page.getNavigationHistory"], "nothing sent to move");

  // A same-document entry (pushState, a fragment): the change is the navigation.
  const same = fakeCtx({
    "Page.getNavigationHistory": () => ({ currentIndex: 1, entries: [{ id: 1, url: "http://h.test/a" }, { id: 2, url: "http://h.test/a#2" }] }),
    "Page.navigateToHistoryEntry": () => {
      setTimeout(() => same.emit("Page.navigatedWithinDocument", { frameId: "MAIN", url: "http://h.test/a" }), 20);
    },
  }, action);
  assert.deepEqual(await goBack(same, action), { ok: true, moved: true, url: "http://h.test/a" });
  assert.deepEqual(same.calls.find((c) => c[0] === "Page.navigateToHistoryEntry")[1], { entryId: 1 });
  assert.ok(same.cleared >= 1, "uids cleared");

  // A new document: its load.
  const fwd = { type: "go_forward" };
  const doc = fakeCtx({
    "Page.getNavigationHistory": () => ({ currentIndex: 0, entries: [{ id: 1, url: "http://h.test/a" }, { id: 2, url: "http://h.test/b" }] }),
    "Page.navigateToHistoryEntry": () => {
      setTimeout(() => {
        doc.emit("Page.frameNavigated", { frame: { id: "MAIN", loaderId: "L2", url: "http://h.test/b" } });
        doc.emit("Page.lifecycleEvent", { loaderId: "L2", name: "load" });
      }, 20);
    },
  }, fwd);
  assert.deepEqual(await goForward(doc, fwd), { ok: true, moved: true, url: "http://h.test/b" });
  const last = fakeCtx({ "Page.getNavigationHistory": () => ({ currentIndex: 1, entries: [{ id: 1 }, { id: 2 }] }) }, fwd);
  assert.deepEqual(await goForward(last, fwd), { ok: true, moved: false });
});
