// extract's reads in the page (actions/extract.js sends them as
// generated/page.js's EXTRACT and EXTRACT_FRAME): text, markdown, the
// rendered iframes' srcs and the element list in one Runtime.evaluate.
//
// Each answers an array: first the read as a JSON string, then the kept
// elements' nodes, which deep serialization turns into their
// backendNodeIds, then the array of every listed element, which stays in
// the page for the next changes read (read/changes.js).

import { MARKDOWN_MAX_CHARS, TEXT_MAX_CHARS, capText } from "./caps.js";
import { collectElements } from "./elements.js";
import { toMarkdownAt } from "./markdown.js";
import { domToTree } from "./tree.js";

// The rendered iframes whose srcs a read reports at most (the worker
// matches them against the captcha patterns).
const MAX_FRAME_SRCS = 100;
const MEDIA = "img,video,canvas,svg,iframe,input,button,select,textarea,object,embed";

// readPage reads the page, or with selector (a CSS selector, or null) its
// matches. options: {final, maxElements, markdownMax, walkAll}. hasContent: the
// root is shown and the read found text, markdown, elements or a drawn
// image or field. Unless options.final, a page without content comes back
// as [{found, hasContent: false, readyState}], and one whose root is
// hidden (a body revealed by script) is not read at all. A budgeted read
// (walkAll) walks all of the page up to markdownMax, to cut its markdown
// into parts; another walks up to twelve times the 30 KB cap, enough to
// say how many parts the rest makes.
export function readPage(selector, options) {
  const roots = rootsOf(selector);
  if (!roots.length) return [JSON.stringify({ found: false })];
  const shown = roots.some(drawn) && drawn(document.documentElement);
  if (!shown && !options.final) return [JSON.stringify({ found: true, hasContent: false, readyState: document.readyState })];
  const t0 = performance.now();
  const raw = roots.map((r) => String(r.innerText !== undefined ? r.innerText : r.textContent || "")).join("\n\n");
  const text = capText(raw, TEXT_MAX_CHARS);
  const markdownMax = options.markdownMax;
  // The elements first, so the markdown can say where each one is (at:
  // its offset there, -1 where it renders no text of its own), which
  // puts each in the part of a long read that shows it.
  const all = [];
  const els = elementsOf(selector === null ? [document.documentElement] : roots, options.maxElements, all);
  const t1 = performance.now();
  const index = new Map(els.nodes.map((n, i) => [n, i]));
  const walk = options.walkAll ? { maxText: 3 * markdownMax, maxNodes: 250000 } : { maxText: 12 * MARKDOWN_MAX_CHARS };
  const tree = domToTree(roots.length === 1 ? roots[0] : roots, { ...walk, index });
  const t2 = performance.now();
  const { markdown, at } = toMarkdownAt(tree, { maxLength: markdownMax, pageUrl: location.href }, els.nodes.length);
  const t3 = performance.now();
  const frameSrcs = shownFrameSrcs();
  const t4 = performance.now();
  // Content is what the read found (markdown and elements follow open
  // shadow roots, where innerText does not reach), or a drawn image,
  // canvas or field, which neither may name.
  const hasContent = shown && (raw.trim() !== "" || markdown.trim() !== "" || els.total > 0 ||
    roots.some((r) => Array.from(r.querySelectorAll(MEDIA)).some(boxed)));
  if (!hasContent && !options.final) return [JSON.stringify({ found: true, hasContent, readyState: document.readyState })];
  const profile = { elements: t1 - t0, domToTree: t2 - t1, toMarkdown: t3 - t2, frames: t4 - t3 };
  const page = { found: true, hasContent, readyState: document.readyState, text, markdown, at, url: location.href, title: document.title, frameSrcs, elements: els.items, elementsTotal: els.total, profile };
  if (selector !== null) page.matches = roots.length;
  return [JSON.stringify(page), ...els.nodes, all];
}

// readFrame reads an out-of-process iframe's document, in its own
// session: its elements only (markdown covers same-origin frames, which
// readPage walks), each marked with the frame's URL, at most maxElements.
// A frame drawn with no size (its iframe display: none) lists nothing, as
// the accessibility tree leaves a hidden iframe's content out.
export function readFrame(maxElements) {
  const url = location.href;
  if (!document.documentElement || innerWidth === 0 || innerHeight === 0) return [JSON.stringify({ url, elements: [], elementsTotal: 0 })];
  const all = [];
  const els = collectElements(document.documentElement, { max: maxElements, frame: url, all });
  return [JSON.stringify({ url, elements: els.items, elementsTotal: els.total }), ...els.nodes, all];
}

// rootsOf is what a read covers: the page's body, or every match of
// selector in document order but those inside another match, which are
// read with it.
function rootsOf(selector) {
  const roots = [];
  if (selector === null) roots.push(document.body || document.documentElement);
  else for (const el of document.querySelectorAll(selector)) if (!roots.length || !roots[roots.length - 1].contains(el)) roots.push(el);
  return roots;
}

function drawn(el) {
  return !el.checkVisibility || el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
}

function boxed(el) {
  if (!drawn(el)) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

// shownFrameSrcs are the srcs of the page's rendered iframes, raw: the
// worker classifies them (read/page-signals.js), so the page needs no copy
// of the captcha patterns.
function shownFrameSrcs() {
  const srcs = [];
  for (const f of document.querySelectorAll("iframe[src]")) {
    if (srcs.length >= MAX_FRAME_SRCS) break;
    const cs = getComputedStyle(f);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    srcs.push(String(f.src));
  }
  return srcs;
}

// elementsOf lists each root's elements in turn, within one cap of max.
// all, shared by the roots, gets every listed element for the changes
// ledger, and an option's parent is an index into it: the kept elements
// are its first ones (a root past the cap keeps none), so that is their
// index here.
function elementsOf(roots, max, all) {
  const els = { nodes: [], items: [], total: 0 };
  for (const r of roots) {
    const got = collectElements(r, { max: max - els.nodes.length, all });
    els.items.push(...got.items);
    els.nodes.push(...got.nodes);
    els.total += got.total;
  }
  return els;
}
