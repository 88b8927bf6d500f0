import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyBudget, cutAt, elementLine, fencesOf, firstRead, positions, splitParts } from "../src/read/parts.js";
import { MARKDOWN_MAX_CHARS } from "../src/page/caps.js";

// tile joins the parts and checks they are consecutive, non-empty but for
// a lone empty part, and within their budgets.
function tile(md, first, rest) {
  const parts = splitParts(md, first, rest);
  let at = 0;
  parts.forEach(([a, b], i) => {
    assert.equal(a, at, `part ${i + 1} starts where the one before ended`);
    assert.ok(b > a || parts.length === 1, `part ${i + 1} is not empty`);
    assert.ok(b - a <= (i === 0 ? first : rest), `part ${i + 1} is ${b - a} chars, over its budget`);
    at = b;
  });
  assert.equal(at, md.length, "the parts reach the end");
  assert.equal(parts.map(([a, b]) => md.slice(a, b)).join(""), md);
  return parts.map(([a, b]) => md.slice(a, b));
}

const words = (n, w = "lorem") => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");

test("parts tile the markdown: no loss, no overlap, each within its budget", () => {
  const md = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? `## Section ${i}` : words(20 + (i % 13), "w"))).join("\n\n");
  for (const [first, rest] of [[500, 500], [300, 900], [1000, 250], [md.length, md.length], [97, 131]]) tile(md, first, rest);
  assert.deepEqual(tile("", 500, 500), [""]);
  assert.deepEqual(tile("short", 500, 500), ["short"]);
});

test("a part ends after a block (blank line) in the second half of its window, never mid-word when a space will do", () => {
  const md = `# Title\n\n${words(30)}\n\n## Next\n\n${words(30)}`;
  const parts = tile(md, 250, 250);
  for (const p of parts.slice(0, -1)) assert.ok(p.endsWith("\n\n") || p.endsWith(" ") || p.endsWith("\n"), JSON.stringify(p.slice(-20)));
  assert.ok(parts[0].endsWith("\n\n"), "the first part ends at a block boundary");
  // One long paragraph: cut at spaces.
  for (const p of tile(words(400), 300, 300).slice(0, -1)) assert.ok(p.endsWith(" "), JSON.stringify(p.slice(-10)));
  // One long word: a hard cut, never between the halves of a surrogate pair.
  const emoji = "😀".repeat(300);
  for (const p of tile(emoji, 101, 101)) assert.ok(!/[\ud800-\udbff]$/.test(p) && !/^[\udc00-\udfff]/.test(p), "a pair cut in two");
});

test("a fenced code block is not cut at its blank lines when a boundary outside it fits", () => {
  const code = "```\n" + Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join("\n") + "```";
  const md = `${words(10)}\n\n${code}\n\n${words(10)}`;
  assert.deepEqual(fencesOf(md).length, 1);
  const [open, close] = fencesOf(md)[0];
  const end = cutAt(md, 0, close + 10, fencesOf(md));
  assert.ok(end <= open + 2 || end >= close, `cut at ${end}, inside the fence ${open}..${close}`);
});

// The element-line format's one statement, shared with pkg/render
// (TestElementLineVectors reads the same file): each element and its line.
function elementLineVectors() {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "go.mod"))) dir = dirname(dir); // the repository's root
  return JSON.parse(readFileSync(join(dir, "testdata", "render", "element-lines.json"), "utf8")).lines;
}

test("element lines are bua's: testdata/render/element-lines.json, as Go writes them", () => {
  const vectors = elementLineVectors();
  assert.ok(vectors.length >= 15, `only ${vectors.length} vectors`);
  for (const v of vectors) assert.equal(elementLine(v.element), v.line, v.name);
});

const els = (n) => Array.from({ length: n }, (_, i) => ({ uid: `e${i}`, role: "link", name: `Link number ${i}`, visible: true }));

// readParts reads every part of md with list (at: their offsets in md) at
// maxChars and checks they tile both: every markdown character and every
// element once, in order, each part within the budget, each element in
// the part whose markdown holds its offset (or, after one at the same spot
// that did not fit, the next).
function readParts(md, list, at, maxChars) {
  const p1 = applyBudget(md, list, maxChars, 1, at);
  const n = p1.cut ? p1.cut.parts : 1;
  const lineChars = list.reduce((a, e) => a + elementLine(e).length + 1, 0);
  const pos = positions(at, list.length, md.length);
  const mds = [];
  const seen = [];
  let from = 0;
  for (let p = 1; p <= n; p++) {
    const r = applyBudget(md, list, maxChars, p, at);
    const lines = r.elements.reduce((a, e) => a + elementLine(e).length + 1, 0);
    assert.ok(r.markdown.length + lines <= maxChars, `part ${p}: ${r.markdown.length} + ${lines} over ${maxChars}`);
    assert.ok(r.markdown.length <= MARKDOWN_MAX_CHARS);
    if (n > 1) assert.deepEqual(r.cut, { part: p, parts: n, shownChars: r.markdown.length + lines, totalChars: md.length + lineChars });
    const to = from + r.markdown.length;
    for (const e of r.elements) {
      const i = Number(e.uid.slice(1));
      assert.ok(pos[i] <= to || to === md.length || r.markdown === "", `${e.uid} at ${pos[i]} is past part ${p}'s end ${to}`);
      assert.ok(pos[i] >= from || seen.length > 0, `${e.uid} at ${pos[i]} is before part ${p}'s start ${from}`);
    }
    mds.push(r.markdown);
    seen.push(...r.elements.map((e) => e.uid));
    from = to;
  }
  assert.equal(mds.join(""), md, "the parts tile the markdown");
  assert.deepEqual(seen, list.map((e) => e.uid), "the parts list every element once, in order");
  assert.throws(() => applyBudget(md, list, maxChars, n + 1, at), new RangeError(`part ${n + 1} is past the end: at maxChars ${maxChars} the page has ${n} part${n === 1 ? "" : "s"}`));
  return { n, mds };
}

test("the budget: everything that fits is no cut; every part lists the elements inside it", () => {
  const small = applyBudget("# Hi\n\nText.", els(3), 2000, 1, [0, 2, 5]);
  assert.equal(small.cut, undefined);
  assert.equal(small.elements.length, 3);

  // 80 paragraphs, each with links in it: each part lists its own.
  const paras = Array.from({ length: 80 }, (_, i) => words(15, `p${i}w`));
  const md = paras.join("\n\n");
  const list = els(400);
  const at = list.map((_, i) => {
    const para = Math.floor(i / 5);
    return paras.slice(0, para).reduce((a, p) => a + p.length + 2, 0) + (i % 5) * 10;
  });
  for (const budget of [4000, 2500, 30000]) {
    const { n } = readParts(md, list, at, budget);
    if (budget < 30000) assert.ok(n > 2, `${n} parts at ${budget}`);
    const last = applyBudget(md, list, budget, n, at);
    assert.ok(last.elements.length > 0, "the last part lists elements too");
  }
});

test("a part never holds more markdown than a result may (30 KB), whatever maxChars", () => {
  const md = Array.from({ length: 3000 }, (_, i) => words(8, `q${i}`)).join("\n\n");
  const r = applyBudget(md, [], 1000000);
  assert.ok(r.markdown.length <= MARKDOWN_MAX_CHARS);
  assert.equal(r.cut.parts, splitParts(md, MARKDOWN_MAX_CHARS, MARKDOWN_MAX_CHARS).length);
  assert.ok(r.cut.parts >= Math.ceil(md.length / MARKDOWN_MAX_CHARS));
});

test("elements alone over the budget take parts of their own; elements without an offset go with what precedes them", () => {
  const { n } = readParts("# T", els(500), [], 1000);
  assert.ok(n > 10, `${n} parts`);
  // Elements in the middle with no offset (-1): with the one before.
  const md = Array.from({ length: 40 }, (_, i) => words(12, `r${i}`)).join("\n\n");
  const at = els(30).map((_, i) => (i % 3 === 0 ? -1 : i * 100));
  const pos = positions(at, 30, md.length);
  for (let i = 1; i < 30; i++) assert.ok(pos[i] >= pos[i - 1]);
  assert.equal(pos[3], 200);
  readParts(md, els(30), pos, 900);
});

test("a read without maxChars over the 30 KB cap ends at a block boundary and names the maxChars whose part 2 reads on", () => {
  const paras = Array.from({ length: 900 }, (_, i) => words(8, `s${i}`));
  const md = paras.join("\n\n");
  const list = els(150);
  const at = list.map((_, i) => i * 400);
  const r = firstRead(md, list, at);
  assert.ok(r.markdown.length <= MARKDOWN_MAX_CHARS && r.markdown.length > MARKDOWN_MAX_CHARS / 2);
  assert.ok(r.markdown.endsWith("\n\n") && md.startsWith(r.markdown));
  const p2 = applyBudget(md, list, r.cut.maxChars, 2, at);
  assert.ok(md.slice(r.markdown.length).startsWith(p2.markdown), "part 2 starts where the read stopped");
  assert.equal(applyBudget(md, list, r.cut.maxChars, 1, at).markdown, r.markdown);
  assert.equal(r.cut.parts, readParts(md, list, at, r.cut.maxChars).n);
  assert.deepEqual(firstRead("short", list, at), { markdown: "short" });
});
