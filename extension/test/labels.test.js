import { test } from "node:test";
import assert from "node:assert/strict";
import { PALETTE, layoutMarks } from "../src/read/labels.js";

const measure = (t) => t.length * 7;
const overlap = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];

test("a tag goes above its box when there is room, else inside its corner, and tags do not overlap", () => {
  const marks = [
    { uid: "e0", box: [10, 40, 100, 20] },
    { uid: "e1", box: [10, 0, 100, 20] }, // at the top edge: no room above
    { uid: "e2", box: [12, 42, 100, 20] }, // on top of e0: its tag must go elsewhere
  ];
  const placed = layoutMarks(marks, 400, 300, 1, measure, 12);
  assert.deepEqual(placed.map((p) => p.uid), ["e0", "e1", "e2"]);
  const h = 12 + 4;
  assert.deepEqual(placed[0].tag, [10, 40 - h, 14 + 4, h]);
  assert.deepEqual(placed[1].tag.slice(0, 2), [10, 0]);
  for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) assert.ok(!overlap(placed[i].tag, placed[j].tag), `${i} and ${j} overlap`);
  assert.deepEqual(placed.map((p) => p.color), PALETTE.slice(0, 3));
});

test("boxes are scaled to image pixels; boxes outside the image are left out; tags stay inside it", () => {
  const placed = layoutMarks(
    [
      { uid: "e0", box: [5, 5, 10, 10] },
      { uid: "e1", box: [900, 10, 10, 10] },
      { uid: "e2", box: [10, -50, 10, 10] },
      { uid: "e12", box: [395, 290, 10, 10] },
    ],
    800,
    600,
    2,
    (t) => t.length * 14,
    24,
  );
  assert.deepEqual(placed.map((p) => p.uid), ["e0", "e12"]);
  assert.deepEqual(placed[0].box, [10, 10, 20, 20]);
  for (const p of placed) {
    assert.ok(p.tag[0] >= 0 && p.tag[1] >= 0 && p.tag[0] + p.tag[2] <= 800 && p.tag[1] + p.tag[3] <= 600, JSON.stringify(p.tag));
  }
});
