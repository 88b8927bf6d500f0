import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median, compare, meets } from '../lib/stats.mjs';
import { buttonsPage } from '../lib/pages.mjs';
import { flowSteps, buaFlowYAML } from '../lib/flow.mjs';

test('median', () => {
  for (const [xs, want] of [[[3], 3], [[3, 1, 2], 2], [[4, 1, 3, 2], 2.5], [[5, 5, 1, 100], 5]]) {
    assert.equal(median(xs), want, JSON.stringify(xs));
  }
  assert.throws(() => median([]), /no samples/);
});

test('compare: per-round ratio of medians, then median and spread over rounds', () => {
  const c = compare([
    { bua: [10, 12, 11], peer: [20, 22, 21] }, // 11/21
    { bua: [9, 30, 10], peer: [10, 10, 10] }, // 10/10
    { bua: [5, 5, 5], peer: [20, 20, 20] }, // 0.25
  ]);
  assert.deepEqual(c.rounds.map((r) => r.ratio), [11 / 21, 1, 0.25]);
  assert.equal(c.ratio.median, 11 / 21);
  assert.equal(c.ratio.min, 0.25);
  assert.equal(c.ratio.max, 1);
  assert.equal(c.buaMedian, 10);
});

test('meets', () => {
  assert.equal(meets(0.5, 0.6), true);
  assert.equal(meets(0.7, 0.6), false);
  assert.equal(meets(0.7, null), null);
});

test('buttonsPage has n buttons', () => {
  assert.equal(buttonsPage(7).match(/<button /g).length, 7);
});

test('the flow has 50 steps, the same ones for bua and Playwright', () => {
  const steps = flowSteps('http://127.0.0.1:1/sites/form.html');
  assert.equal(steps.length, 50);
  const yaml = buaFlowYAML(steps);
  assert.equal(yaml.match(/^  - /gm).length, 50);
  assert.match(yaml, /^  - open_tab: /m);
  assert.match(yaml, /close_tab: \{ tabId: "\$\{\{ tab.tabId \}\}" \}/);
});
