// The recorder (bua record; docs/record.md#bua-record): the page side's
// rules with stand-ins for elements and events, the steps made of its
// messages and of webNavigation's commits, a Recording's order, bounds,
// long poll and secrets, and the worker's recorder over a fake debugger
// session. What only Chromium can show (trusted input, isolated worlds,
// the accessibility tree) is e2e/record_test.go's.

import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { readFileSync } from "node:fs";
import { assertText, fieldKind, interactiveTarget, isSecretField, keyChord, keyStep } from "../src/page/recorder-rules.js";
import { RECORDER } from "../src/generated/page.js";
import { SOURCE } from "../src/recorder/inject.js";
import { actionOf, historyPush, navStep, placeholder, uploadComment } from "../src/recorder/steps.js";
import { KEEP_ENDED_MS, MAX_READ, MAX_STEPS, Recording } from "../src/recorder/recording.js";
import { createRecorder } from "../src/recorder/recorder.js";
import { chooseRole, describeWithin, pressedRole } from "../src/recorder/describe.js";
import { EARLY_FILE, EARLY_ID, EarlyScript } from "../src/recorder/early.js";
import { BINDING, WORLD, frameIds } from "../src/recorder/inject.js";
import { CdpError } from "../src/core/cdp.js";

// el is a stand-in element: tag, attributes, and props (parent, type,
// control, value, isContentEditable, innerText).
function el(tag, attrs = {}, props = {}) {
  return {
    nodeType: 1,
    localName: tag,
    parentElement: props.parent || null,
    getAttribute: (n) => (Object.hasOwn(attrs, n) ? attrs[n] : null),
    hasAttribute: (n) => Object.hasOwn(attrs, n),
    ...props,
  };
}

const key = (k, mods = {}) => ({ key: k, code: mods.code || "", ctrlKey: !!mods.ctrl, shiftKey: !!mods.shift, altKey: !!mods.alt, metaKey: !!mods.meta });

test("a click means the nearest interactive ancestor; a label means its control; nothing interactive, the element", () => {
  const body = el("body");
  const button = el("button", {}, { parent: body });
  const span = el("span", {}, { parent: button });
  assert.equal(interactiveTarget(span).el, button);
  const link = el("a", { href: "/x" }, { parent: body });
  assert.equal(interactiveTarget(el("img", {}, { parent: link })).el, link);
  const anchor = el("a", {}, { parent: body }); // no href: not a link
  const text = el("b", {}, { parent: anchor });
  assert.equal(interactiveTarget(text).el, text);
  const box = el("input", { type: "checkbox" }, { parent: body, type: "checkbox" });
  const label = el("label", {}, { parent: body, control: box });
  assert.deepEqual(interactiveTarget(el("span", {}, { parent: label })), { el: box, viaLabel: true });
  const widget = el("div", { role: "menuitem" }, { parent: body });
  assert.equal(interactiveTarget(el("i", {}, { parent: widget })).el, widget);
  const stop = el("div", { tabindex: "0" }, { parent: body });
  assert.equal(interactiveTarget(stop).el, stop);
  assert.equal(interactiveTarget(el("div", { tabindex: "-1" }, { parent: body })).el.localName, "div");
});

test("fields: text, multiline, select, file, toggle; a password or one-time code is a secret", () => {
  const input = (type, attrs = {}) => el("input", { type, ...attrs }, { type });
  assert.equal(fieldKind(input("email")), "text");
  assert.equal(fieldKind(input("date")), "text");
  assert.equal(fieldKind(input("checkbox")), "toggle");
  assert.equal(fieldKind(input("radio")), "toggle");
  assert.equal(fieldKind(input("file")), "file");
  assert.equal(fieldKind(input("range")), "");
  assert.equal(fieldKind(el("textarea")), "multiline");
  assert.equal(fieldKind(el("div", {}, { isContentEditable: true })), "multiline");
  assert.equal(fieldKind(el("select")), "select");
  assert.equal(fieldKind(el("button")), "");
  assert.equal(fieldKind(null), "");
  assert.equal(isSecretField(input("password")), true);
  assert.equal(isSecretField(input("text", { autocomplete: "one-time-code" })), true);
  assert.equal(isSecretField(input("text", { autocomplete: "section-x new-password" })), true);
  assert.equal(isSecretField(input("text", { autocomplete: "username" })), false);
  assert.equal(isSecretField(el("textarea")), false);
});

test("keys are named as press_key takes them", () => {
  assert.equal(keyChord(key("Enter")), "Enter");
  assert.equal(keyChord(key("Tab", { shift: true })), "Shift+Tab");
  assert.equal(keyChord(key("S", { ctrl: true, shift: true, code: "KeyS" })), "Control+Shift+s");
  assert.equal(keyChord(key("1", { alt: true, code: "Digit1" })), "Alt+1");
  assert.equal(keyChord(key("?", { shift: true })), "?", "a character typed with Shift is the character");
  assert.equal(keyChord(key(" ")), "Space");
  assert.equal(keyChord(key("Shift", { shift: true })), null);
  assert.equal(keyChord(key("Dead")), null);
  assert.equal(keyChord(key("MediaPlayPause")), null);
});

test("which keys are steps: typing is not, Enter, Tab, Escape and shortcuts are; a page's scrolling is not", () => {
  assert.equal(keyStep("a", "text", false), false);
  assert.equal(keyStep("Backspace", "text", false), false);
  assert.equal(keyStep("Control+a", "text", false), false, "editing shortcuts are part of the typing");
  assert.equal(keyStep("Control+v", "multiline", false), false);
  assert.equal(keyStep("Enter", "text", false), true);
  assert.equal(keyStep("Enter", "multiline", false), false, "a newline in a textarea is typing");
  assert.equal(keyStep("Control+Enter", "multiline", false), true);
  assert.equal(keyStep("Tab", "text", false), true);
  assert.equal(keyStep("Escape", "text", false), true);
  assert.equal(keyStep("Control+k", "text", false), true);
  assert.equal(keyStep("ArrowDown", "select", false), false, "a select's arrows make its change");
  assert.equal(keyStep("Enter", "select", false), false);
  assert.equal(keyStep("Tab", "select", false), true);
  assert.equal(keyStep("ArrowDown", "", true), false, "scrolling the page");
  assert.equal(keyStep("Space", "", false), false, "Space on a button is its click");
  assert.equal(keyStep("ArrowDown", "", false), true, "arrows in a widget");
  assert.equal(keyStep("?", "", true), true, "a page's own shortcut");
  assert.equal(keyStep("Enter", "", false), true);
});

test("an Alt+Shift+click checks the text under the pointer, cut at a word", () => {
  const p = el("p", {}, { innerText: "  Welcome,\n ada  " });
  assert.equal(assertText(el("span", {}, { parent: p, innerText: "" })), "Welcome, ada");
  const long = "word ".repeat(40);
  const got = assertText(el("p", {}, { innerText: long }));
  assert.ok(got.length <= 80 && !got.endsWith(" ") && long.startsWith(got), got);
  assert.equal(assertText(el("img", {}, { innerText: "" })), "");
});

test("the bundled page side runs alone in a realm of its own: trusted keys only, once per world, until stopped", () => {
  assert.match(SOURCE, /^\(function \(\) \{ \/\* bua:recorder \*\//);
  assert.ok(SOURCE.endsWith(`)(${JSON.stringify(BINDING)});`));
  const sent = [];
  const listeners = new Map();
  const world = vm.createContext({
    [BINDING]: (...args) => sent.push(args.length === 1 ? JSON.parse(args[0]) : args),
    addEventListener: (type, fn, capture) => capture === true && listeners.set(type, fn),
    removeEventListener: (type, fn) => listeners.get(type) === fn && listeners.delete(type),
    performance: { now: () => 5 },
  });
  world.window = world;
  vm.runInContext(SOURCE, world);
  assert.deepEqual([...listeners.keys()].sort(), ["change", "click", "focusout", "input", "keydown", "mousedown", "mouseup", "pagehide", "pointerdown", "pointerup"]);
  const body = el("body");
  const press = (isTrusted, k) => listeners.get("keydown")({ isTrusted, isComposing: false, ...key(k), target: body, composedPath: () => [body] });
  press(false, "Escape");
  press(true, "Escape");
  assert.deepEqual(sent, [{ k: "key", key: "Escape" }], "a page's own keydown is not the person's");
  const first = listeners.get("keydown");
  vm.runInContext(SOURCE, world);
  assert.equal(listeners.get("keydown"), first, "a second run in the same world installs nothing");
  const own = new Set([BINDING, "addEventListener", "removeEventListener", "performance", "window"]);
  assert.deepEqual(Object.keys(world).filter((k) => !own.has(k)), ["__buaRecorder"], "nothing but __buaRecorder on the world's global (the bundle's own names stay in its closure)");
  vm.runInContext("__buaRecorder.stop()", world);
  assert.equal(listeners.size, 0);
  assert.ok(RECORDER.includes("function generateLocators("), "the locator generator is bundled in");
});

test("messages become actions: a double click, typed text set later, choices, placeholder paths, keys, checks", () => {
  assert.deepEqual(actionOf({ k: "click", id: 1 }), { type: "click" });
  assert.deepEqual(actionOf({ k: "click", id: 1, count: 2 }), { type: "click", clickCount: 2 });
  assert.deepEqual(actionOf({ k: "type", id: 1, value: "x" }), { type: "type", clear: true });
  assert.deepEqual(actionOf({ k: "select", values: ["pro", 2] }), { type: "select_option", value: ["pro", "2"] });
  assert.deepEqual(actionOf({ k: "upload", files: ["report.pdf", "../x"] }), { type: "upload", files: ["report.pdf", ".._x"] });
  assert.deepEqual(actionOf({ k: "key", key: "Enter" }), { type: "press_key", key: "Enter" });
  assert.deepEqual(actionOf({ k: "assert", text: "Done" }), { type: "wait_for", text: "Done" });
  assert.equal(actionOf({ k: "see", id: 1 }), null);
  assert.equal(placeholder(".."), "file");
  assert.match(uploadComment(["a.pdf"]), /put that file beside this flow/);
  assert.equal(uploadComment([]), "the person cleared the file input");
});

test("navigations: typed is navigate, a link is landed, reload, back and forward by the tab's history", () => {
  const hist = { list: [], at: 0 };
  historyPush(hist, "http://h.test/a");
  assert.deepEqual(navStep({ url: "http://h.test/b", transitionType: "link", transitionQualifiers: [] }, hist), { landed: true });
  assert.deepEqual(navStep({ url: "http://h.test/c", transitionType: "typed", transitionQualifiers: ["from_address_bar"] }, hist), { action: { type: "navigate", url: "http://h.test/c" } });
  assert.deepEqual(navStep({ url: "http://h.test/c", transitionType: "reload" }, hist), { action: { type: "reload" } });
  assert.deepEqual(navStep({ url: "http://h.test/b", transitionType: "link", transitionQualifiers: ["forward_back"] }, hist), { action: { type: "go_back" } });
  assert.deepEqual(navStep({ url: "http://h.test/c", transitionType: "typed", transitionQualifiers: ["forward_back", "from_address_bar"] }, hist), { action: { type: "go_forward" } });
  assert.deepEqual(navStep({ url: "http://h.test/z", transitionType: "link", transitionQualifiers: ["forward_back"] }, hist), { action: { type: "navigate", url: "http://h.test/z" } });
  assert.deepEqual(navStep({ url: "http://h.test/d", transitionType: "auto_bookmark" }, hist).action.type, "navigate");
  assert.deepEqual(navStep({ url: "http://h.test/e", transitionType: "form_submit" }, hist), { landed: true });
});

test("a Recording keeps the person's order however long each step takes to make, and reads from sinceSeq", async () => {
  const r = new Recording(1, { url: "http://h.test/" });
  let slow;
  const first = r.add(new Promise((resolve) => (slow = resolve)));
  const second = r.add({ tabId: 1, url: "u", action: { type: "press_key", key: "Enter" } });
  r.add(null); // a message that made no step
  assert.deepEqual(r.read(0).steps, [], "nothing before the first step is made");
  slow({ tabId: 1, url: "u", action: { type: "click" } });
  await Promise.all([first, second]);
  const all = r.read(0);
  assert.deepEqual(all.steps.map((s) => [s.seq, s.action.type]), [[1, "click"], [2, "press_key"]]);
  assert.equal(all.nextSeq, 3);
  assert.deepEqual(r.read(2).steps.map((s) => s.seq), [2]);
  assert.deepEqual(r.read(3), { steps: [], nextSeq: 3, dropped: 0, ended: false });
  r.end("stopped");
  r.end("tab_closed");
  assert.deepEqual(r.read(3), { steps: [], nextSeq: 3, dropped: 0, ended: true, reason: "stopped" }, "the first reason wins");
});

test("a Recording is bounded: the oldest steps go (dropped), a read answers at most MAX_READ", async () => {
  const r = new Recording(1);
  for (let i = 0; i < MAX_STEPS + 10; i++) await r.add({ tabId: 1, url: "u", action: { type: "click" } });
  const first = r.read(1);
  assert.equal(first.dropped, 10);
  assert.equal(first.steps.length, MAX_READ);
  assert.equal(first.steps[0].seq, 11);
  assert.equal(r.read(first.nextSeq).steps[0].seq, 11 + MAX_READ);
});

test("a read waits for the next step (a long poll), or for the end, or its time", async () => {
  const r = new Recording(1);
  const t0 = Date.now();
  setTimeout(() => r.add({ tabId: 1, url: "u", action: { type: "click" } }), 20);
  await r.wait(1, 5000);
  assert.ok(Date.now() - t0 < 1000, "woke at the step");
  setTimeout(() => r.end("user_stopped"), 20);
  await r.wait(2, 5000);
  assert.equal(r.read(2).reason, "user_stopped");
  const idle = new Recording(2);
  const t1 = Date.now();
  await idle.wait(1, 50);
  assert.ok(Date.now() - t1 >= 45, "waited its time");
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 10);
  await idle.wait(1, 5000, globalThis, ac.signal);
});

test("secrets: numbered by text, found again in a plain field, masked in URLs in any encoding", () => {
  const r = new Recording(1);
  assert.equal(r.secret("p@ss word", true), 1);
  assert.equal(r.secret("p@ss word", false), 1, "the same text typed elsewhere");
  assert.equal(r.secret("other", false), 0);
  assert.equal(r.secret("", true), 0);
  assert.equal(r.secret("two", true), 2);
  assert.deepEqual(r.mask("http://h.test/?pw=p%40ss%20word&q=1"), { url: "http://h.test/?pw=***&q=1", masked: true });
  assert.deepEqual(r.mask("http://h.test/?pw=p%40ss+word"), { url: "http://h.test/?pw=***", masked: true });
  assert.deepEqual(r.mask("http://h.test/"), { url: "http://h.test/", masked: false });
});

test("frame trees list every frame", () => {
  assert.deepEqual(frameIds({ frame: { id: "a" }, childFrames: [{ frame: { id: "b" }, childFrames: [{ frame: { id: "c" } }] }, { frame: { id: "d" } }] }), ["a", "b", "c", "d"]);
});

// fakeWorld is a recorder over a fake debugger session: sends are logged,
// the element lookup fails (no role locator: the page side's locators
// stand), and events are fired by hand.
function fakeWorld({ early = {}, onTake = () => {} } = {}) {
  const sent = [];
  const fire = {};
  const listeners = (name) => ({ addListener: (fn) => (fire[name] = fn), removeListener: () => delete fire[name] });
  const api = {
    runtime: { id: "EXT" },
    debugger: { onEvent: listeners("debugger") },
    tabs: { get: async (id) => ({ id, url: "http://h.test/", title: `tab ${id}`, status: "complete" }) },
    webNavigation: { onCommitted: listeners("committed"), onHistoryStateUpdated: listeners("history"), onReferenceFragmentUpdated: listeners("fragment"), onCreatedNavigationTarget: listeners("created") },
  };
  const session = (tabId) => ({
    tabId,
    frames: new Map(),
    // A tab with early messages has the early recorder's world, which
    // Runtime.enable reports as the attach sets the domains up.
    attach: async () => {
      if (early[tabId]) fire.debugger({ tabId }, "Runtime.executionContextCreated", { context: { id: 9, origin: "chrome-extension://EXT", name: "bua bridge", auxData: { type: "isolated", frameId: "F" } } });
    },
    async send(method, params, sid) {
      sent.push({ tabId, method, params, sid });
      if (method === "Runtime.evaluate" && /__buaRecorder\.since/.test(params.expression)) return { result: { value: 100 } };
      if (method === "Runtime.evaluate" && /\.take\(100\)/.test(params.expression)) {
        assert.equal(params.contextId, 9, "taken from the early recorder's world");
        onTake(tabId);
        return { result: { value: (early[tabId] || []).map((m) => JSON.stringify(m)) } };
      }
      if (method === "Page.addScriptToEvaluateOnNewDocument") return { identifier: "s1" };
      if (method === "Page.getFrameTree") return { frameTree: { frame: { id: "F" } } };
      if (method === "Page.createIsolatedWorld") return { executionContextId: 5 };
      if (method === "Runtime.evaluate" && /__buaRecorder\.el/.test(params.expression)) throw new CdpError(method, "gone");
      return {};
    },
  });
  const sessions = { onEnded: (fn) => (fire.ended = fn), isDomainBlocked: () => null, ensureSession: () => {} };
  // An ended recording is forgotten KEEP_ENDED_MS (minutes) later: that
  // timer, unref'd, must not hold node open after the tests end.
  const timers = {
    setTimeout: (fn, ms) => {
      const t = setTimeout(fn, ms);
      if (ms >= KEEP_ENDED_MS) t.unref();
      return t;
    },
    clearTimeout,
  };
  const recorder = createRecorder({ api, controller: { session }, sessions, timers });
  const say = (tabId, msg) => fire.debugger({ tabId }, "Runtime.bindingCalled", { name: BINDING, payload: JSON.stringify(msg), executionContextId: 5 });
  return { recorder, sent, fire, say };
}

test("a tab a click opened starts with the inputs the early recorder saw before the recorder proper listened, then the recorder proper's", async () => {
  let say = null;
  // The recorder proper's click arrives while the early one's are taken.
  const onTake = (tabId) => say(tabId, { k: "key", key: "Escape" });
  const w = fakeWorld({ early: { 9: [{ k: "click", id: 1 }, { k: "key", key: "Enter" }] }, onTake });
  say = w.say;
  await w.recorder.start({ id: 7, url: "http://h.test/" });
  w.fire.created({ sourceTabId: 7, tabId: 9, url: "http://h.test/terms" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const steps = (await w.recorder.read(7, 0, 0)).steps;
  assert.deepEqual(
    steps.map((s) => [s.tabId, s.action ? s.action.type : `opened ${s.newTabId}`, s.action && s.action.key]),
    [[7, "opened 9", undefined], [9, "click", undefined], [9, "press_key", "Enter"], [9, "press_key", "Escape"]],
  );
  await w.recorder.stop(7);
});

const loc = (label) => ({ tag: "input", inputType: "password", label, locators: [{ by: "id", selector: "#pw", count: 1 }] });

test("the recorder injects into the tab's worlds, turns messages into steps, never lets a secret's text out, and cleans up", async () => {
  const { recorder, sent, fire, say } = fakeWorld();
  const started = await recorder.start({ id: 7, url: "http://h.test/login", title: "Sign in" });
  assert.deepEqual(started, { ok: true, tabId: 7, url: "http://h.test/login", steps: 0, title: "Sign in" });
  const methods = sent.map((s) => s.method);
  for (const m of ["Runtime.addBinding", "Page.addScriptToEvaluateOnNewDocument", "Page.createIsolatedWorld"]) assert.ok(methods.includes(m), m);
  assert.deepEqual(sent.find((s) => s.method === "Runtime.addBinding").params, { name: BINDING, executionContextName: WORLD });
  assert.equal(sent.find((s) => s.method === "Page.addScriptToEvaluateOnNewDocument").params.worldName, WORLD);
  assert.ok(sent.some((s) => s.method === "Runtime.evaluate" && s.params.contextId === 5 && /bua:recorder/.test(s.params.expression)));
  await assert.rejects(recorder.start({ id: 7, url: "x" }), /already being recorded/);
  assert.deepEqual(recorder.list().map((r) => r.tabId), [7]);

  say(7, { k: "see", id: 1, loc: loc("Password"), hidden: false });
  say(7, { k: "type", id: 1, value: "s3cret!", secret: true });
  say(7, { k: "see", id: 2, loc: { tag: "input", label: "Note", locators: [] } });
  say(7, { k: "type", id: 2, value: "s3cret!" });
  say(7, { k: "key", key: "Enter" });
  say(8, { k: "key", key: "Tab" }); // another tab's binding: not this recording's
  fire.debugger({ tabId: 7 }, "Runtime.bindingCalled", { name: "someone_else", payload: "{}", executionContextId: 5 });
  fire.committed({ tabId: 7, frameId: 0, url: "http://h.test/home?pw=s3cret%21", transitionType: "form_submit" });
  const r = await recorder.read(7, 0, 2000);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const all = (await recorder.read(7, 0, 0)).steps;
  assert.ok(r.steps.length >= 1);
  assert.deepEqual(all.map((s) => [s.seq, s.action ? s.action.type : "landed", s.secret || 0]), [[1, "type", 1], [2, "type", 1], [3, "press_key", 0], [4, "landed", 0]]);
  assert.equal(all[0].target.label, "Password");
  assert.equal(all[3].url, "http://h.test/home?pw=***");
  assert.equal(all[3].masked, true);
  assert.doesNotMatch(JSON.stringify(all), /s3cret/, "the secret's text never leaves the worker");

  const stopped = await recorder.stop(7);
  assert.equal(stopped.ended, true);
  assert.equal(stopped.reason, "stopped");
  assert.deepEqual((await recorder.read(7, 5, 0)), { steps: [], nextSeq: 5, dropped: 0, ended: true, reason: "stopped" });
  for (const m of ["Page.removeScriptToEvaluateOnNewDocument", "Runtime.removeBinding"]) assert.ok(sent.some((s) => s.method === m), m);
  assert.deepEqual(recorder.list(), []);
  await assert.rejects(recorder.read(99, 0, 0), /no recording started on tab 99/);
});

test("a recording follows the tab a click opens, and ends when its last tab closes or its session ends otherwise", async () => {
  const { recorder, fire, say } = fakeWorld();
  await recorder.start({ id: 7, url: "http://h.test/" });
  say(7, { k: "click", id: 1 });
  fire.created({ sourceTabId: 7, tabId: 9, url: "http://h.test/terms" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  say(9, { k: "click", id: 1 });
  await new Promise((resolve) => setTimeout(resolve, 10));
  const steps = (await recorder.read(7, 0, 0)).steps;
  assert.deepEqual(steps.map((s) => [s.tabId, s.action ? s.action.type : `opened ${s.newTabId}`]), [[7, "click"], [7, "opened 9"], [9, "click"]]);
  fire.ended({ tabId: 7, reason: "tab_closed" });
  assert.equal((await recorder.read(7, 4, 0)).ended, false, "tab 9 is still recorded");
  fire.ended({ tabId: 9, reason: "tab_closed" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal((await recorder.read(7, 4, 0)).reason, "tab_closed");

  await recorder.start({ id: 3, url: "http://h.test/" });
  fire.ended({ tabId: 3, reason: "user_stopped" });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal((await recorder.read(3, 0, 0)).reason, "session_ended");
});

test("the step's role locator: the tree's when it names what was pressed or the element is unchanged, else the one taken at pointerdown", () => {
  const pressed = pressedRole({ by: "role", role: "button", name: "  Sign   in ", count: 1 });
  assert.deepEqual(pressed, { by: "role", role: "button", name: "Sign in", count: 1 });
  const ax = (name) => ({ by: "role", role: "button", name, count: 1 });
  assert.equal(chooseRole(ax("Sign in"), pressed, false).name, "Sign in");
  // The page renamed the button as it was clicked: the tree's name came too late.
  assert.equal(chooseRole(ax("Signing in…"), pressed, false), pressed);
  // Extract's rules and the tree differ on an element the page left alone: the tree's.
  assert.equal(chooseRole(ax("Sign in now"), pressed, true).name, "Sign in now");
  // The page navigated before the lookup: none from the tree.
  assert.equal(chooseRole(null, pressed, false), pressed);
  assert.equal(chooseRole(ax("x"), null, false).name, "x");
  assert.equal(pressedRole({ by: "role", role: "generic", count: 1 }), null, "no role a target takes");
  assert.equal(pressedRole({ by: "role", role: "link", name: "/a/", count: 2, nth: 1 }).name, "/^\\/a\\/$/", "a name that reads as a pattern is escaped");
  assert.equal(pressedRole(null), null);
});

test("the early recorder keeps, without hiding anything from the page, the inputs from before the recorder proper listened, and gives them once", () => {
  const src = readFileSync(new URL("../src/generated/recorder-early.js", import.meta.url), "utf8");
  const listeners = new Map();
  let now = 10;
  const world = vm.createContext({
    addEventListener: (type, fn, capture) => capture === true && listeners.set(type, fn),
    removeEventListener: (type, fn) => listeners.get(type) === fn && listeners.delete(type),
    performance: { now: () => now },
    setTimeout: () => 1,
    clearTimeout: () => {},
  });
  world.window = world;
  vm.runInContext(src, world);
  const body = el("body");
  let hidden = 0;
  const press = (k, at) => {
    now = at;
    listeners.get("keydown")({ isTrusted: true, isComposing: false, ...key(k), target: body, composedPath: () => [body] });
  };
  const assertPress = { isTrusted: true, button: 0, altKey: true, shiftKey: true, preventDefault: () => hidden++, stopImmediatePropagation: () => hidden++ };
  listeners.get("pointerdown")(assertPress);
  assert.equal(hidden, 0, "a check's press is the page's too: the recorder proper hides it");
  press("Escape", 20);
  press("Tab", 40);
  const taken = Array.from(vm.runInContext("__buaRecorder.take(30)", world), (m) => JSON.parse(m));
  assert.deepEqual(taken, [{ k: "key", key: "Escape" }], "the Tab came after the recorder proper listened: its own");
  assert.equal(listeners.size, 0, "taken: it listens no more");
});

test("the early recorder is registered while a recording runs, once, and never persisted", async () => {
  const registered = new Map();
  const calls = [];
  const scripting = {
    getRegisteredContentScripts: async ({ ids }) => ids.filter((id) => registered.has(id)).map((id) => registered.get(id)),
    registerContentScripts: async (scripts) => scripts.forEach((s) => (calls.push("register"), registered.set(s.id, s))),
    unregisterContentScripts: async ({ ids }) => ids.forEach((id) => (calls.push("unregister"), registered.delete(id))),
  };
  const early = new EarlyScript(scripting);
  await early.set(true);
  await early.set(true);
  assert.deepEqual(calls, ["register"]);
  const s = registered.get(EARLY_ID);
  assert.deepEqual([s.js, s.runAt, s.allFrames, s.persistAcrossSessions, s.matches], [[EARLY_FILE], "document_start", false, false, ["<all_urls>"]]);
  assert.ok(readFileSync(new URL(`../${EARLY_FILE}`, import.meta.url), "utf8").includes("installEarly"), "the file it names is the bundled early recorder");
  await early.set(false);
  assert.deepEqual(calls, ["register", "unregister"]);
  await new EarlyScript(undefined).set(true); // no chrome.scripting: nothing, no throw
});

test("an element's description never holds up the steps after it: a lookup a hidden page defers gives way to what the page side took", async () => {
  const hanging = { send: () => new Promise(() => {}) };
  const timers = { setTimeout: (fn) => setImmediate(fn), clearTimeout: () => {} };
  const see = { id: 1, loc: { tag: "a", locators: [{ by: "css", selector: "a", count: 1 }] }, role: { by: "role", role: "link", name: "Read the terms", count: 1 } };
  const d = await describeWithin(hanging, null, 5, see, timers);
  assert.deepEqual(d.locators.map((l) => l.by), ["role", "css"]);
  assert.equal(d.locators[0].name, "Read the terms");
});
