// Readable locators for one element, generated in the page: describe's
// (actions/describe.js), and recording's later (issue 25), which runs the
// same generator on the element under the person's click. The order
// follows Testing Library's priority and Playwright's selector generator
// (learned from, not copied): a role and accessible name (added by the
// worker, from the accessibility tree, so it is what a role target
// resolves), a label, a test id, an id that does not look generated, a
// short CSS path (tag, stable classes and attributes, a few levels, never
// an nth-child chain), the element's text. Each locator says how many
// elements it matches in the element's document now; one that matches
// several carries nth, the element's place among them.
//
// Every exported function is injected into the page with fn.toString()
// (describeScript), so each is self-contained: no module scope, no
// imports; the page-side ones reach each other through `h`, the helpers
// describeScript hands generateLocators. The pure ones are node-tested (test/locator.test.js); the
// rest is proved in Chromium (e2e/mcp_ext_test.go).

// TEST_ID_ATTRS are the test-id attributes, in the order they are tried.
export const TEST_ID_ATTRS = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];

// RANK orders the kinds of locator, best first.
export const RANK = Object.freeze({ role: 0, label: 1, testid: 2, id: 3, css: 4, text: 5 });

// isGeneratedId says whether an id looks made by a framework or a build,
// not by a person, so it may change from one load or release to the
// next: React's useId (":r1:", "«r1»"), framework counters (ember123,
// mui-4, react-select-2-input, radix-..., headlessui-..., mat-input-0),
// uuids, four or more digits in a row, a leading digit, or a segment
// that keeps switching between letters and digits, or between cases, like
// a hash ("a1b2c3", "xK9qL2"), where a person's camelCase switches
// seldom ("searchInput", "i18nLabel").
export function isGeneratedId(id) {
  const s = String(id);
  if (!s || s.length > 64) return true;
  if (/[:«»\s]/.test(s) || /^\d/.test(s)) return true;
  if (/\d{4,}/.test(s)) return true;
  if (/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/i.test(s)) return true;
  const prefixes = /^(ember|ext-gen|ext-comp|gwt-uid|yui[_-]|mui-|radix-|headlessui-|react-select-|react-aria|rc[_-]|downshift-|select2-|tiny-|mce_|ui-id-|cdk-|mat-|ng-|j_id|jsx-|sc-|chakra-|reach-|floating-ui-|pr_id_|el-id-|vs\d|v-\d|__)/i;
  if (prefixes.test(s) && /\d/.test(s)) return true;
  for (const seg of s.split(/[-_.]/)) {
    if (seg.length < 5) continue;
    let flips = 0;
    let digitFlips = 0;
    let prev = "";
    for (const ch of seg) {
      const k = ch >= "0" && ch <= "9" ? "d" : ch >= "a" && ch <= "z" ? "l" : ch >= "A" && ch <= "Z" ? "u" : "o";
      // A capital starting a word (camelCase) is not a flip.
      if (prev && k !== prev && !(prev === "u" && k === "l")) {
        flips++;
        if (k === "d" || prev === "d") digitFlips++;
      }
      prev = k;
    }
    if (digitFlips >= 3 || (flips >= 3 && flips / seg.length >= 0.4)) return true;
  }
  return false;
}

// isStableClass says whether a class name reads like a person's rather
// than a build's (CSS modules, styled-components, emotion hashes), and is
// not a passing state (active, focus, open, selected, hover, is-*, has-*).
export function isStableClass(c) {
  const s = String(c);
  if (!s || s.length > 40) return false;
  if (/^(css|sc|jsx|emotion|svelte|astro|tw)-[a-zA-Z0-9]+$/.test(s) && /[A-Z0-9]/.test(s.slice(s.indexOf("-")))) return false;
  // A short mixed-case word with no separator: a styled-components hash
  // ("kGIqCc"), not camelCase ("navItem").
  if (/^[a-zA-Z]{5,8}$/.test(s) && (s.match(/[a-z][A-Z]/g) || []).length >= 2) return false;
  if (/^_|__[a-z0-9]{5,}$|[_-][a-zA-Z0-9]{5,}$/.test(s) && /\d/.test(s)) return false;
  if (/\d{3,}/.test(s)) return false;
  if (/^(active|focus|focused|hover|open|opened|selected|checked|disabled|visible|hidden|show|shown|current|loading|loaded|ng-.*|is-.*|has-.*)$/i.test(s)) return false;
  return !isGeneratedId(s);
}

// cssString quotes a value for a CSS attribute selector.
export function cssString(v) {
  return '"' + String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ").replace(/\r/g, "\\d ") + '"';
}

// normalizeText collapses whitespace and trims, as names are compared.
export function normalizeText(s) {
  return String(s || "").replace(/\s+/g, " ").trim();
}

// orderLocators sorts locators best first: those that match the element
// alone (count 1) by RANK, then those that need nth, by RANK; locators
// that match nothing are dropped (the element is not where they look,
// e.g. inside a shadow root).
export function orderLocators(locators) {
  return locators
    .filter((l) => l.count > 0)
    .map((l, i) => ({ l, i }))
    .sort((a, b) => (a.l.count === 1 ? 0 : 1) - (b.l.count === 1 ? 0 : 1) || RANK[a.l.by] - RANK[b.l.by] || a.i - b.i)
    .map(({ l }) => l);
}

// generateLocators runs in the page with el, the element to describe. It
// returns {tag, inputType?, autocomplete?, label?, frame?, locators}, the
// locators without the role one (the worker adds it from the
// accessibility tree) and unordered. h are the functions of this module,
// injected by describeScript.
export function generateLocators(el, h) {
  const doc = el.ownerDocument;
  const tag = el.localName;
  const out = { tag, locators: [] };
  if (tag === "input") out.inputType = String(el.type || "text").toLowerCase();
  const ac = h.normalizeText(el.getAttribute("autocomplete"));
  if (ac) out.autocomplete = ac;
  const frame = h.frameOf(doc);
  if (frame) out.frame = frame;
  // Only a node in the document itself is reachable by a selector or a
  // label from the document: one in a shadow root gets the role locator
  // (the accessibility tree crosses shadow roots) and its text.
  const inDocument = el.getRootNode() === doc;
  const count = (sel) => h.countMatches(doc, el, sel);
  const add = (loc, c) => {
    if (c.count === 0) return;
    loc.count = c.count;
    if (c.count > 1) loc.nth = c.nth;
    out.locators.push(loc);
  };
  const at = { el, doc, tag, h, out, inDocument, count, add };
  h.labelLocator(at);
  if (inDocument) h.selectorLocators(at);
  h.textLocator(at);
  return out;
}

// frameOf is the frame doc is in, as a target's frame takes it: the
// iframe's name when it has one, else the frame document's URL; "" for
// the top document.
export function frameOf(doc) {
  const win = doc.defaultView;
  if (!win || win === win.top) return "";
  let name = "";
  try {
    name = (win.frameElement && win.frameElement.getAttribute("name")) || win.name || "";
  } catch (e) {
    name = win.name || "";
  }
  return name || doc.URL;
}

// countMatches is {count, nth}: how many elements of doc match sel, and
// el's place among them; count 0 when el is not one of them (or sel is
// not a selector).
export function countMatches(doc, el, sel) {
  try {
    const all = doc.querySelectorAll(sel);
    let nth = -1;
    for (let i = 0; i < all.length; i++) if (all[i] === el) nth = i;
    return { count: nth < 0 ? 0 : all.length, nth };
  } catch (e) {
    return { count: 0, nth: -1 };
  }
}

// labelsOf is e's labels, as Playwright's getByLabel reads them: <label>
// elements, aria-labelledby, aria-label; exact text, whitespace
// collapsed.
export function labelsOf(e, doc, h) {
  const textOf = (n) => h.normalizeText(n.textContent);
  const texts = [];
  if (e.labels) for (const l of e.labels) texts.push(textOf(l));
  const ids = h.normalizeText(e.getAttribute("aria-labelledby"));
  if (ids) {
    const root = e.getRootNode();
    const parts = ids.split(" ").map((id) => (root.getElementById ? root.getElementById(id) : doc.getElementById(id))).filter(Boolean);
    texts.push(h.normalizeText(parts.map(textOf).join(" ")));
  }
  texts.push(h.normalizeText(e.getAttribute("aria-label")));
  return texts.filter((t) => t);
}

// labelLocator sets out.label (the first label, else the placeholder or
// the title) and adds the label locator, counted over the document's
// labelled elements.
export function labelLocator({ el, doc, h, out, inDocument, add }) {
  const labels = h.labelsOf(el, doc, h);
  const label = labels[0] || h.normalizeText(el.getAttribute("placeholder")) || h.normalizeText(el.getAttribute("title"));
  if (label) out.label = label.slice(0, 200);
  if (!inDocument || !labels.length) return;
  const want = labels[0];
  const labelled = [];
  for (const e of doc.querySelectorAll("input,select,textarea,button,meter,output,progress,[aria-label],[aria-labelledby]")) {
    if (h.labelsOf(e, doc, h).includes(want)) labelled.push(e);
  }
  add({ by: "label", label: want }, { count: labelled.includes(el) ? labelled.length : 0, nth: labelled.indexOf(el) });
}

// selectorLocators adds the test id, id and CSS path locators.
export function selectorLocators(at) {
  const { el, h, out, count, add } = at;
  for (const a of h.TEST_ID_ATTRS) {
    const v = el.getAttribute(a);
    if (v) add({ by: "testid", selector: `[${a}=${h.cssString(v)}]` }, count(`[${a}=${h.cssString(v)}]`));
  }
  if (el.id && !h.isGeneratedId(el.id)) {
    const sel = "#" + CSS.escape(el.id);
    add({ by: "id", selector: sel }, count(sel));
  }
  // A CSS path that is only the id or a test id says nothing more.
  const css = h.cssPath(at);
  if (css && !out.locators.some((l) => l.selector === css.selector)) add({ by: "css", selector: css.selector }, css);
}

// textLocator adds the text locator: the element's own text, when short,
// and the element is the innermost one holding exactly that text (a click
// on it lands there).
export function textLocator({ el, doc, tag, h, inDocument, add }) {
  if (/^(input|select|textarea|html|body)$/.test(tag)) return;
  const text = h.normalizeText(el.textContent);
  if (!text || text.length > 80) return;
  const same = [];
  for (const e of (inDocument ? doc : el.getRootNode()).querySelectorAll("*")) {
    if (/^(script|style|template|head|title|noscript)$/.test(e.localName)) continue;
    if (e.textContent.length < text.length || h.normalizeText(e.textContent) !== text) continue;
    let inner = false;
    for (const k of e.children) if (h.normalizeText(k.textContent) === text) inner = true;
    if (!inner) same.push(e);
  }
  if (same.includes(el)) add({ by: "text", text }, { count: same.length, nth: same.indexOf(el) });
}

// tokensOf is e's CSS tokens, best first: its id, test ids, name, a few
// short attributes, a short href, up to two classes that read like a
// person's, its tag.
export function tokensOf(e, h) {
  const t = e.localName;
  const list = [];
  if (e.id && !h.isGeneratedId(e.id)) list.push("#" + CSS.escape(e.id));
  for (const a of h.TEST_ID_ATTRS) if (e.getAttribute(a)) list.push(`[${a}=${h.cssString(e.getAttribute(a))}]`);
  if (e.getAttribute("name") && /^(input|select|textarea|button|form|iframe|fieldset|output|object)$/.test(t)) {
    list.push(`${t}[name=${h.cssString(e.getAttribute("name"))}]`);
  }
  for (const a of ["aria-label", "placeholder", "title", "alt", "role"]) {
    const v = e.getAttribute(a);
    if (v && v.length <= 40) list.push(`${t}[${a}=${h.cssString(v)}]`);
  }
  if (t === "input" && e.getAttribute("type")) list.push(`input[type=${h.cssString(e.getAttribute("type"))}]`);
  if (t === "a" && e.getAttribute("href") && e.getAttribute("href").length <= 60) list.push(`a[href=${h.cssString(e.getAttribute("href"))}]`);
  const classes = Array.from(e.classList).filter(h.isStableClass).slice(0, 3);
  for (const c of classes) list.push(`${t}.${CSS.escape(c)}`);
  if (classes.length > 1) list.push(`${t}.${classes.slice(0, 2).map((c) => CSS.escape(c)).join(".")}`);
  list.push(t);
  return list;
}

// cssPath is the shortest CSS path it finds that matches el alone, from
// el's own tokens, then an ancestor's (up to four levels up) before them,
// then two ancestors'; failing that, el's best token with nth. Never
// :nth-child.
export function cssPath({ el, doc, h, count }) {
  const mine = h.tokensOf(el, h);
  for (const t of mine) {
    const c = count(t);
    if (c.count === 1) return { selector: t, ...c };
  }
  const ancestors = [];
  for (let a = el.parentElement; a && ancestors.length < 4 && a !== doc.documentElement; a = a.parentElement) ancestors.push(a);
  const best = [];
  const tryPath = (sel) => {
    const c = count(sel);
    if (c.count === 1) best.push({ selector: sel, ...c });
  };
  ancestors.forEach((a, depth) => {
    for (const ta of h.tokensOf(a, h).slice(0, 4)) for (const t of mine.slice(0, 6)) tryPath(`${ta}${depth === 0 ? " > " : " "}${t}`);
  });
  for (let i = 0; i < ancestors.length && !best.length; i++) {
    for (let j = i + 1; j < ancestors.length && !best.length; j++) {
      for (const t2 of h.tokensOf(ancestors[j], h).slice(0, 2)) {
        for (const t1 of h.tokensOf(ancestors[i], h).slice(0, 2)) for (const t of mine.slice(0, 3)) tryPath(`${t2} ${t1} ${t}`);
      }
    }
  }
  if (best.length) return best.sort((a, b) => a.selector.length - b.selector.length)[0];
  // Nothing unique: the element's own best token, with nth.
  for (const t of mine) {
    const c = count(t);
    if (c.count > 0) return { selector: t, ...c };
  }
  return null;
}

// PAGE_FUNCTIONS are the functions generateLocators reaches through h.
const PAGE_FUNCTIONS = { cssString, normalizeText, frameOf, countMatches, labelsOf, labelLocator, selectorLocators, textLocator, tokensOf, cssPath };

// describeScript is the function declaration describe runs on the
// element (Runtime.callFunctionOn, `this` = the element).
export function describeScript() {
  const fns = Object.entries(PAGE_FUNCTIONS).map(([name, fn]) => `    ${name}: ${fn.toString()},`).join("\n");
  return `function () { /* bua:describe */
  const isGeneratedId = ${isGeneratedId.toString()};
  const helpers = {
    isGeneratedId,
    isStableClass: ${isStableClass.toString()},
${fns}
    TEST_ID_ATTRS: ${JSON.stringify(TEST_ID_ATTRS)},
  };
  return (${generateLocators.toString()})(this, helpers);
}`;
}
