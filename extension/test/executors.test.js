import { test } from "node:test";
import assert from "node:assert/strict";
import { ACTIONS, ACTION_SPECS } from "../src/generated/protocol.js";
import { TAB_EXECUTORS } from "../src/sessions/executors.js";
import { browserExecutors as BROWSER_EXECUTORS } from "../src/routing/action-dispatcher.js";

// Adding an action is a schema edit plus its executor: this fails until the
// executor exists, in the registry its scope routes to.
test("every action in ACTIONS has an executor for its scope, and nothing else has one", () => {
  for (const type of ACTIONS) {
    const registry = ACTION_SPECS[type].scope === "tab" ? TAB_EXECUTORS : BROWSER_EXECUTORS;
    assert.equal(typeof registry[type], "function", `${type} (scope ${ACTION_SPECS[type].scope}) has no executor`);
  }
  assert.deepEqual(
    [...Object.keys(TAB_EXECUTORS), ...Object.keys(BROWSER_EXECUTORS)].sort(),
    [...ACTIONS].sort(),
  );
  for (const type of Object.keys(BROWSER_EXECUTORS)) assert.equal(ACTION_SPECS[type].scope, "browser", type);
});
