import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { validateMessage, parseMessage } from "../src/transport/validator.js";
import { validateActionValue } from "../src/generated/validate.js";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

function vectors(kind) {
  const dir = here(`../../testdata/protocol/${kind}/`);
  return readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => [f, readFileSync(dir + f, "utf8")]);
}

test("every valid vector passes", () => {
  const vs = vectors("valid");
  assert.ok(vs.length >= 40, `found only ${vs.length} valid vectors`);
  for (const [name, text] of vs) {
    const r = parseMessage(text);
    assert.equal(r.ok, true, `${name}: ${r.message}`);
  }
});

test("every invalid vector fails with a message", () => {
  const vs = vectors("invalid");
  assert.ok(vs.length >= 40, `found only ${vs.length} invalid vectors`);
  for (const [name, text] of vs) {
    const r = parseMessage(text);
    assert.equal(r.ok, false, `${name} was accepted`);
    assert.match(r.message, /\S/, name);
  }
});

test("messages name the offending field", () => {
  const id = "3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f";
  let r = validateMessage({ type: "request", id, action: { type: "navigate", url: "javascript:alert(1)" } });
  assert.equal(r.ok, false);
  assert.match(r.message, /action\.url/);
  r = validateMessage({ type: "request", id, action: { type: "click", uid: "e1", selector: "a" } });
  assert.match(r.message, /exactly one of selector, uid or role \(got 2\)/);
  r = validateMessage({ type: "request", id, action: { type: "click", selector: "a", name: "Go" } });
  assert.match(r.message, /name and nth pick among the elements of a role/);
  r = validateMessage({ type: "request", id, action: { type: "teleport" } });
  assert.match(r.message, /action\.type: must be one of/);
});

test("lengths count code points like Go", () => {
  // handoff's message is at most 500 characters: 500 astral characters are
  // 1000 UTF-16 units, and still 500 code points.
  const handoff = (message) => validateActionValue({ type: "handoff", state: "requested", obstacleType: "captcha", message });
  assert.equal(handoff("😀".repeat(500)), null);
  assert.deepEqual(handoff("😀".repeat(501)), { path: "action.message", reason: "must be at most 500 characters", missing: "" });
  assert.equal(validateActionValue({ type: "press_key", key: "😀" }), null, "a single astral character is one key");
});

test("a missing field is named beside the reason", () => {
  assert.deepEqual(validateActionValue({ type: "navigate" }), { path: "action", reason: 'missing required field "url"', missing: "url" });
});

// testdata/protocol/messages.json is written by the Go tests: the same
// invalid vector must be refused in the same words on both sides.
test("error messages match the Go validator's exactly", () => {
  const want = JSON.parse(readFileSync(here("../../testdata/protocol/messages.json"), "utf8"));
  const names = Object.keys(want);
  assert.ok(names.length >= 40, `messages.json holds only ${names.length} entries`);
  for (const name of names) {
    const text = readFileSync(here(`../../testdata/protocol/invalid/${name}`), "utf8");
    assert.equal(parseMessage(text).message, want[name], name);
  }
});

// testdata/protocol/keywords.json tries every keyword the generated
// validators implement; Go runs the same cases (pkg/protocol/internal/kwtest)
// on validators generated from the same schema.
test("every keyword reads as Go reads it", async () => {
  const { validateValue } = await import("./helpers/keywords-validate.js");
  const { cases } = JSON.parse(readFileSync(here("../../testdata/protocol/keywords.json"), "utf8"));
  assert.ok(cases.length >= 40, `keywords.json holds only ${cases.length} cases`);
  for (const c of cases) {
    const e = validateValue(c.in);
    assert.equal(e === null ? "" : `${e.path}: ${e.reason}`, c.want, c.name);
  }
});
