import { test } from "node:test";
import assert from "node:assert/strict";
import { applyBudget, cutAt, elementLine, fencesOf, goQuote, splitParts } from "../src/lib/parts.js";
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

test("element lines are bua's: uid, role, Go-quoted name, value and states, options indented", () => {
  assert.equal(elementLine({ uid: "e3", role: "button", name: "Sign in", visible: true, disabled: true }), 'e3 button "Sign in" [disabled]');
  assert.equal(elementLine({ uid: "e4", role: "option", name: "Pro", parent: "e2", selected: true, visible: true }), '  e4 option "Pro" [selected]');
  assert.equal(elementLine({ uid: "e5", role: "textbox", name: "Email", value: "a@b", visible: false }), 'e5 textbox "Email": a@b [hidden]');
  assert.equal(elementLine({ uid: "e6", role: "checkbox", checked: "mixed", expanded: true, visible: true }), "e6 checkbox [mixed] [expanded]");
  assert.equal(goQuote('say "hi"\\ now\n\tok\u0007'), '"say \\"hi\\"\\\\ now\\n\\tok\\a"');
  assert.equal(goQuote("café ✓ 日本"), '"café ✓ 日本"');
  assert.equal(goQuote("a\u200bb\u00a0c\u{e000}"), '"a\\u200bb\\u00a0c\\ue000"');
});

const els = (n) => Array.from({ length: n }, (_, i) => ({ uid: `e${i}`, role: "link", name: `Link number ${i}`, visible: true }));

test("the budget: everything that fits is no cut; elements come with part 1 and leave the markdown at least half", () => {
  const small = applyBudget("# Hi\n\nText.", els(3), 2000);
  assert.equal(small.cut, undefined);
  assert.equal(small.elements.length, 3);

  const md = Array.from({ length: 80 }, (_, i) => words(15, `p${i}w`)).join("\n\n");
  const list = els(200);
  const lineChars = list.reduce((a, e) => a + elementLine(e).length + 1, 0);
  const p1 = applyBudget(md, list, 4000);
  const shownLines = p1.elements.reduce((a, e) => a + elementLine(e).length + 1, 0);
  assert.ok(shownLines <= 2000, `elements took ${shownLines} of 4000`);
  assert.ok(p1.elements.length > 0 && p1.elements.length < 200);
  assert.ok(p1.markdown.length + shownLines <= 4000);
  assert.equal(p1.cut.shownChars, p1.markdown.length + shownLines);
  assert.equal(p1.cut.totalChars, md.length + lineChars);
  const parts = [p1.markdown];
  for (let p = 2; p <= p1.cut.parts; p++) {
    const r = applyBudget(md, list, 4000, p);
    assert.deepEqual(r.elements, [], "later parts carry markdown only");
    assert.deepEqual(r.cut, { part: p, parts: p1.cut.parts, shownChars: r.markdown.length, totalChars: p1.cut.totalChars });
    assert.ok(r.markdown.length <= 4000);
    parts.push(r.markdown);
  }
  assert.equal(parts.join(""), md, "the parts tile the markdown");
  assert.throws(() => applyBudget(md, list, 4000, p1.cut.parts + 1), new RangeError(`part ${p1.cut.parts + 1} is past the end: at maxChars 4000 the page's markdown has ${p1.cut.parts} parts`));
});

test("a part never holds more markdown than a result may (30 KB), whatever maxChars", () => {
  const md = Array.from({ length: 3000 }, (_, i) => words(8, `q${i}`)).join("\n\n");
  const r = applyBudget(md, [], 1000000);
  assert.ok(r.markdown.length <= MARKDOWN_MAX_CHARS);
  assert.equal(r.cut.parts, splitParts(md, MARKDOWN_MAX_CHARS, MARKDOWN_MAX_CHARS).length);
  assert.ok(r.cut.parts >= Math.ceil(md.length / MARKDOWN_MAX_CHARS));
});

test("elements alone over the budget are cut even when the markdown fits", () => {
  const r = applyBudget("# T", els(500), 1000);
  assert.ok(r.cut);
  assert.equal(r.cut.parts, 1);
  assert.ok(r.elements.length < 500);
  assert.ok(r.markdown.length + r.elements.reduce((a, e) => a + elementLine(e).length + 1, 0) <= 1000);
});
