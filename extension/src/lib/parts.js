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
export function goQuote(s) {
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

// elementLine is the element as cmd/bua's writeElements prints it, without
// the newline: `e3 button "Sign in" [disabled]`, `: value` after the name,
// an option indented under its select.
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

// applyBudget fits an extract result within maxChars: it returns {markdown,
// elements, cut?} for part `part` (1-based), or throws a RangeError naming
// how many parts there are when part is past the end. The elements (as
// elementLine, one a line) come with part 1 only, in document order, and
// take what the markdown leaves, but at least half the budget when both do
// not fit; later parts carry markdown only. Each part's markdown is at
// most MARKDOWN_MAX_CHARS. cut is set when anything was left out: {part,
// parts, shownChars, totalChars}.
export function applyBudget(markdown, elements, maxChars, part = 1) {
  const lines = elements.map((el) => elementLine(el).length + 1);
  const total = lines.reduce((a, b) => a + b, 0);
  const want = Math.min(markdown.length, MARKDOWN_MAX_CHARS);
  const room = Math.max(maxChars - want, Math.floor(maxChars / 2));
  let shown = 0;
  let used = 0;
  while (shown < lines.length && used + lines[shown] <= room) used += lines[shown++];
  const first = Math.min(MARKDOWN_MAX_CHARS, maxChars - used);
  const rest = Math.min(MARKDOWN_MAX_CHARS, maxChars);
  const parts = splitParts(markdown, first, rest);
  if (part > parts.length) {
    throw new RangeError(`part ${part} is past the end: at maxChars ${maxChars} the page's markdown has ${parts.length} part${parts.length === 1 ? "" : "s"}`);
  }
  const [a, b] = parts[part - 1];
  const out = { markdown: markdown.slice(a, b), elements: part === 1 ? elements.slice(0, shown) : [] };
  const shownChars = b - a + (part === 1 ? used : 0);
  const totalChars = markdown.length + total;
  if (parts.length > 1 || shown < elements.length) out.cut = { part, parts: parts.length, shownChars, totalChars };
  return out;
}
