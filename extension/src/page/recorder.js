// The recorder's page side (docs/record.md#bua-record,
// docs/extension.md#the-recorder): it runs in an isolated world of each
// frame of a recorded tab (recorder/inject.js), which the page's own
// scripts cannot reach, and reports the person's input through a CDP
// binding (Runtime.addBinding) that exists in that world only. It listens
// in the capture phase on the window, before any page listener, and only
// to trusted events (event.isTrusted: the person's own input, never a
// script's dispatchEvent or click()), so a page can neither forge a step
// nor hide one.
//
// It sends small JSON messages; the worker (recorder/recorder.js) turns
// them into steps:
//   see {id, loc, role, hidden}  an element the person is about to act
//                          on: the locators generateLocators (target/locator.js,
//                          the generator describe runs) gives it now, and
//                          its role locator by extract's rules
//                          (page/role-locator.js), taken as the pointer
//                          goes down, before a submit or a handler changes
//                          the page; the worker checks it against the
//                          accessibility tree while it can
//   click {id, count?}     a click on it (count 2: a double click)
//   type {id, value, secret?}  a text field's final value, once, when the
//                          person leaves it or acts elsewhere
//   select {id, values}    a <select>'s choice
//   upload {id, files}     the names of the files chosen
//   key {key}              Enter, Escape, Tab, a shortcut (a chord)
//   assert {text}          an Alt+Shift+click: wait for this text
// An element is held by id in the world (globalThis.__buaRecorder.el(id),
// the world's own global, not the page's), for the worker to find with
// Runtime.evaluate in the same world.
//
// internal/bundle bundles installRecorder, with the rules
// (page/recorder-rules.js) and the locator generator (page/locator.js),
// into generated/page.js's RECORDER (docs/extension.md#page-scripts). The
// rules are node-tested (test/recorder.test.js); the rest is proved in
// Chromium (e2e record_test.go).

import { generateLocators } from "./locator.js";
import { pageRoleLocator } from "./role-locator.js";
import { assertText, fieldKind, interactiveTarget, isSecretField, keyChord, keyStep } from "./recorder-rules.js";

// recorderState is the recorder's state in one frame's world: call, the
// binding, called with (json, at): at is when the input the message
// stands for happened (performance.now(): a field's last keystroke for
// its typing, a held click's click), which the early recorder
// (page/recorder-early.js) keeps; els, the elements held by id (at most
// 256, the oldest let go first). passive: never hide an input from the
// page (the early recorder's, which must not take a check's click from
// the recorder proper).
export function recorderState(call, { passive = false } = {}) {
  const st = { call, passive, els: new Map(), ids: new WeakMap(), typed: new WeakMap(), next: 1, stopped: false };
  st.dirty = null; // the text field being typed into: {el, id, at}
  st.down = null; // the last press: {el, id, t}
  st.lastClick = null; // {el, id, t, viaLabel}
  st.lastKey = null; // {key, t}
  st.held = null; // a click into a text field, held until the person types there or acts elsewhere
  st.asserting = false; // an Alt+Shift press is under way: its click is a check, not a click
  st.send = (msg, at = performance.now()) => {
    if (st.stopped) return;
    try {
      st.call(JSON.stringify(msg), at);
    } catch (e) {
      // The binding is gone (the recording ended): nothing to tell.
    }
  };
  st.see = (el) => {
    let id = st.ids.get(el);
    if (id === undefined) {
      id = st.next++;
      st.ids.set(el, id);
      st.els.set(id, el);
      if (st.els.size > 256) st.els.delete(st.els.keys().next().value);
    }
    const loc = generateLocators(el);
    const doc = el.ownerDocument || document;
    st.send({ k: "see", id, loc, role: roleNow(el), hidden: doc.visibilityState === "hidden" });
    return id;
  };
  st.flush = () => {
    const d = st.dirty;
    st.dirty = null;
    if (!d) return;
    const value = d.el.isContentEditable ? String(d.el.innerText || "") : String(d.el.value === undefined ? "" : d.el.value);
    if (st.typed.get(d.el) === value) return;
    st.typed.set(d.el, value);
    const msg = { k: "type", id: d.id, value };
    if (isSecretField(d.el)) msg.secret = true;
    st.send(msg, d.at);
  };
  st.release = () => {
    const held = st.held;
    st.held = null;
    if (held) st.send(held.msg, held.at);
  };
  return st;
}

// roleNow is el's role locator now (page/role-locator.js), null when it
// has none or the rules throw on an odd page.
export function roleNow(el) {
  try {
    return pageRoleLocator(el);
  } catch (e) {
    return null;
  }
}

// hide keeps an input from the page: the press and click of a check.
function hide(st, e) {
  if (st.passive) return;
  e.preventDefault();
  e.stopImmediatePropagation();
}

// onPointerDown: a press with the primary button. Alt+Shift starts a check
// (the page sees none of that press); any other press ends the typing of
// another field and names the element about to be clicked (see), while
// it is still there to be described.
export function onPointerDown(st, e) {
  if (!e.isTrusted || e.button !== 0) return;
  if (e.altKey && e.shiftKey) {
    st.asserting = true;
    hide(st, e);
    return;
  }
  const raw = e.composedPath()[0] || e.target;
  const { el } = interactiveTarget(raw);
  if (!st.dirty || st.dirty.el !== el) st.flush();
  if (st.held && st.held.el !== el) st.release();
  const kind = fieldKind(el);
  if (kind === "select" || kind === "file") return; // their change is the step
  st.down = { el, id: st.see(el), t: Date.now() };
}

// onClick: a click is a step on its interactive target, unless it is the
// click a <label> forwards to its control, the click Enter or Space makes
// on a focused button (the key was the step), a click into a text field
// (held: the typing that follows is the step), or on a <select> or a file
// input (their change is). A second click on the same element in a row
// is a double click.
export function onClick(st, e) {
  if (!e.isTrusted) return;
  const raw = e.composedPath()[0] || e.target;
  if (st.asserting) {
    st.asserting = false;
    hide(st, e);
    st.flush();
    st.release();
    const text = assertText(raw);
    if (text) st.send({ k: "assert", text });
    return;
  }
  if (e.button !== 0) return;
  const { el, viaLabel } = interactiveTarget(raw);
  const now = Date.now();
  const last = st.lastClick;
  if (last && last.el === el && last.viaLabel && now - last.t < 500) return;
  if (e.detail === 0 && st.lastKey && /(^|\+)(Enter|Space)$/.test(st.lastKey.key) && now - st.lastKey.t < 500) return;
  const kind = fieldKind(el);
  if (kind === "select" || kind === "file" || el.localName === "option") return;
  const again = last && last.el === el && e.detail >= 2 && now - last.t < 1000;
  const id = again ? last.id : st.down && st.down.el === el ? st.down.id : st.see(el);
  st.down = null;
  st.lastClick = { el, id, t: now, viaLabel };
  const msg = again ? { k: "click", id, count: Math.min(e.detail, 3) } : { k: "click", id };
  if (kind === "text" || kind === "multiline") {
    st.held = { el, msg, at: performance.now() };
    return;
  }
  st.flush();
  st.release();
  st.send(msg);
}

// onKeyDown: Enter, Escape, Tab and shortcuts are steps (keyStep); the
// typing before them is written first.
export function onKeyDown(st, e) {
  if (!e.isTrusted || e.isComposing) return;
  const chord = keyChord(e);
  if (!chord) return;
  const t = e.composedPath()[0] || e.target;
  const active = t && t.nodeType === 1 ? t : null;
  const onPage = !active || active.localName === "body" || active.localName === "html";
  if (!keyStep(chord, fieldKind(active), onPage)) return;
  st.flush();
  st.release();
  st.lastKey = { key: chord, t: Date.now() };
  st.send({ k: "key", key: chord });
}

// onInput: the person typed into a text field: it is the field being
// typed into until they leave it (its final value is the step), and a
// click into it that was held is dropped (typing there says enough).
export function onInput(st, e) {
  if (!e.isTrusted) return;
  const raw = e.composedPath()[0] || e.target;
  const kind = fieldKind(raw);
  if (kind !== "text" && kind !== "multiline") return;
  if (st.held && st.held.el === raw) st.held = null;
  if (st.dirty && st.dirty.el === raw) {
    st.dirty.at = performance.now();
    return;
  }
  st.flush();
  st.release();
  const id = st.ids.has(raw) ? st.ids.get(raw) : st.see(raw);
  st.dirty = { el: raw, id, at: performance.now() };
}

// onChange: a text field committed (its final value now), a <select>'s
// choice, the files chosen in a file input.
export function onChange(st, e) {
  if (!e.isTrusted) return;
  const el = e.composedPath()[0] || e.target;
  const kind = fieldKind(el);
  if (kind === "text" || kind === "multiline") {
    if (st.dirty && st.dirty.el === el) st.flush();
    return;
  }
  if (kind !== "select" && kind !== "file") return;
  st.flush();
  st.release();
  const id = st.see(el);
  if (kind === "select") st.send({ k: "select", id, values: Array.from(el.selectedOptions || [], (o) => o.value) });
  else st.send({ k: "upload", id, files: Array.from(el.files || [], (f) => f.name) });
}

// listen adds the recorder's listeners to the window (capture phase, so
// they run before the page's) and returns the function that removes them.
export function listen(st) {
  const asserting = (e) => st.asserting && e.isTrusted && hide(st, e);
  const on = {
    pointerdown: (e) => onPointerDown(st, e),
    mousedown: asserting,
    pointerup: asserting,
    mouseup: asserting,
    click: (e) => onClick(st, e),
    keydown: (e) => onKeyDown(st, e),
    input: (e) => onInput(st, e),
    change: (e) => onChange(st, e),
    focusout: (e) => e.isTrusted && st.dirty && st.dirty.el === (e.composedPath()[0] || e.target) && st.flush(),
    pagehide: () => st.flush(),
  };
  for (const [type, fn] of Object.entries(on)) window.addEventListener(type, fn, true);
  return () => {
    for (const [type, fn] of Object.entries(on)) window.removeEventListener(type, fn, true);
  };
}

// installRecorder starts recording in this world: the listeners, and for
// the worker el(id), role(id), stop(), and since, when it began listening
// (performance.now(): the early recorder's messages from before it are
// the ones it missed).
export function installRecorder(binding) {
  const call = globalThis[binding];
  if (typeof call !== "function" || globalThis.__buaRecorder) return;
  const st = recorderState((json) => call(json));
  const unlisten = listen(st);
  globalThis.__buaRecorder = {
    since: performance.now(),
    el: (id) => st.els.get(id) || null,
    // role(id) is the element's role locator now, for the worker to tell
    // whether the page changed it since the person pressed.
    role: (id) => (st.els.has(id) ? roleNow(st.els.get(id)) : null),
    stop() {
      st.flush();
      st.stopped = true;
      unlisten();
    },
  };
}
