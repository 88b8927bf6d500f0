// The page side of extract's element list. collectElements runs in the
// page, inside extract's one Runtime.evaluate (read.js) or a changes read
// (changes.js), and finds the interactive elements, their role, accessible
// name, value, states and visibility, in one pass over the flat tree. The
// worker gets the kept elements' nodes back by deep serialization, which
// carries their backendNodeIds, so the cost grows with what is returned,
// not with the page: no accessibility tree is fetched and no CDP command
// is sent per element.
//
// It reproduces what Chromium's accessibility tree gave extract before
// (docs/extension.md "Element list"): the same roles (roles.js), the same
// elements left out (aria-hidden, inert, display: none, visibility:
// hidden, a shadow host's unslotted children), names by the
// accessible-name rules Chromium applies to these roles (names.js). e2e's
// TestExtract_ElementsMatchAXTree compares the two on the fixtures.

import { clean, rendered } from "./dom.js";
import { controlValue, nameOf } from "./names.js";
import { ROLES, roleOf } from "./roles.js";

const CHECKABLE = { checkbox: 1, radio: 1, switch: 1, menuitemcheckbox: 1, menuitemradio: 1 };
const VALUED = { textbox: 1, searchbox: 1, combobox: 1, slider: 1, spinbutton: 1 };

// collectElements walks root's flat tree (open shadow roots, slotted nodes
// and same-origin iframes included) in document order. It returns {nodes,
// items, total}: nodes[i] is the element described by items[i], at most
// opts.max of them; total counts every listed element, kept or not.
//
// For the changes reads (read/changes.js): opts.all, an array, gets every
// listed element, kept or not, and a parent is then an index into it;
// opts.keep(el), when given, says which elements to describe (the new
// ones), within opts.max.
//
// An item is {role, name?, value?, visible, checked?, selected?,
// expanded?, disabled?, parent?, frame?}: frame is the URL of the iframe
// document the element is in (opts.frame for root's own document, which is
// unset for the main frame's); checked is true, false or "mixed" on
// the checkable roles; expanded is set when the element says (aria-expanded);
// selected and disabled only when true; parent is the index of the listbox
// or combobox (a <select>) an option belongs to, when that one is kept.
export function collectElements(root, opts) {
  const list = { opts, nodes: [], items: [], total: 0 };
  // Ancestors above root still hide it.
  let hidden = false;
  for (let a = root.parentElement; a; a = a.parentElement) {
    if (a.getAttribute("aria-hidden") === "true" || a.hasAttribute("inert")) hidden = true;
  }
  visit(list, root, hidden, undefined, opts.frame);
  return { nodes: list.nodes, items: list.items, total: list.total };
}

// visit walks one element and its flat-tree children (open shadow
// roots, a slot's assigned elements, a same-origin iframe's document).
// hidden says an ancestor took the subtree out of the accessibility tree
// (aria-hidden, inert, an iframe not rendered); owner is the index of the
// kept select or listbox the subtree belongs to; frame the URL of its
// iframe document. It runs once per element, so the common case stays in
// it, as in the walk of tree.js.
function visit(list, el, hidden, owner, frame) {
  if (el.getAttribute("aria-hidden") === "true" || el.hasAttribute("inert")) hidden = true;
  const tag = el.localName;
  if (tag === "script" || tag === "style" || tag === "template" || tag === "head") return;
  if (!hidden) {
    const role = roleOf(el);
    if (role && ROLES[role]) owner = listElement(list, el, tag, role, owner, frame);
  }
  if (tag === "iframe" || tag === "frame") {
    let doc;
    try {
      doc = el.contentDocument;
    } catch (e) {
      doc = null;
    }
    if (doc && doc.documentElement) visit(list, doc.documentElement, hidden || !rendered(el), owner, doc.URL);
    return;
  }
  let kids;
  if (el.shadowRoot) kids = el.shadowRoot.children;
  else if (tag === "slot") {
    const assigned = el.assignedElements({ flatten: true });
    kids = assigned.length ? assigned : el.children;
  } else kids = el.children;
  for (let i = 0; i < kids.length; i++) visit(list, kids[i], hidden, owner, frame);
}

// listElement lists el (its role listed) when it is rendered, and
// describes it while the list has room (and opts.keep takes it). It
// returns the owner for el's subtree: el's own index when it is a select
// or listbox.
function listElement(list, el, tag, role, owner, frame) {
  // An option is drawn in its select's popup, so it is as visible as its
  // select; any other element needs a box of its own.
  let shown;
  let visible;
  if (tag === "option") {
    const sel = el.closest("select");
    shown = sel ? rendered(sel) : true;
    const r = sel ? sel.getBoundingClientRect() : null;
    visible = shown && (!r || (r.width > 0 && r.height > 0));
  } else {
    shown = rendered(el);
    const r = shown ? el.getBoundingClientRect() : null;
    visible = shown && r.width > 0 && r.height > 0;
  }
  if (!shown) return owner;
  const { opts } = list;
  const owns = role === "listbox" || role === "combobox";
  list.total++;
  const at = opts.all ? opts.all.push(el) - 1 : -1;
  if (list.nodes.length < opts.max && (!opts.keep || opts.keep(el))) {
    const index = list.nodes.length;
    list.nodes.push(el);
    list.items.push(describe(el, role, visible, role === "option" ? owner : undefined, frame));
    if (owns && at < 0) owner = index;
  }
  if (owns && at >= 0) owner = at;
  return owner;
}

// describe is the list's item for el (see collectElements).
function describe(el, role, visible, parent, frame) {
  const item = { role, visible };
  const name = nameOf(el, role).slice(0, 300);
  if (name) item.name = name;
  if (VALUED[role] || el.localName === "input") {
    const value = clean(controlValue(el)).slice(0, 300);
    if (value) item.value = value;
  }
  if (CHECKABLE[role]) {
    const aria = el.getAttribute("aria-checked");
    if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) {
      item.checked = el.indeterminate ? "mixed" : el.checked;
    } else item.checked = aria === "mixed" ? "mixed" : aria === "true";
  }
  if (el.localName === "option" ? el.selected : el.getAttribute("aria-selected") === "true") item.selected = true;
  const expanded = el.getAttribute("aria-expanded");
  if (expanded === "true" || expanded === "false") item.expanded = expanded === "true";
  if (disabledOf(el)) item.disabled = true;
  if (parent !== undefined) item.parent = parent;
  if (frame) item.frame = frame;
  return item;
}

function disabledOf(el) {
  if (el.matches(":disabled")) return true;
  const a = el.closest("[aria-disabled]");
  return Boolean(a) && a.getAttribute("aria-disabled") === "true";
}
