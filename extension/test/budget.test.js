import { test } from "node:test";
import assert from "node:assert/strict";
import { budgetFor, actionBudgetMs, poolDeadlineMs, waitTimeoutMs, SETTLE_MS } from "../src/core/budget.js";
import { ACTIONS, ACTION_SPECS, REPLY_MARGIN_MS, SETTLE_MARGIN_MS, WAIT_FOR_DEFAULT_MS, WAIT_FOR_MAX_MS } from "../src/generated/protocol.js";

const T0 = 1_000_000;

test("without deadlineMs the inner waits get the action's x-budgetMs (+ timeoutMs), the margins going on top", () => {
  for (const type of ACTIONS) {
    const b = budgetFor({ type }, undefined, T0);
    const spec = ACTION_SPECS[type];
    const extra = spec.params.includes("timeoutMs") ? WAIT_FOR_DEFAULT_MS : 0;
    assert.equal(b.inner(Infinity, T0), spec.budgetMs + extra, type);
    assert.equal(b.ms, spec.budgetMs + extra + SETTLE_MS, type);
    assert.equal(b.deadline, T0 + b.ms, type);
  }
  assert.equal(budgetFor({ type: "wait_for", timeoutMs: 2500 }, undefined, T0).inner(Infinity, T0), ACTION_SPECS.wait_for.budgetMs + 2500);
  assert.equal(waitTimeoutMs({ timeoutMs: 10 * WAIT_FOR_MAX_MS }), WAIT_FOR_MAX_MS);
  assert.equal(poolDeadlineMs({ type: "wait_for" }), ACTION_SPECS.wait_for.budgetMs + WAIT_FOR_DEFAULT_MS + SETTLE_MS + REPLY_MARGIN_MS);
});

test("a caller's timeout reaches the inner waits whole: the daemon's deadlineMs is it plus both margins", () => {
  // pkg/bridge Deadline: protocol.WithTimeout's deadline, the timeout plus
  // protocol.LadderMargin (SETTLE_MARGIN_MS + REPLY_MARGIN_MS).
  assert.equal(SETTLE_MS, SETTLE_MARGIN_MS);
  for (const timeout of [250, 1000, 1500, 3000, 30000, 90000]) {
    const b = budgetFor({ type: "click" }, timeout + SETTLE_MARGIN_MS + REPLY_MARGIN_MS, T0);
    assert.equal(b.inner(Infinity, T0), timeout, `--timeout ${timeout} ms`);
    assert.equal(b.ms, timeout + SETTLE_MARGIN_MS, `--timeout ${timeout} ms: the watchdog fires after the inner waits`);
  }
});

test("the action budget is below deadlineMs, and at least 1 ms", () => {
  for (const d of [2, 3, 10, 999, 1000, 1999, 2000, 2001, 5000, 15000, 50000, 3_600_000]) {
    const ms = budgetFor({ type: "click" }, d, T0).ms;
    assert.ok(ms < d, `deadlineMs ${d}: budget ${ms}`);
    assert.ok(ms >= 1, `deadlineMs ${d}: budget ${ms}`);
    if (d > 2 * REPLY_MARGIN_MS) assert.equal(ms, d - REPLY_MARGIN_MS, `deadlineMs ${d} keeps the whole reply margin`);
  }
  assert.equal(actionBudgetMs(1), 1);
  // deadlineMs wins over the action's default, both ways.
  assert.equal(budgetFor({ type: "evaluate" }, 60000, T0).ms, 60000 - REPLY_MARGIN_MS);
  assert.equal(budgetFor({ type: "navigate" }, 8000, T0).ms, 8000 - REPLY_MARGIN_MS);
});

test("inner waits never exceed what remains of the budget, nor their own cap", () => {
  const b = budgetFor({ type: "wait_for", timeoutMs: 20000 }, 26000, T0);
  for (let t = T0; t <= b.deadline + 1000; t += 777) {
    assert.ok(b.remaining(t) <= b.ms && b.remaining(t) >= 0);
    assert.ok(b.inner(Infinity, t) <= b.remaining(t), `at +${t - T0}`);
    assert.ok(b.inner(20000, t) <= Math.min(20000, b.remaining(t)));
    assert.ok(b.inner(10000, t) <= 10000);
  }
  assert.equal(b.inner(20000, T0), 20000, "a wait_for that fits gets its whole timeoutMs");
  assert.equal(b.inner(Infinity, T0), b.ms - SETTLE_MS);
  assert.equal(b.inner(Infinity, b.deadline), 0);
  // The ladder in order: the daemon's deadline > the action budget >
  // every inner wait (evaluate's CDP timeout here).
  const e = budgetFor({ type: "evaluate" }, 14990, T0);
  assert.ok(e.inner(10000, T0) <= e.remaining(T0) && e.remaining(T0) < 14990);
  assert.equal(e.inner(10000, T0), 10000);
  assert.equal(budgetFor({ type: "evaluate" }, 5000, T0).inner(10000, T0), 5000 - REPLY_MARGIN_MS - SETTLE_MS, "evaluate's CDP timeout shrinks with the budget");
});

test("a navigate with deadlineMs 50 s keeps its load wait past the old 25/28 s caps", () => {
  const b = budgetFor({ type: "navigate", url: "http://slow.test/" }, 50000, T0);
  assert.equal(b.ms, 50000 - REPLY_MARGIN_MS);
  assert.ok(b.inner(Infinity, T0) > 28000);
  assert.equal(b.inner(Infinity, T0), 50000 - REPLY_MARGIN_MS - SETTLE_MS);
});

test("time spent before the action (the tab's queue) comes out of the budget", () => {
  const b = budgetFor({ type: "click" }, 10000, T0);
  assert.equal(b.remaining(T0 + 4000), 6000 - REPLY_MARGIN_MS);
  assert.equal(b.remaining(T0 + 20000), 0);
});
