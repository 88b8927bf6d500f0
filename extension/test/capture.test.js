import { test } from "node:test";
import assert from "node:assert/strict";
import { screenshot, CAPTURE_RETRY_MS, CAPTURE_RETRIES } from "../src/actions/capture.js";
import { budgetUntil } from "../src/core/budget.js";

// fakeCtx answers the nth Page.captureScreenshot (0-based) per answerAt, or
// never; it records every command and runs timers instantly so a stall costs
// no real time.
function fakeCtx(answerAt) {
  const sent = [];
  let captures = 0;
  return {
    sent,
    budget: budgetUntil(Date.now() + 60_000),
    timers: { setTimeout: (fn) => setTimeout(fn, 0), clearTimeout: (t) => clearTimeout(t) },
    send(method) {
      sent.push(method);
      if (method !== "Page.captureScreenshot") return Promise.resolve({});
      const n = captures++;
      return n === answerAt(n) ? Promise.resolve({ data: `shot${n}` }) : new Promise(() => {});
    },
  };
}

test("a capture that answers sends one Page.captureScreenshot and nothing that moves a window or tab", async () => {
  const ctx = fakeCtx((n) => n);
  assert.deepEqual(await screenshot(ctx, {}), { dataUrl: "data:image/jpeg;base64,shot0" });
  assert.deepEqual(ctx.sent, ["Page.captureScreenshot"]);
});

test("a stalled capture is asked again, without Page.bringToFront, when a retry answers", async () => {
  const ctx = fakeCtx((n) => (n === CAPTURE_RETRIES ? n : -1));
  assert.deepEqual(await screenshot(ctx, {}), { dataUrl: `data:image/jpeg;base64,shot${CAPTURE_RETRIES}` });
  assert.deepEqual(ctx.sent, Array(CAPTURE_RETRIES + 1).fill("Page.captureScreenshot"));
  assert.ok(CAPTURE_RETRY_MS <= 2000);
});

test("Page.bringToFront comes only after every retry stalled", async () => {
  const ctx = fakeCtx((n) => (n === CAPTURE_RETRIES + 1 ? n : -1));
  assert.deepEqual(await screenshot(ctx, {}), { dataUrl: `data:image/jpeg;base64,shot${CAPTURE_RETRIES + 1}` });
  assert.deepEqual(ctx.sent, [...Array(CAPTURE_RETRIES + 1).fill("Page.captureScreenshot"), "Page.bringToFront", "Page.captureScreenshot"]);
});
