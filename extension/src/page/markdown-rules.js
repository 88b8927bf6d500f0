// Which tree nodes toMarkdown (markdown.js) drops, and which it renders
// as blocks or headings.

export const HEADING = /^h[1-6]$/;

// Stripped: navigation, page furniture and form controls, by tag or ARIA
// role.
const STRIP_TAGS = {
  nav: 1, footer: 1, aside: 1, script: 1, style: 1, noscript: 1, template: 1,
  head: 1, svg: 1, canvas: 1, select: 1, datalist: 1, option: 1,
  input: 1, textarea: 1,
};
const STRIP_ROLES = { navigation: 1, contentinfo: 1, complementary: 1 };
// Blocks by tag, for a node whose display the tree does not know.
const BLOCK_TAGS = {
  address: 1, article: 1, body: 1, center: 1, dd: 1, details: 1, dialog: 1, div: 1,
  dl: 1, dt: 1, fieldset: 1, figcaption: 1, figure: 1, form: 1, header: 1, hgroup: 1,
  html: 1, legend: 1, li: 1, main: 1, p: 1, search: 1, section: 1, summary: 1, tr: 1,
};
const BLOCK_DISPLAY = /^(block|flex|grid|flow-root|list-item|table|table-row|table-row-group|table-header-group|table-footer-group|table-caption)$/;

// stripped says whether toMarkdown drops n and its content: a stripped tag
// or role, hidden (the attribute, aria-hidden, display: none), or a
// fixed or sticky overlay (cookie banners, chat bubbles).
export function stripped(n) {
  const a = n.attrs || {};
  const s = n.style || {};
  if (STRIP_TAGS[n.tag]) return true;
  if (a.role && STRIP_ROLES[String(a.role).toLowerCase()]) return true;
  if (a.hidden !== undefined && a.hidden !== null && a.hidden !== false) return true;
  if (String(a["aria-hidden"]).toLowerCase() === "true") return true;
  if (s.display === "none") return true;
  if (s.position === "fixed" || s.position === "sticky") return true;
  return false;
}

// isBlock: by its computed display, else by its tag.
export function isBlock(n) {
  const d = n.style && n.style.display;
  if (d) return BLOCK_DISPLAY.test(d);
  return !!BLOCK_TAGS[n.tag];
}

// hasHeading says whether a heading is in n (outside stripped parts).
export function hasHeading(n) {
  for (const c of n.children || []) {
    if (c.text !== undefined || stripped(c)) continue;
    if (HEADING.test(c.tag) || hasHeading(c)) return true;
  }
  return false;
}
