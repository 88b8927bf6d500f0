// domToTree: the page as plain objects, the input of toMarkdown
// (markdown.js), read in the page so the rendering never touches the DOM
// again.
//
// Tree shape: a text node is {text}; an element is {tag, attrs, style,
// children} where attrs holds the few attributes the rules read (href,
// src, alt, title, role, aria-hidden, aria-label, hidden) and style the
// computed {display, visibility, position}. The root of a walk cut short
// carries cut: true.

import { MARKDOWN_MAX_CHARS } from "./caps.js";

// Elements whose content is never text of the page.
const SKIP = {
  script: 1, style: 1, noscript: 1, template: 1, head: 1, meta: 1, link: 1,
  svg: 1, canvas: 1, object: 1, embed: 1, audio: 1, video: 1,
};
// Elements and roles toMarkdown strips: their text costs the budget nothing.
const QUIET_TAGS = { nav: 1, footer: 1, aside: 1, select: 1, datalist: 1, option: 1, textarea: 1 };
const QUIET_ROLES = { navigation: 1, contentinfo: 1, complementary: 1 };
const ATTRS = ["alt", "title", "role", "aria-hidden", "aria-label", "hidden"];

// domToTree snapshots root's flat tree (open shadow roots and slotted nodes
// included, as rendered) into plain objects; root may be a list of
// elements, each then one block of the tree. Computed style is read once per
// element so toMarkdown can drop hidden content and fixed/sticky overlays
// without touching the DOM again.
//
// opts.index maps the listed elements' nodes to their index in the
// element list: each one's tree node carries it as el.
//
// The walk stops, and marks the root {cut: true}, once it holds more text
// than the Markdown can show: opts.maxText characters (default three times
// the 30 KB cap, as rendering drops whitespace and adds link targets)
// outside the parts toMarkdown strips, or opts.maxNodes nodes (default
// 60000). A long page then costs what its first screens cost.
export function domToTree(root, opts) {
  const first = Array.isArray(root) ? root[0] : root;
  const doc = first.ownerDocument || first;
  const walker = {
    view: doc.defaultView,
    maxNodes: (opts && opts.maxNodes) || 60000,
    textLeft: (opts && opts.maxText) || 3 * MARKDOWN_MAX_CHARS,
    count: 0,
    cut: false,
    index: opts && opts.index,
  };
  let tree;
  if (Array.isArray(root)) {
    // Several roots (extract's selector matches) share the budget, each
    // one block under a plain root.
    tree = block([]);
    for (const r of root) {
      const t = walk(walker, r, false);
      if (t) tree.children.push(block([t]));
      if (walker.cut) break;
    }
  } else tree = walk(walker, root, false);
  if (tree && walker.cut) tree.cut = true;
  return tree;
}

function block(children) {
  return { tag: "div", attrs: {}, style: { display: "block" }, children };
}

// walk snapshots node and its flat-tree children (open shadow roots, a
// slot's assigned nodes), counting them against the walker's budget:
// computed style read once, and the attributes the rules read. quiet:
// under something toMarkdown strips, so its text costs nothing. It runs
// once per node, so it is one function: split into helpers, the walk took
// a quarter longer in Chromium (BENCHMARKS.md "Page scripts as modules").
function walk(walker, node, quiet) {
  if (walker.cut) return null;
  if (walker.count++ > walker.maxNodes || walker.textLeft <= 0) {
    walker.cut = true;
    return null;
  }
  if (node.nodeType === 3) {
    if (!quiet) walker.textLeft -= node.nodeValue.length;
    return { text: node.nodeValue };
  }
  if (node.nodeType !== 1) return null;
  const tag = String(node.localName || node.tagName || "").toLowerCase();
  if (SKIP[tag]) return null;
  const view = walker.view;
  const cs = view && view.getComputedStyle ? view.getComputedStyle(node) : null;
  const style = cs ? { display: cs.display, visibility: cs.visibility, position: cs.position } : {};
  const attrs = {};
  for (const name of ATTRS) {
    const v = node.getAttribute ? node.getAttribute(name) : null;
    if (v !== null && v !== undefined) attrs[name] = v;
  }
  // The resolved properties, not the attributes, so relative links come
  // out absolute and the agent can navigate to them directly.
  if (tag === "a" && node.getAttribute && node.getAttribute("href") !== null) {
    attrs.href = node.href || node.getAttribute("href");
  }
  if (tag === "img") attrs.src = node.currentSrc || node.src || "";
  const el = { tag, attrs, style, children: [] };
  // A listed element carries its index in the element list, so the
  // markdown can say where it is (toMarkdownAt).
  if (walker.index && walker.index.has(node)) el.el = walker.index.get(node);
  if (style.display === "none") return el;
  if (tag === "iframe" || tag === "frame") return walkFrame(walker, node, el, quiet);
  const role = String(attrs.role || "").toLowerCase();
  const still = quiet || QUIET_TAGS[tag] || QUIET_ROLES[role] || attrs.hidden !== undefined ||
    String(attrs["aria-hidden"]).toLowerCase() === "true" || style.position === "fixed" ||
    style.position === "sticky" || style.visibility === "hidden";
  let kids = node.childNodes;
  if (node.shadowRoot) kids = node.shadowRoot.childNodes;
  if (tag === "slot" && node.assignedNodes) {
    const assigned = node.assignedNodes({ flatten: true });
    if (assigned.length) kids = assigned;
  }
  for (const kid of Array.from(kids || [])) {
    const t = walk(walker, kid, still);
    if (t) el.children.push(t);
    if (walker.cut) break;
  }
  return el;
}

// walkFrame walks a same-origin frame's body in place, under the frame's
// URL: its text is the page's too. A cross-origin one is not the page's
// to read (contentDocument is null) and leaves nothing.
function walkFrame(walker, node, el, quiet) {
  let inner;
  try {
    inner = node.contentDocument;
  } catch (e) {
    inner = null;
  }
  if (!inner || !inner.body) return null;
  el.attrs.src = inner.URL;
  const body = walk(walker, inner.body, quiet || el.style.visibility === "hidden");
  if (body) el.children.push(body);
  return el;
}
