// Readable locators for one element, generated in the page: describe's
// (actions/describe.js sends describeElement as generated/page.js's
// DESCRIBE), and recording's (docs/decisions/readable-locators.md), which runs the same
// generator on the element under the person's click. The order follows
// Testing Library's priority and Playwright's selector generator (learned
// from, not copied): a role and accessible name (added by the worker, from
// the accessibility tree, so it is what a role target resolves), a label,
// a test id, an id that does not look generated, a short CSS path (tag,
// stable classes and attributes, a few levels, never an nth-child chain),
// the element's text. Each locator says how many elements it matches in
// the element's document now; one that matches several carries nth, the
// element's place among them.
//
// The pure rules are node-tested (test/locator.test.js); the rest is
// proved in Chromium (e2e/mcp_ext_test.go).

import { cssPath } from "./css-path.js";
import { TEST_ID_ATTRS, cssString, isGeneratedId, normalizeText } from "./locator-rules.js";

// describeElement runs with `this` = the element describe names: its
// locators (generateLocators), and whether its page is hidden and it is in
// a frame, which the worker's role locator needs.
export function describeElement() {
  const r = generateLocators(this);
  r.hidden = (this.ownerDocument || document).visibilityState === "hidden";
  r.inFrame = r.frame !== undefined;
  return r;
}

// generateLocators returns {tag, inputType?, autocomplete?, label?,
// frame?, locators} for el, the locators without the role one (the worker
// adds it from the accessibility tree) and unordered.
export function generateLocators(el) {
  const doc = el.ownerDocument;
  const tag = el.localName;
  const out = { tag, locators: [] };
  if (tag === "input") out.inputType = String(el.type || "text").toLowerCase();
  const ac = normalizeText(el.getAttribute("autocomplete"));
  if (ac) out.autocomplete = ac;
  const frame = frameOf(doc);
  if (frame) out.frame = frame;
  // Only a node in the document itself is reachable by a selector or a
  // label from the document: one in a shadow root gets the role locator
  // (the accessibility tree crosses shadow roots) and its text.
  const inDocument = el.getRootNode() === doc;
  const count = counter(doc, el);
  const add = (loc, c) => {
    if (c.count === 0) return;
    loc.count = c.count;
    if (c.count > 1) loc.nth = c.nth;
    out.locators.push(loc);
  };
  const labels = labelsOf(el, doc);
  const label = labels[0] || normalizeText(el.getAttribute("placeholder")) || normalizeText(el.getAttribute("title"));
  if (label) out.label = label.slice(0, 200);
  if (inDocument && labels.length) add({ by: "label", label: labels[0] }, labelled(doc, el, labels[0]));
  if (inDocument) addSelectors(el, doc, count, add, out.locators);
  // Text: the element's own text, when short, and the element is the
  // innermost one holding exactly that text (a click on it lands there).
  if (!/^(input|select|textarea|html|body)$/.test(tag)) {
    const text = normalizeText(el.textContent);
    if (text && text.length <= 80) {
      const same = holding(inDocument ? doc : el.getRootNode(), text);
      if (same.includes(el)) add({ by: "text", text }, { count: same.length, nth: same.indexOf(el) });
    }
  }
  return out;
}

// frameOf is doc's frame as a target's frame takes it: the iframe's name
// when it has one, else the frame document's URL; undefined for the top
// document.
function frameOf(doc) {
  const win = doc.defaultView;
  if (!win || win === win.top) return undefined;
  let name;
  try {
    name = (win.frameElement && win.frameElement.getAttribute("name")) || win.name || "";
  } catch (e) {
    name = win.name || "";
  }
  return name || doc.URL;
}

// counter returns count(selector): {count, nth}, how many elements of doc
// the selector matches (0 when el is not among them, or the selector is
// invalid) and el's place among them.
function counter(doc, el) {
  return (sel) => {
    try {
      const all = doc.querySelectorAll(sel);
      let nth = -1;
      for (let i = 0; i < all.length; i++) if (all[i] === el) nth = i;
      return { count: nth < 0 ? 0 : all.length, nth };
    } catch (e) {
      return { count: 0, nth: -1 };
    }
  };
}

// labelsOf are e's labels, as Playwright's getByLabel reads them: <label>
// elements, aria-labelledby, aria-label; exact text, whitespace collapsed.
function labelsOf(e, doc) {
  const textOf = (n) => normalizeText(n.textContent);
  const texts = [];
  if (e.labels) for (const l of e.labels) texts.push(textOf(l));
  const ids = normalizeText(e.getAttribute("aria-labelledby"));
  if (ids) {
    const root = e.getRootNode();
    const parts = ids.split(" ").map((id) => (root.getElementById ? root.getElementById(id) : doc.getElementById(id))).filter(Boolean);
    texts.push(normalizeText(parts.map(textOf).join(" ")));
  }
  texts.push(normalizeText(e.getAttribute("aria-label")));
  return texts.filter((t) => t);
}

// labelled counts the elements of doc labelled want, and el's place among
// them.
function labelled(doc, el, want) {
  const all = [];
  for (const e of doc.querySelectorAll("input,select,textarea,button,meter,output,progress,[aria-label],[aria-labelledby]")) {
    if (labelsOf(e, doc).includes(want)) all.push(e);
  }
  return { count: all.includes(el) ? all.length : 0, nth: all.indexOf(el) };
}

// addSelectors adds el's test id, id and CSS path locators.
function addSelectors(el, doc, count, add, locators) {
  for (const a of TEST_ID_ATTRS) {
    const v = el.getAttribute(a);
    if (v) add({ by: "testid", selector: `[${a}=${cssString(v)}]` }, count(`[${a}=${cssString(v)}]`));
  }
  if (el.id && !isGeneratedId(el.id)) {
    const sel = "#" + CSS.escape(el.id);
    add({ by: "id", selector: sel }, count(sel));
  }
  // A CSS path that is only the id or a test id says nothing more.
  const css = cssPath(el, doc, count);
  if (css && !locators.some((l) => l.selector === css.selector)) add({ by: "css", selector: css.selector }, css);
}

// holding are the elements under root that hold exactly text, whitespace
// collapsed, innermost only.
function holding(root, text) {
  const same = [];
  for (const e of root.querySelectorAll("*")) {
    if (/^(script|style|template|head|title|noscript)$/.test(e.localName)) continue;
    if (e.textContent.length < text.length || normalizeText(e.textContent) !== text) continue;
    let inner = false;
    for (const k of e.children) if (normalizeText(k.textContent) === text) inner = true;
    if (!inner) same.push(e);
  }
  return same;
}
