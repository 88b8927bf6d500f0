// The popup and options page's UI layer
// (docs/extension.md#layering): pure view models and actions, run against a fake
// UiService; the pages never touch chrome.*; the HTML keeps the ids
// the headful e2e suite drives.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createPopupActions, popupView } from "../src/ui/popup/popup-view.js";
import { connectionText, createOptionsActions, historyRows, RESET_QUESTION } from "../src/ui/options/options-view.js";
import { ServiceError } from "../src/services/ui-service.js";

const path = (p) => fileURLToPath(new URL(p, import.meta.url));
const at = (h, m, s) => new Date(2025, 0, 2, h, m, s).getTime();

// fakeService records calls and answers from a table; a function value
// is called, an Error value is thrown.
function fakeService(answers = {}) {
  const calls = [];
  const service = new Proxy(
    {},
    {
      get: (_, method) => async (...args) => {
        calls.push([method, ...args]);
        const a = answers[method];
        if (a instanceof Error) throw a;
        return typeof a === "function" ? a(...args) : a;
      },
    },
  );
  return { service, calls };
}

const STATE = {
  connection: { state: "rejected", reason: "bad pairing token", fix: "Pair again", closeCode: 4002, url: "ws://x", kind: "user" },
  sessions: [
    { tabId: 7, domain: "shop.test", title: "Cart", actionCount: 1, startedAt: at(9, 5, 3) },
    { tabId: 8, domain: "news.test", title: "", actionCount: 12, startedAt: at(10, 0, 0) },
  ],
  handoffs: [{ tabId: 8, domain: "news.test", obstacleType: "captcha", message: "solve the captcha", since: 1 }],
  blocklist: ["blocked.test"],
};

test("popupView: connection with reason and fix, sessions with title, count and start, handoffs, Stop all", () => {
  const vm = popupView(STATE);
  assert.deepEqual(vm.connection, { state: "rejected", label: "rejected", reason: "bad pairing token", fix: "Pair again" });
  assert.deepEqual(
    vm.sessions.map((s) => [s.tabId, s.title, s.actions, s.started, s.stopLabel]),
    [
      [7, "Cart", "1 action", "09:05:03", "Stop bua's session on shop.test"],
      [8, "news.test", "12 actions", "10:00:00", "Stop bua's session on news.test"],
    ],
  );
  assert.deepEqual(vm.needsYou.map((h) => [h.tabId, h.text]), [[8, "bua needs you: captcha on news.test"]]);
  assert.equal(vm.empty, false);
  assert.equal(vm.stopAllDisabled, false);

  const none = popupView({ connection: { state: "connected" }, sessions: [], handoffs: [], blocklist: [] });
  assert.equal(none.empty, true);
  assert.equal(none.stopAllDisabled, true);
  assert.deepEqual(none.needsYou, []);
  assert.equal(popupView(null).connection.state, "connecting", "before the first state arrives");
});

test("popup actions call the service and word the outcome, failures included", async () => {
  const { service, calls } = fakeService({
    stopSession: new ServiceError("not_found", "no bua session on tab 7: it has ended already"),
    stopAll: { endedCount: 2 },
    focusTab: {},
  });
  const a = createPopupActions(service);
  assert.deepEqual(await a.stop(7), { ok: false, message: "no bua session on tab 7: it has ended already" });
  assert.deepEqual(await a.stopAll(), { ok: true, message: "stopped 2 sessions" });
  assert.deepEqual(await a.show(8), { ok: true, message: "tab 8 is in front" });
  assert.deepEqual(calls, [["stopSession", 7], ["stopAll"], ["focusTab", 8]]);
});

test("popupView: a live recording shows what it records, its steps and since when; none, nothing", () => {
  const vm = popupView({ ...STATE, recordings: [{ tabId: 7, tabs: [7, 9], lastTab: 9, title: "Terms", steps: 1, startedAt: at(9, 0, 0) }, { tabId: 4, lastTab: 4, title: "", steps: 12, startedAt: at(9, 1, 0) }] });
  assert.deepEqual(
    vm.recordings.map((r) => [r.tabId, r.text, r.steps]),
    [
      [7, "Terms", "1 step · since 09:00:00"],
      [4, "tab 4", "12 steps · since 09:01:00"],
    ],
  );
  assert.deepEqual(popupView(STATE).recordings, []);
});

test("recording actions: Stop, and the URL and title checks, worded from the answer", async () => {
  const { service, calls } = fakeService({
    stopRecording: { steps: 4 },
    assertPage: (req) => (req.what === "url" ? { url: "http://h.test/a" } : { title: "Dashboard" }),
  });
  const a = createPopupActions(service);
  assert.deepEqual(await a.stopRecording(7), { ok: true, message: "stopped recording after 4 steps: bua record writes the flow" });
  assert.deepEqual(await a.assertUrl(7), { ok: true, message: "added a check: the page is at http://h.test/a" });
  assert.deepEqual(await a.assertTitle(7), { ok: true, message: 'added a check: the page\'s title is "Dashboard"' });
  assert.deepEqual(calls, [["stopRecording", 7], ["assertPage", { tabId: 7, what: "url" }], ["assertPage", { tabId: 7, what: "title" }]]);
});

test("historyRows: newest first, filtered by every word against domain and reason", () => {
  const h = [
    { tabId: 1, domain: "shop.example.com", startedAt: at(9, 0, 0), endedAt: at(9, 1, 0), actionCount: 3, reason: "user_stopped" },
    { tabId: 2, domain: "news.test", startedAt: at(9, 2, 0), endedAt: at(9, 3, 0), actionCount: 0, reason: "tab_closed" },
    { tabId: 3, domain: "example.org", startedAt: at(9, 4, 0), endedAt: at(9, 5, 0), actionCount: 7, reason: "global_stop" },
  ];
  assert.deepEqual(historyRows(h).map((r) => r.tabId), [3, 2, 1]);
  assert.deepEqual(historyRows(h, "EXAMPLE").map((r) => r.tabId), [3, 1]);
  assert.deepEqual(historyRows(h, "stopped").map((r) => r.tabId), [1], "the reason's words match too");
  assert.deepEqual(historyRows(h, "example stop").map((r) => r.tabId), [3, 1]);
  assert.deepEqual(historyRows(h, "tab_closed").map((r) => r.tabId), [2]);
  assert.deepEqual(historyRows(h, "nothing"), []);
  const r = historyRows(h, "news")[0];
  assert.deepEqual([r.domain, r.reason, r.reasonLabel, r.started, r.actionCount], ["news.test", "tab_closed", "tab closed", "2025-01-02 09:02:00", 0]);
});

test("connectionText puts the reason, close code and URL on one line", () => {
  assert.deepEqual(connectionText({ state: "rejected", reason: "bad pairing token", closeCode: 4002, url: "ws://h", fix: "F" }), {
    state: "rejected",
    label: "rejected",
    reason: "bad pairing token (close 4002) · daemon ws://h",
    fix: "F",
  });
  assert.equal(connectionText({ state: "connected", url: "ws://h" }).reason, "daemon ws://h");
  assert.equal(connectionText(undefined).state, "connecting");
});

test("options actions: blocklist entries are validated before any call; reset asks first", async () => {
  const { service, calls } = fakeService({
    addBlocked: (d) => ({ blocklist: [d], endedCount: 1 }),
    removeBlocked: () => ({ blocklist: [] }),
    reset: {},
    saveConfig: new ServiceError("invalid_input", "the daemon URL must start with ws:// or wss:// (got http://)"),
    testConnection: { state: "rejected", reason: "bad pairing token", fix: "Pair again." },
    claimCode: { url: "ws://h/ws/browser" },
  });
  let answer = false;
  const asked = [];
  const a = createOptionsActions(service, { confirm: (q) => (asked.push(q), answer) });

  const bad = await a.addBlocked("not a domain");
  assert.equal(bad.ok, false);
  assert.match(bad.message, /is not a domain/);
  assert.equal(calls.length, 0, "an invalid entry never reaches the worker");
  const ok = await a.addBlocked("https://Shop.Example.com/x");
  assert.deepEqual(ok, { ok: true, message: "blocked shop.example.com and its subdomains; ended 1 session on it", blocklist: ["shop.example.com"] });
  assert.deepEqual((await a.removeBlocked("shop.example.com")).blocklist, []);

  assert.deepEqual(await a.reset(), { ok: true, message: "reset cancelled: nothing changed" });
  assert.deepEqual(asked, [RESET_QUESTION]);
  assert.ok(!calls.some(([m]) => m === "reset"), "no reset without a yes");
  answer = true;
  assert.equal((await a.reset()).ok, true);
  assert.ok(calls.some(([m]) => m === "reset"));

  assert.deepEqual(await a.save("http://x", "t"), { ok: false, message: "the daemon URL must start with ws:// or wss:// (got http://)" });
  assert.deepEqual(await a.test(), { ok: false, message: "test: rejected — bad pairing token. Pair again." });
  assert.deepEqual(await a.claim("ws://h/ws/browser", "abcd2345"), { ok: true, message: "paired with ws://h/ws/browser; connecting…" });
});

test("the UI layer never touches chrome.*: only services/ui-service-runtime.js does", () => {
  const code = (f) => readFileSync(path(f), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const files = readdirSync(path("../src/ui/"), { recursive: true }).filter((f) => f.endsWith(".js"));
  assert.ok(files.length >= 6, `found ${files}`);
  for (const f of files) {
    assert.doesNotMatch(code(`../src/ui/${f}`), /\bchrome\s*\.|\bchrome\b\s*\[|chrome-api\.js/, `src/ui/${f}`);
  }
  assert.doesNotMatch(code("../src/services/ui-service.js"), /\bchrome\s*\./, "the contract is pure");
  assert.match(code("../src/services/ui-service-runtime.js"), /globalThis\.chrome/, "the runtime service is where a page meets chrome");
});

test("the pages keep the ids the headful e2e suite drives", () => {
  const ids = (f) => new Set([...readFileSync(path(f), "utf8").matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]));
  const options = ids("../src/ui/options/options.html");
  for (const id of ["url", "token", "save", "code", "claim", "test", "state", "reason", "block-domain", "block-add", "blocklist", "history-filter", "history", "reset", "msg", "managed"]) {
    assert.ok(options.has(id), `options.html lacks #${id}`);
  }
  const popup = ids("../src/ui/popup/popup.html");
  for (const id of ["state", "reason", "fix", "sessions", "stop-all", "needs-you", "empty", "msg", "recording", "recordings"]) {
    assert.ok(popup.has(id), `popup.html lacks #${id}`);
  }
  const html = readFileSync(path("../src/ui/options/options.html"), "utf8");
  for (const input of ["url", "token", "code", "block-domain", "history-filter"]) {
    assert.match(html, new RegExp(`<label for="${input}">`), `#${input} has a label`);
  }
  assert.match(html, /id="msg" role="status"/);
  assert.match(readFileSync(path("../src/ui/popup/popup.html"), "utf8"), /id="needs-you" hidden/);
});
