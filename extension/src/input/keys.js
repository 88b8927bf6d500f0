// Pure key map for press_key: turns a key spec ("Enter", "a", "Control+a",
// "Shift+Tab") into the Input.dispatchKeyEvent parameter sequence a real
// keyboard would produce. No chrome.* here so node tests can cover it.

import { KEY_MODIFIERS } from "../generated/protocol.js";

// CDP's modifier bitmask (Input.dispatchKeyEvent `modifiers`).
export const MODIFIER_BITS = Object.freeze({ Alt: 1, Control: 2, Meta: 4, Shift: 8 });

export const MODIFIER_KEYS = Object.freeze({
  Alt: { key: "Alt", code: "AltLeft", windowsVirtualKeyCode: 18 },
  Control: { key: "Control", code: "ControlLeft", windowsVirtualKeyCode: 17 },
  Meta: { key: "Meta", code: "MetaLeft", windowsVirtualKeyCode: 91 },
  Shift: { key: "Shift", code: "ShiftLeft", windowsVirtualKeyCode: 16 },
});

// Named keys from the schema's x-namedKeys (generated NAMED_KEYS; a node
// test holds this table's names equal to that list, and the modifiers to
// KEY_MODIFIERS). `text` is what the key types into
// an editable element: Enter sends "\r" because that is what Chromium's own
// keyboard path produces and what makes forms submit.
export const NAMED_KEYS = Object.freeze({
  Enter: { key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, text: "\r" },
  Tab: { key: "Tab", code: "Tab", windowsVirtualKeyCode: 9 },
  Escape: { key: "Escape", code: "Escape", windowsVirtualKeyCode: 27 },
  Backspace: { key: "Backspace", code: "Backspace", windowsVirtualKeyCode: 8 },
  Delete: { key: "Delete", code: "Delete", windowsVirtualKeyCode: 46 },
  Space: { key: " ", code: "Space", windowsVirtualKeyCode: 32, text: " " },
  ArrowUp: { key: "ArrowUp", code: "ArrowUp", windowsVirtualKeyCode: 38 },
  ArrowDown: { key: "ArrowDown", code: "ArrowDown", windowsVirtualKeyCode: 40 },
  ArrowLeft: { key: "ArrowLeft", code: "ArrowLeft", windowsVirtualKeyCode: 37 },
  ArrowRight: { key: "ArrowRight", code: "ArrowRight", windowsVirtualKeyCode: 39 },
  Home: { key: "Home", code: "Home", windowsVirtualKeyCode: 36 },
  End: { key: "End", code: "End", windowsVirtualKeyCode: 35 },
  PageUp: { key: "PageUp", code: "PageUp", windowsVirtualKeyCode: 33 },
  PageDown: { key: "PageDown", code: "PageDown", windowsVirtualKeyCode: 34 },
  F1: { key: "F1", code: "F1", windowsVirtualKeyCode: 112 },
  F2: { key: "F2", code: "F2", windowsVirtualKeyCode: 113 },
  F3: { key: "F3", code: "F3", windowsVirtualKeyCode: 114 },
  F4: { key: "F4", code: "F4", windowsVirtualKeyCode: 115 },
  F5: { key: "F5", code: "F5", windowsVirtualKeyCode: 116 },
  F6: { key: "F6", code: "F6", windowsVirtualKeyCode: 117 },
  F7: { key: "F7", code: "F7", windowsVirtualKeyCode: 118 },
  F8: { key: "F8", code: "F8", windowsVirtualKeyCode: 119 },
  F9: { key: "F9", code: "F9", windowsVirtualKeyCode: 120 },
  F10: { key: "F10", code: "F10", windowsVirtualKeyCode: 121 },
  F11: { key: "F11", code: "F11", windowsVirtualKeyCode: 122 },
  F12: { key: "F12", code: "F12", windowsVirtualKeyCode: 123 },
  // Modifiers alone are not in the schema's pattern, but pressing one is a
  // meaningful gesture for pages listening to keydown, so they resolve too.
  ...MODIFIER_KEYS,
});

// US layout punctuation: unshifted char -> [code, vk], and shifted char ->
// the unshifted char on the same physical key.
const PUNCT = {
  "`": ["Backquote", 192], "-": ["Minus", 189], "=": ["Equal", 187],
  "[": ["BracketLeft", 219], "]": ["BracketRight", 221], "\\": ["Backslash", 220],
  ";": ["Semicolon", 186], "'": ["Quote", 222], ",": ["Comma", 188],
  ".": ["Period", 190], "/": ["Slash", 191],
};
const SHIFTED = {
  "~": "`", "!": "1", "@": "2", "#": "3", "$": "4", "%": "5", "^": "6",
  "&": "7", "*": "8", "(": "9", ")": "0", "_": "-", "+": "=", "{": "[",
  "}": "]", "|": "\\", ":": ";", "\"": "'", "<": ",", ">": ".", "?": "/",
};
const SHIFT_OF = Object.fromEntries(Object.entries(SHIFTED).map(([s, u]) => [u, s]));

// Describes one printable character as the US-layout key that types it.
// `shiftImplied` marks characters that need Shift on that layout (e.g. "A",
// "!"), so the chord gets the Shift bit the way a real keyboard reports it.
function describeChar(ch) {
  if (/^[a-z]$/.test(ch)) {
    return { key: ch, code: `Key${ch.toUpperCase()}`, windowsVirtualKeyCode: ch.toUpperCase().charCodeAt(0), text: ch };
  }
  if (/^[A-Z]$/.test(ch)) {
    return { key: ch, code: `Key${ch}`, windowsVirtualKeyCode: ch.charCodeAt(0), text: ch, shiftImplied: true };
  }
  if (/^[0-9]$/.test(ch)) {
    return { key: ch, code: `Digit${ch}`, windowsVirtualKeyCode: ch.charCodeAt(0), text: ch };
  }
  if (PUNCT[ch]) {
    const [code, vk] = PUNCT[ch];
    return { key: ch, code, windowsVirtualKeyCode: vk, text: ch };
  }
  if (SHIFTED[ch]) {
    const base = describeChar(SHIFTED[ch]);
    return { key: ch, code: base.code, windowsVirtualKeyCode: base.windowsVirtualKeyCode, text: ch, shiftImplied: true };
  }
  // Anything else (é, ß, 日, emoji) has no key on a US keyboard: Chromium
  // accepts a keyDown carrying only key+text, which types it like an IME.
  return { key: ch, code: "", windowsVirtualKeyCode: 0, text: ch };
}

// Applies Shift to a described character the way the US layout does, so
// "Shift+a" types "A" and "Shift+1" types "!".
function shifted(desc) {
  if (/^[a-z]$/.test(desc.key)) {
    const up = desc.key.toUpperCase();
    return { ...desc, key: up, text: up };
  }
  const s = SHIFT_OF[desc.key];
  if (s) return { ...desc, key: s, text: s };
  return desc;
}

const CHORD = new RegExp(`^(${KEY_MODIFIERS.join("|")})\\+(.+)$`, "s");

// parseKey returns {modifiers, modifierNames, key, code, windowsVirtualKeyCode,
// text?} for a key spec, or throws a RangeError naming what is wrong.
export function parseKey(spec) {
  if (typeof spec !== "string" || spec.length === 0) {
    throw new RangeError("key must be a non-empty string");
  }
  const modifierNames = [];
  let rest = spec;
  // Strip "Mod+" prefixes only while something is left after them, so "+"
  // and "Control++" name the plus key itself.
  for (;;) {
    const m = CHORD.exec(rest);
    if (!m) break;
    if (!modifierNames.includes(m[1])) modifierNames.push(m[1]);
    rest = m[2];
  }
  let desc;
  if (Object.hasOwn(NAMED_KEYS, rest)) {
    desc = { ...NAMED_KEYS[rest] };
  } else if ([...rest].length === 1 && !/^\s$/.test(rest)) {
    desc = describeChar(rest);
  } else {
    throw new RangeError(
      `unknown key ${JSON.stringify(rest)}: use a named key (Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1-F12), one character, or a chord like Control+a`,
    );
  }
  if (desc.shiftImplied && !modifierNames.includes("Shift")) modifierNames.push("Shift");
  if (modifierNames.includes("Shift")) desc = shifted(desc);
  delete desc.shiftImplied;
  // With Control/Alt/Meta held a key is a command, not typing: sending text
  // would insert the character instead of e.g. selecting all on Control+a.
  if (modifierNames.some((m) => m !== "Shift")) delete desc.text;
  let modifiers = 0;
  for (const m of modifierNames) modifiers |= MODIFIER_BITS[m];
  return { modifiers, modifierNames, ...desc };
}

// keyEvents returns the Input.dispatchKeyEvent params for pressing spec:
// modifier downs, the key's down (keyDown with text, else rawKeyDown, as
// Chromium's own input path does), the key's up, then modifier ups in reverse.
export function keyEvents(spec) {
  const k = parseKey(spec);
  const events = [];
  let held = 0;
  const isModifierKey = Object.hasOwn(MODIFIER_KEYS, k.key);
  for (const name of k.modifierNames) {
    if (isModifierKey && name === k.key) continue;
    held |= MODIFIER_BITS[name];
    events.push({ type: "rawKeyDown", modifiers: held, ...MODIFIER_KEYS[name] });
  }
  const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.windowsVirtualKeyCode, modifiers: k.modifiers };
  if (k.text !== undefined) {
    events.push({ type: "keyDown", ...base, text: k.text, unmodifiedText: k.text });
  } else {
    events.push({ type: "rawKeyDown", ...base });
  }
  events.push({ type: "keyUp", ...base });
  for (const name of [...k.modifierNames].reverse()) {
    if (isModifierKey && name === k.key) continue;
    held &= ~MODIFIER_BITS[name];
    events.push({ type: "keyUp", modifiers: held, ...MODIFIER_KEYS[name] });
  }
  return events;
}
