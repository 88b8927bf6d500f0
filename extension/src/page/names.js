// Accessible names and values of the listed elements (elements.js), by the
// rules Chromium applies to these roles (accname 1.2): aria-labelledby,
// aria-label, a button input's value, <label>, placeholder, content,
// aria-placeholder, title.

import { clean, rendered } from "./dom.js";
import { explicitRole } from "./roles.js";

// Roles whose name comes from their content (ARIA 1.2 §Roles supporting
// name from content), among the listed ones.
const FROM_CONTENT = {
  button: 1, link: 1, checkbox: 1, radio: 1, option: 1, menuitem: 1, menuitemcheckbox: 1,
  menuitemradio: 1, tab: 1, switch: 1, treeitem: 1,
};
// Containers whose content never names an ancestor, as in Chromium
// (a link around a <figure> takes its title, not the figure's text).
const NO_CONTENT_TAGS = {
  figure: 1, ul: 1, ol: 1, menu: 1, table: 1, nav: 1, main: 1, aside: 1, dialog: 1,
  video: 1, audio: 1, iframe: 1, object: 1, embed: 1, canvas: 1, math: 1,
};

// nameOf is el's accessible name in role ("" when it has none).
export function nameOf(el, role) {
  const tag = el.localName;
  const labelled = byIds(el, "aria-labelledby");
  if (labelled) return labelled;
  const aria = clean(el.getAttribute("aria-label"));
  if (aria) return aria;
  if (tag === "input") {
    const own = inputName(el);
    if (own !== null) return own;
  }
  // A <label>, even an empty one, is the name: Chromium looks no
  // further (a placeholder does not name a labelled input).
  if (el.labels && el.labels.length) return clean(Array.from(el.labels, (l) => fromContent(l, el, 0)).join(" "));
  if (tag === "input" || tag === "textarea") {
    const ph = clean(el.getAttribute("placeholder"));
    if (ph) return ph;
  }
  if (tag === "option") {
    const s = clean(el.label || el.textContent);
    if (s) return s;
  } else if (FROM_CONTENT[role] || tag === "a" || tag === "button") {
    const s = clean(fromContent(el, el, 0));
    if (s) return s;
  }
  const ariaPh = clean(el.getAttribute("aria-placeholder"));
  if (ariaPh && (role === "textbox" || role === "searchbox" || role === "combobox")) return ariaPh;
  const title = clean(el.getAttribute("title"));
  if (title) return title;
  // An unlabelled file input is named by its button's text, as Chromium's
  // accessibility tree and Playwright's aria snapshot name it.
  if (isFileInput(el)) return el.multiple ? "Choose Files" : "Choose File";
  if (tag === "a" || tag === "area") {
    const img = tag === "a" ? el.querySelector("img[alt]") : null;
    if (img) return clean(img.getAttribute("alt"));
  }
  return "";
}

// inputName is the name a button-like <input> gives itself (its value,
// or the default label of its type), or null for other inputs.
function inputName(el) {
  const type = (el.getAttribute("type") || "text").toLowerCase();
  if (type === "submit" || type === "reset" || type === "button") {
    if (el.hasAttribute("value")) return clean(el.value);
    return type === "submit" ? "Submit" : type === "reset" ? "Reset" : clean(el.title);
  }
  if (type === "image") return clean(el.getAttribute("alt") || el.value || el.title || "Submit");
  return null;
}

// controlValue is a form control's value as the accessibility tree gives
// it: a select's chosen option, a field's text (a password masked), a
// slider's or spinbutton's aria value, an editable's text.
export function controlValue(el) {
  const tag = el.localName;
  if (tag === "select") {
    const o = el.selectedOptions && el.selectedOptions[0];
    return o ? clean(o.label || o.textContent) : "";
  }
  if (tag === "textarea") return el.value;
  if (tag === "input") {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    // A file input's value is what it shows beside its button: the chosen
    // files' names, or that none is chosen, so its line says what it is.
    if (type === "file") return el.files && el.files.length ? Array.from(el.files, (f) => f.name).join(", ") : "No file chosen";
    if (/^(checkbox|radio|button|submit|reset|image|hidden)$/.test(type)) return "";
    if (type === "password") return el.value ? "•".repeat(el.value.length) : "";
    return el.value;
  }
  const role = explicitRole(el);
  if (role === "slider" || role === "spinbutton") {
    return el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || "";
  }
  if (el.isContentEditable) return el.textContent;
  return "";
}

function isFileInput(el) {
  return el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "file";
}

// byIds is the name the elements attr (aria-labelledby) points at give
// el, or null.
function byIds(el, attr) {
  const ids = (el.getAttribute(attr) || "").trim();
  if (!ids) return null;
  const scope = el.getRootNode();
  const parts = [];
  for (const id of ids.split(/\s+/)) {
    const ref = scope.getElementById ? scope.getElementById(id) : el.ownerDocument.getElementById(id);
    if (!ref) continue;
    const label = ref.getAttribute("aria-label");
    parts.push(label && clean(label) ? label : ref.localName === "input" || ref.localName === "select" || ref.localName === "textarea" ? controlValue(ref) : fromContent(ref, el, 0));
  }
  const s = clean(parts.join(" "));
  return s || null;
}

// fromContent is the text an element's subtree gives its name:
// rendered text (text-transform applied), image alts (or titles), an
// SVG's <title>, embedded controls' values, descendants' aria-label,
// hidden parts left out, a space around blocks. self is the element
// being named, whose own value never names it.
function fromContent(node, self, depth) {
  let s = "";
  const kids = node.shadowRoot ? node.shadowRoot.childNodes : node.localName === "slot" && node.assignedNodes().length ? node.assignedNodes({ flatten: true }) : node.childNodes;
  for (const k of kids) {
    if (k.nodeType === 3) {
      s += transformed(k.nodeValue, k.parentNode);
      continue;
    }
    if (k.nodeType !== 1) continue;
    const tag = k.localName;
    if (tag === "script" || tag === "style" || tag === "template" || tag === "noscript") continue;
    if (hiddenFromContent(k)) continue;
    const part = contentPart(k, tag, self, depth);
    const d = k.localName === "br" ? "inline" : getComputedStyle(k).display;
    s += d === "inline" || d === "contents" ? part : " " + part + " ";
  }
  return s;
}

// contentPart is what the element k (tag) adds to its ancestor's name.
function contentPart(k, tag, self, depth) {
  const label = k.getAttribute("aria-label");
  if (label && clean(label)) return label;
  if (tag === "img" || (tag === "input" && k.type === "image")) return k.getAttribute("alt") || k.getAttribute("title") || "";
  if (tag === "svg") {
    const title = Array.from(k.children).find((c) => c.localName === "title");
    return title ? title.textContent : "";
  }
  if (NO_CONTENT_TAGS[tag]) return "";
  if (k !== self && /^(input|select|textarea)$/.test(tag)) return controlValue(k);
  if (tag === "br") return "\n";
  return depth > 20 ? k.textContent : fromContent(k, self, depth + 1);
}

function hiddenFromContent(el) {
  if (el.getAttribute("aria-hidden") === "true") return true;
  if (el.localName === "option" || el.localName === "optgroup") return false;
  return !rendered(el);
}

function transformed(text, parent) {
  if (!parent || parent.nodeType !== 1) return text;
  const t = getComputedStyle(parent).textTransform;
  if (t === "uppercase") return text.toUpperCase();
  if (t === "lowercase") return text.toLowerCase();
  if (t === "capitalize") return text.replace(/(^|\s)(\S)/g, (m, a, b) => a + b.toUpperCase());
  return text;
}
