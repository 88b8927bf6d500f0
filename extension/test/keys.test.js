import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { NAMED_KEYS, MODIFIER_BITS, MODIFIER_KEYS, keyEvents, parseKey } from "../src/input/keys.js";
import { NAMED_KEYS as SCHEMA_NAMED_KEYS, KEY_MODIFIERS } from "../src/generated/protocol.js";

const schema = JSON.parse(readFileSync(new URL("../schema/protocol.schema.json", import.meta.url)));
const keyDef = schema.$defs.key;

test("the key table's named keys and modifiers are exactly the generated NAMED_KEYS and KEY_MODIFIERS", () => {
  // The table also resolves a modifier pressed alone; those are KEY_MODIFIERS.
  const named = Object.keys(NAMED_KEYS).filter((k) => !Object.hasOwn(MODIFIER_KEYS, k));
  assert.deepEqual(named.sort(), [...SCHEMA_NAMED_KEYS].sort());
  assert.deepEqual(Object.keys(MODIFIER_BITS).sort(), [...KEY_MODIFIERS].sort());
  assert.deepEqual(Object.keys(MODIFIER_KEYS).sort(), [...KEY_MODIFIERS].sort());
  for (const m of KEY_MODIFIERS) assert.equal(parseKey(`${m}+a`).modifierNames[0], m, `${m}+a parses as a chord`);
});

test("every named key in the schema resolves to a key, code and virtual key code", () => {
  const expected = {
    Enter: 13, Tab: 9, Escape: 27, Backspace: 8, Delete: 46, Space: 32,
    ArrowUp: 38, ArrowDown: 40, ArrowLeft: 37, ArrowRight: 39, Home: 36, End: 35,
    PageUp: 33, PageDown: 34,
  };
  for (let i = 1; i <= 12; i++) expected[`F${i}`] = 111 + i;
  assert.deepEqual([...keyDef["x-namedKeys"]].sort(), Object.keys(expected).sort());
  for (const name of keyDef["x-namedKeys"]) {
    const k = parseKey(name);
    assert.equal(k.windowsVirtualKeyCode, expected[name], name);
    assert.equal(k.modifiers, 0, name);
    assert.ok(k.code.length > 0, `${name} has a code`);
    assert.ok(Object.hasOwn(NAMED_KEYS, name));
  }
});

test("Enter types a carriage return, Space a space, Tab nothing", () => {
  const [down, up] = keyEvents("Enter");
  assert.deepEqual(down, { type: "keyDown", key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, modifiers: 0, text: "\r", unmodifiedText: "\r" });
  assert.deepEqual(up, { type: "keyUp", key: "Enter", code: "Enter", windowsVirtualKeyCode: 13, modifiers: 0 });
  assert.equal(keyEvents("Space")[0].text, " ");
  assert.equal(keyEvents("Space")[0].key, " ");
  const tab = keyEvents("Tab");
  assert.equal(tab[0].type, "rawKeyDown");
  assert.equal(tab[0].text, undefined);
});

test("single characters map to US-layout codes", () => {
  assert.deepEqual(parseKey("a"), { modifiers: 0, modifierNames: [], key: "a", code: "KeyA", windowsVirtualKeyCode: 65, text: "a" });
  const A = parseKey("A");
  assert.equal(A.code, "KeyA");
  assert.equal(A.text, "A");
  assert.equal(A.modifiers, 8, "an uppercase letter carries Shift like a real keyboard");
  assert.equal(parseKey("7").code, "Digit7");
  assert.equal(parseKey("7").windowsVirtualKeyCode, 55);
  assert.equal(parseKey("/").code, "Slash");
  const bang = parseKey("!");
  assert.equal(bang.code, "Digit1");
  assert.equal(bang.text, "!");
  assert.equal(bang.modifiers, 8);
  const plus = parseKey("+");
  assert.equal(plus.code, "Equal");
  assert.equal(plus.text, "+");
  const e = parseKey("é");
  assert.equal(e.text, "é");
  assert.equal(e.windowsVirtualKeyCode, 0);
});

test("chords set the modifier bitmask and wrap the key in modifier presses", () => {
  const events = keyEvents("Control+a");
  assert.deepEqual(events.map((e) => [e.type, e.key, e.modifiers]), [
    ["rawKeyDown", "Control", 2],
    ["rawKeyDown", "a", 2],
    ["keyUp", "a", 2],
    ["keyUp", "Control", 0],
  ]);
  assert.equal(events[1].text, undefined, "Control+a must not type an 'a'");

  const st = keyEvents("Shift+Tab");
  assert.deepEqual(st.map((e) => [e.type, e.key, e.modifiers]), [
    ["rawKeyDown", "Shift", 8],
    ["rawKeyDown", "Tab", 8],
    ["keyUp", "Tab", 8],
    ["keyUp", "Shift", 0],
  ]);

  assert.equal(parseKey("Shift+a").text, "A");
  assert.equal(parseKey("Shift+1").text, "!");
  assert.equal(parseKey("Control+Shift+ArrowLeft").modifiers, 10);
  assert.equal(parseKey("Alt+Control+Meta+Shift+F5").modifiers, 15);
  assert.equal(parseKey("Meta+Enter").text, undefined);
  const cp = parseKey("Control++");
  assert.equal(cp.key, "+");
  assert.equal(cp.modifiers, 2 | 8, "'+' needs Shift on a US layout");
});

test("modifier keys alone resolve and are not pressed twice", () => {
  const events = keyEvents("Shift");
  assert.deepEqual(events.map((e) => [e.type, e.key]), [["rawKeyDown", "Shift"], ["keyUp", "Shift"]]);
});

test("unknown keys are rejected with a message naming them", () => {
  for (const bad of ["", "Enterr", "ab", "Control+", "Hyper+a", " "]) {
    assert.throws(() => parseKey(bad), RangeError, JSON.stringify(bad));
  }
  assert.throws(() => parseKey("Foo"), /unknown key "Foo"/);
});

test("every key the schema pattern accepts parses", () => {
  const re = new RegExp(keyDef.pattern, "u");
  const samples = ["Enter", "a", "Z", "0", "~", "Control+a", "Shift+Tab", "Control+Shift+z", "Alt+F4", "Meta+ArrowUp", "+", "Control++", "ß"];
  for (const s of samples) {
    assert.ok(re.test(s), `${s} matches the schema`);
    assert.doesNotThrow(() => keyEvents(s), s);
  }
});
