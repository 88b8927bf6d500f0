// The generated constants module agrees with the schema it is generated
// from (CI's go generate drift check covers the bytes; this covers the
// meaning, from the extension's side).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as P from "../src/generated/protocol.js";

const schema = JSON.parse(readFileSync(new URL("../schema/protocol.schema.json", import.meta.url), "utf8"));
const defs = schema.$defs;

test("version, actions, codes, reasons, events and keys match the schema", () => {
  assert.equal(P.PROTOCOL_VERSION, schema["x-protocolVersion"]);
  assert.deepEqual([...P.ACTIONS], defs.action.properties.type.enum);
  assert.deepEqual(Object.values(P.ERROR_CODES), defs.errorCode.enum);
  assert.deepEqual(Object.values(P.END_REASONS), defs.sessionEndReason.enum);
  assert.deepEqual(Object.values(P.EVENTS), defs.event.allOf.map((b) => b.if.properties.type.const));
  assert.deepEqual([...P.NAMED_KEYS], defs.key["x-namedKeys"]);
  assert.deepEqual([...P.KEY_MODIFIERS], defs.key["x-modifiers"]);
  assert.equal(P.REPLY_MARGIN_MS, schema["x-ladder"].replyMarginMs);
  assert.equal(P.SETTLE_MARGIN_MS, schema["x-ladder"].settleMarginMs);
  for (const a of P.ACTIONS) {
    const def = defs[`action.${a}`];
    assert.equal(P.ACTION_SPECS[a].scope, def["x-scope"], a);
    assert.equal(P.ACTION_SPECS[a].budgetMs, def["x-budgetMs"], a);
    assert.deepEqual([...P.ACTION_SPECS[a].params], Object.keys(def.properties || {}), a);
  }
});

test("the generated objects are frozen", () => {
  for (const v of [P.ACTIONS, P.ACTION_SPECS, P.ERROR_CODES, P.END_REASONS, P.EVENTS, P.CLOSE_CODES]) {
    assert.ok(Object.isFrozen(v));
  }
});
