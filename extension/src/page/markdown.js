// toMarkdown: a domToTree tree (tree.js) as Markdown, extract's markdown.
// It runs in the page, after domToTree, inside extract's one
// Runtime.evaluate (read.js); node tests run it on hand-built trees.
//
// Rules for real pages (docs/extension.md "Markdown rules"):
//   - Link and image URLs lose tracking parameters, and those on the page's
//     own origin (opts.pageUrl) are written as paths: /wiki/Foo, or #frag
//     for the page itself (urls.js). The 30 KB budget goes to text, not URLs.
//   - A linked image is [![alt](src)](href); an image without alt adds no
//     text, so its link shows only if something else names it.
//   - A heading is never link text: <a href><h2>T</h2></a> is ## [T](href).
//   - Only data tables become Markdown tables; layout tables render their
//     cells as blocks in reading order (markdown-table.js).
//
// Rendering carries a context: {page (the page's URL, or null), pre,
// hidden (an ancestor has visibility: hidden), link (inside link text),
// cell (inside a data table's cell), headingHref (the link a heading
// inside it carries)}.

import { MARKDOWN_MAX_CHARS, cutTo } from "./caps.js";
import { HEADING, hasHeading, isBlock, stripped } from "./markdown-rules.js";
import { LAYOUT_CELL_CHARS, markdownTable, readTable } from "./markdown-table.js";
import { IND, escBrackets, indentBody, oneLine, rawText, tidy, wrap } from "./markdown-text.js";
import { pageOf, target } from "./urls.js";

// toMarkdown renders a domToTree tree as Markdown: headings, paragraphs,
// links, images, emphasis, code, lists (nested), blockquotes and tables.
// nav, footer, aside (and their ARIA roles), hidden content and
// fixed/sticky overlays (cookie banners, chat bubbles) are stripped. The
// result is at most opts.maxLength chars (default 30720) and ends with a
// "…[markdown truncated …]" marker when cut.
export function toMarkdown(tree, opts) {
  return toMarkdownAt(tree, opts, 0).markdown;
}

// toMarkdownAt is toMarkdown with where each listed element is: {markdown,
// at}, at[i] the offset in markdown where the text of the tree node
// marked el: i starts, or -1 for one that renders no text (count: how many
// elements the tree marks). Each such node's text is marked while it
// renders (mark) and the marks are taken out after.
export function toMarkdownAt(tree, opts, count) {
  const max = (opts && opts.maxLength) || MARKDOWN_MAX_CHARS;
  const at = new Array(count || 0).fill(-1);
  if (!tree) return { markdown: "", at };
  const page = pageOf(opts && opts.pageUrl);
  let md = unmark(tidy(render(tree, { page, pre: false, hidden: false })).split(IND).join(" "), at);
  // A tree domToTree cut short renders to less than the page holds: the
  // marker then gives what was read as a lower bound.
  if (md.length > max || tree.cut) {
    md = cutTo(md, max, `\n\n…[markdown truncated: ${tree.cut ? "over " : ""}${md.length} chars, cap ${max}]`);
    for (let i = 0; i < at.length; i++) if (at[i] > md.length) at[i] = md.length;
  }
  return { markdown: md, at };
}

// A mark is MARK_OPEN, the element's index in base 36, MARK_CLOSE:
// Unicode noncharacters, which no page's text should hold (any that does
// loses them).
const MARK_OPEN = "\ufdd0";
const MARK_CLOSE = "\ufdd1";
const MARKS = /\ufdd0([0-9a-z]*)\ufdd1?|\ufdd1/g;

// mark puts element i's mark in out after its leading white space (where
// its text starts); out without text stays as it is.
function mark(out, i) {
  if (!/\S/.test(out)) return out;
  const lead = out.length - out.trimStart().length;
  return out.slice(0, lead) + MARK_OPEN + i.toString(36) + MARK_CLOSE + out.slice(lead);
}

// unmark takes the marks out of md, setting at[i] to where element i's
// mark was (the first, for an element rendered twice).
function unmark(md, at) {
  let out = "";
  let last = 0;
  for (const m of md.matchAll(MARKS)) {
    out += md.slice(last, m.index);
    last = m.index + m[0].length;
    const i = m[1] ? parseInt(m[1], 36) : -1;
    if (i >= 0 && i < at.length && at[i] < 0) at[i] = out.length;
  }
  return last === 0 ? md : out + md.slice(last);
}

// render is n as Markdown: a text node's text, or an element by its tag.
// It runs once per node, so it dispatches with a switch, not a table of
// functions (BENCHMARKS.md "Page scripts as modules").
function render(n, ctx) {
  const out = renderNode(n, ctx);
  return n.el === undefined ? out : mark(out, n.el);
}

function renderNode(n, ctx) {
  if (n.text !== undefined) {
    if (ctx.hidden) return "";
    if (ctx.pre) return n.text;
    const t = n.text.replace(/\s+/g, " ");
    return ctx.link ? escBrackets(t) : t;
  }
  if (stripped(n)) return "";
  const vis = n.style && n.style.visibility;
  // visibility is inherited but can be overridden below, so a hidden
  // element drops only its own text and still visits its children.
  if (vis === "hidden" || vis === "collapse") ctx = { ...ctx, hidden: true };
  else if (vis === "visible" && ctx.hidden) ctx = { ...ctx, hidden: false };
  const tag = n.tag;
  if (HEADING.test(tag)) return heading(n, ctx);
  switch (tag) {
    case "br":
      return "\n";
    case "hr":
      return "\n\n---\n\n";
    case "a":
      return link(n, ctx);
    case "img":
      return image(n, ctx);
    case "strong":
    case "b":
      return wrap("**", kids(n, ctx));
    case "em":
    case "i":
      return wrap("*", kids(n, ctx));
    case "s":
    case "del":
      return wrap("~~", kids(n, ctx));
    case "code":
      if (ctx.pre) return kids(n, ctx);
      return wrap("`", kids(n, ctx).replace(/`/g, "'"));
    case "pre":
      return pre(n, ctx);
    case "blockquote":
      return blockquote(n, ctx);
    case "ul":
    case "menu":
      return list(n, ctx, false);
    case "ol":
      return list(n, ctx, true);
    case "table":
      return table(n, ctx);
    case "td":
    case "th":
      return " " + kids(n, ctx) + " ";
    case "iframe":
    case "frame":
      return frame(n, ctx);
    default:
      break;
  }
  const inner = kids(n, ctx);
  return isBlock(n) ? "\n\n" + inner + "\n\n" : inner;
}

function kids(n, ctx) {
  let out = "";
  for (const c of n.children || []) out += render(c, ctx);
  return out;
}

function heading(n, ctx) {
  // A heading inside a link carries the link itself (see link).
  const href = ctx.headingHref;
  let t = oneLine(kids(n, href ? { ...ctx, headingHref: null, link: true } : ctx));
  if (t && href) t = `[${t}](${target(href, ctx.page)})`;
  // In a data table's cell a heading is the cell's text.
  if (ctx.cell) return t ? ` ${t} ` : "";
  return t ? `\n\n${"#".repeat(Number(n.tag[1]))} ${t}\n\n` : "";
}

function link(n, ctx) {
  const a = n.attrs || {};
  const href = a.href || "";
  const live = href && !/^\s*javascript:/i.test(href);
  // A link nested in link text (only scripts can build one) adds no
  // second target.
  if (!live || ctx.link) {
    return kids(n, ctx) || (ctx.hidden ? "" : oneLine(a["aria-label"] || a.title || ""));
  }
  // Headings are never link text: the link moves into each heading
  // and the rest of the link's content renders unlinked.
  if (!ctx.headingHref && hasHeading(n)) return kids(n, { ...ctx, headingHref: href });
  const t = oneLine(kids(n, { ...ctx, link: true })) ||
    (ctx.hidden ? "" : escBrackets(oneLine(a["aria-label"] || a.title || "")));
  if (!t) return "";
  return `[${t}](${target(href, ctx.page)})`;
}

function image(n, ctx) {
  if (ctx.hidden) return "";
  const a = n.attrs || {};
  const alt = escBrackets(oneLine(a.alt || ""));
  if (!alt) return "";
  const src = a.src || "";
  return /^https?:/i.test(src) ? `![${alt}](${target(src, ctx.page)})` : `![${alt}]`;
}

function pre(n, ctx) {
  if (ctx.hidden) return "";
  const body = rawText(n).replace(/^\n+|\s+$/g, "");
  return body ? "\n\n```\n" + body + "\n```\n\n" : "";
}

function blockquote(n, ctx) {
  const body = tidy(kids(n, ctx));
  return body ? "\n\n" + body.split("\n").map((l) => "> " + l).join("\n") + "\n\n" : "";
}

// frame is a same-origin frame's text (domToTree walked its body), under
// a marker naming the frame, so it is never taken for the page's own.
function frame(n, ctx) {
  const body = tidy(kids(n, ctx));
  return body ? `\n\n[frame: ${target((n.attrs || {}).src || "", ctx.page)}]\n\n${body}\n\n` : "";
}

function list(n, ctx, ordered) {
  let i = 0;
  const items = [];
  for (const c of n.children || []) {
    if (c.text !== undefined) continue;
    if (stripped(c)) continue;
    if (c.tag !== "li") {
      const other = tidy(render(c, ctx));
      if (other) items.push(other);
      continue;
    }
    i++;
    const marker = ordered ? `${i}. ` : "- ";
    const body = tidy(kids(c, ctx));
    if (!body) continue;
    items.push(indentBody(body, marker, IND.repeat(marker.length)));
  }
  return "\n\n" + items.join("\n") + "\n\n";
}

// table renders a data table as a Markdown table and a layout table as
// its cells' content, one block per cell, row by row (markdown-table.js
// tells them apart).
function table(n, ctx) {
  const { grid, width, data, header } = readTable(n);
  if (data) {
    const cells = grid.map((r) => r.map((c) => oneLine(kids(c, { ...ctx, cell: true }))));
    if (header || !cells.some((r) => r.some((c) => c.length > LAYOUT_CELL_CHARS))) {
      return "\n\n" + markdownTable(cells, width) + "\n\n";
    }
  }
  let out = "";
  for (const c of n.children || []) {
    if (c.tag === "caption") out += "\n\n" + render(c, ctx) + "\n\n";
  }
  for (const r of grid) for (const c of r) out += "\n\n" + kids(c, ctx) + "\n\n";
  return out || "\n\n" + kids(n, ctx) + "\n\n";
}
