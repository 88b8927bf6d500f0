// extract's budget (maxChars and part, feature extract_budget): the
// markdown and the element lines, as bua renders them, within maxChars
// characters; the markdown cut into parts at block boundaries, which tile
// it: part 1 + part 2 + ... is the whole markdown, nothing lost, nothing
// twice. Pure: node tests run it (test/parts.test.js).
//
// Characters are counted as JavaScript counts them (UTF-16 code units).

import { MARKDOWN_MAX_CHARS } from "../page/caps.js";

// PAGED_MARKDOWN_MAX_CHARS is how much of the page's markdown a budgeted
// extract renders before cutting it into parts (against 30 KB for one
// read): a long article reads whole, part by part. Each part still fits
// the result's 30 KB markdown (schema result.extract).
export const PAGED_MARKDOWN_MAX_CHARS = 1000000;

// goQuote quotes s as Go's strconv.Quote (%q) does, which writes an
// element's name in `bua extract` and the MCP results: \" and \\, the
// named control escapes, \x.. \u.... \U........ for what Go does not print.
// Go's unicode tables decide what prints; a character assigned after Go's
// Unicode version prints here and is escaped there (a few characters' gap
// in the budget, never a different line for a character both know).
function goQuote(s) {
  let out = '"';
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c === 0x20 || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (c < 0x80) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c < 0x10000) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += "\\U" + c.toString(16).padStart(8, "0");
  }
  return out + '"';
}

// elementLine is the element's line as pkg/render's Elements writes it,
// without the newline: `e3 button "Sign in" [disabled]`, `: value` after
// the name, an option indented under its select. The budget counts it, so
// it must match Go's to the character: testdata/render/element-lines.json
// states the format once, for each branch, and both sides' tests read it.
export function elementLine(el) {
  let s = el.parent ? "  " : "";
  s += `${el.uid} ${el.role}`;
  if (el.name) s += " " + goQuote(el.name);
  if (el.value) s += ": " + el.value;
  if (el.checked === true) s += " [checked]";
  else if (el.checked === "mixed") s += " [mixed]";
  if (el.selected) s += " [selected]";
  if (el.expanded === true) s += " [expanded]";
  if (el.disabled) s += " [disabled]";
  if (el.visible === false) s += " [hidden]";
  return s;
}

// cutAt picks where a part that starts at start and may run to limit ends
// in md: after the last blank line (a block: paragraph, heading, list,
// table) outside a fenced code block in the second half of the window,
// else after the last line break there, else after the last space
// anywhere in it, else at limit (never inside a surrogate pair).
export function cutAt(md, start, limit, fences) {
  const half = start + Math.floor((limit - start) / 2);
  const inFence = (i) => fences.some(([a, b]) => i > a && i < b);
  for (let i = md.lastIndexOf("\n\n", limit - 2); i >= half; i = md.lastIndexOf("\n\n", i - 1)) {
    if (!inFence(i)) return i + 2;
    if (i === 0) break;
  }
  const nl = md.lastIndexOf("\n", limit - 1);
  if (nl >= half) return nl + 1;
  const sp = md.lastIndexOf(" ", limit - 1);
  if (sp > start) return sp + 1;
  const c = md.charCodeAt(limit - 1);
  return c >= 0xd800 && c <= 0xdbff && limit - 1 > start ? limit - 1 : limit;
}

// fencesOf lists the [open, close] offsets of md's fenced code blocks
// (``` or ~~~ at a line's start), so no part ends inside one when a block
// boundary outside it will do.
export function fencesOf(md) {
  const out = [];
  const re = /^(```|~~~)/gm;
  let open = -1;
  for (let m = re.exec(md); m; m = re.exec(md)) {
    if (open < 0) open = m.index;
    else {
      out.push([open, m.index]);
      open = -1;
    }
  }
  if (open >= 0) out.push([open, md.length]);
  return out;
}

// splitParts cuts md into parts of at most first characters (part 1) and
// rest (the others): [[start, end], ...], consecutive and covering md
// from 0 to its length. An empty md is one empty part.
export function splitParts(md, first, rest) {
  const fences = fencesOf(md);
  const parts = [];
  let start = 0;
  let size = Math.max(1, first);
  while (md.length - start > size) {
    const end = cutAt(md, start, start + size, fences);
    parts.push([start, end]);
    start = end;
    size = Math.max(1, rest);
  }
  parts.push([start, md.length]);
  return parts;
}

// elementsBefore is the index of the first element at or after k whose
// position is at or past end (at: each element's offset in the markdown,
// non-decreasing), by binary search.
function elementsBefore(at, k, end) {
  let lo = k;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// planParts cuts an extract into parts of at most maxChars characters
// each: its markdown (at most MARKDOWN_MAX_CHARS a part, at block
// boundaries where one fits) and the lines of the elements inside it (at:
// each element's offset in the markdown, non-decreasing; lines: each
// element line's length with its newline). Returns [{a, b, k, j}]: part
// i is markdown [a, b) and elements [k, j), consecutive, covering both
// wholly. A part runs as far as the budget goes: the furthest end whose
// markdown and elements before it fit, then back to a block boundary.
// Where the elements at one spot alone are over maxChars, a part holds as
// many of them as fit (at least one) and no markdown.
export function planParts(md, at, lines, maxChars) {
  const fences = fencesOf(md);
  const sum = [0];
  for (const l of lines) sum.push(sum[sum.length - 1] + l);
  const n = at.length;
  // upTo is how many elements a part that ends at e takes: those before
  // e, and at the markdown's end every one left.
  const upTo = (k, e) => (e >= md.length ? n : elementsBefore(at, k, e));
  const parts = [];
  let s = 0;
  let k = 0;
  do {
    const cost = (e) => e - s + sum[upTo(k, e)] - sum[k];
    // The furthest end that fits: cost grows with e.
    let lo = s;
    let hi = Math.min(md.length, s + Math.min(MARKDOWN_MAX_CHARS, maxChars));
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cost(mid) <= maxChars) lo = mid;
      else hi = mid - 1;
    }
    let e = lo;
    let j;
    if (e > s) {
      if (e < md.length) e = cutAt(md, s, e, fences);
      j = upTo(k, e);
    } else {
      // Nothing past s fits: the elements at s alone are over the
      // budget; as many as fit, at least one.
      j = k + 1;
      while (j < n && sum[j + 1] - sum[k] <= maxChars && at[j] <= s) j++;
      j = Math.min(j, n);
    }
    parts.push({ a: s, b: e, k, j });
    if (e === s && j === k) break; // a budget under one character
    s = e;
    k = j;
  } while (s < md.length || k < n);
  return parts;
}

// positions is each element's offset in the markdown (at, from the page:
// -1 or absent where the element renders no text of its own, as an input
// or a link inside stripped navigation), made non-decreasing: an element
// without one takes the one before it (0 for the first), so it goes with
// the part that shows what precedes it on the page.
export function positions(at, count, mdLength) {
  const out = [];
  let last = 0;
  for (let i = 0; i < count; i++) {
    const p = at && Number.isInteger(at[i]) && at[i] >= 0 ? Math.min(at[i], mdLength) : last;
    last = Math.max(last, p);
    out.push(last);
  }
  return out;
}

// applyBudget fits an extract result within maxChars: it returns {markdown,
// elements, cut?} for part `part` (1-based), or throws a RangeError naming
// how many parts there are when part is past the end. Each part holds its
// markdown and the elements inside it (at: their offsets in the markdown,
// positions), in document order, within maxChars together (planParts);
// its markdown is at most MARKDOWN_MAX_CHARS. cut is set when anything was
// left out: {part, parts, shownChars, totalChars}.
export function applyBudget(markdown, elements, maxChars, part = 1, at = undefined) {
  const lines = elements.map((el) => elementLine(el).length + 1);
  const total = lines.reduce((a, b) => a + b, 0);
  const parts = planParts(markdown, positions(at, elements.length, markdown.length), lines, maxChars);
  if (part > parts.length) {
    throw new RangeError(`part ${part} is past the end: at maxChars ${maxChars} the page has ${parts.length} part${parts.length === 1 ? "" : "s"}`);
  }
  const { a, b, k, j } = parts[part - 1];
  const out = { markdown: markdown.slice(a, b), elements: elements.slice(k, j) };
  const shownChars = b - a + lines.slice(k, j).reduce((x, y) => x + y, 0);
  const totalChars = markdown.length + total;
  if (parts.length > 1) out.cut = { part, parts: parts.length, shownChars, totalChars };
  return out;
}

// firstRead cuts a read that gave no maxChars whose markdown is over the
// 30 KB cap: its markdown ends at the last block boundary within the cap
// (every element stays listed), and cut says how to read on: maxChars
// names the budget whose part 2 starts where this read stops (the cap
// plus the lines of the elements inside it; a little before, when more
// elements than the listed ones sit there), parts how many parts the page
// has at it. Returns {markdown, cut?}.
export function firstRead(markdown, elements, at) {
  if (markdown.length <= MARKDOWN_MAX_CHARS) return { markdown };
  const end = cutAt(markdown, 0, MARKDOWN_MAX_CHARS, fencesOf(markdown));
  const pos = positions(at, elements.length, markdown.length);
  const lines = elements.map((el) => elementLine(el).length + 1);
  const inside = lines.slice(0, elementsBefore(pos, 0, end)).reduce((x, y) => x + y, 0);
  const maxChars = MARKDOWN_MAX_CHARS + inside;
  const parts = planParts(markdown, pos, lines, maxChars).length;
  const all = lines.reduce((x, y) => x + y, 0);
  return { markdown: markdown.slice(0, end), cut: { part: 1, parts, shownChars: end + all, totalChars: markdown.length + all, maxChars } };
}
