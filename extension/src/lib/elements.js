// The page side of extract's element list. collectElements runs inside
// extract's one Runtime.evaluate (injected with fn.toString(), so it is
// self-contained: no module scope, no imports) and finds the interactive
// elements, their role, accessible name, value, states and visibility, in
// one pass over the flat tree. The worker gets the kept elements' nodes
// back by deep serialization, which carries their backendNodeIds, so the
// cost grows with what is returned, not with the page: no accessibility
// tree is fetched and no CDP command is sent per element.
//
// It reproduces what Chromium's accessibility tree gave extract before
// (docs/extension.md "Element list"): the same roles (INTERACTIVE_ROLES),
// the same elements left out (aria-hidden, inert, display: none,
// visibility: hidden, a shadow host's unslotted children), names by the
// accessible-name rules Chromium applies to these roles. e2e's
// TestExtract_ElementsMatchAXTree compares the two on the fixtures.

// collectElements walks root's flat tree (open shadow roots, slotted nodes
// and same-origin iframes included) in document order. It returns {nodes,
// items, total}: nodes[i] is the element described by items[i], at most
// opts.max of them; total counts every listed element, kept or not.
//
// For the changes reads (lib/changes.js): opts.all, an array, gets every
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
  const max = opts.max;
  const ROLES = {
    button: 1, link: 1, textbox: 1, searchbox: 1, checkbox: 1, radio: 1, combobox: 1, listbox: 1,
    option: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, tab: 1, switch: 1, slider: 1,
    spinbutton: 1, treeitem: 1,
  };
  const CHECKABLE = { checkbox: 1, radio: 1, switch: 1, menuitemcheckbox: 1, menuitemradio: 1 };
  const VALUED = { textbox: 1, searchbox: 1, combobox: 1, slider: 1, spinbutton: 1 };
  // Roles whose name comes from their content (ARIA 1.2 §Roles supporting
  // name from content), among the listed ones.
  const FROM_CONTENT = {
    button: 1, link: 1, checkbox: 1, radio: 1, option: 1, menuitem: 1, menuitemcheckbox: 1,
    menuitemradio: 1, tab: 1, switch: 1, treeitem: 1,
  };
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", file: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    search: "searchbox", text: "textbox", email: "textbox", tel: "textbox", url: "textbox",
    password: "textbox",
  };
  const nodes = [];
  const items = [];
  let total = 0;

  function explicitRole(el) {
    const r = el.getAttribute("role");
    if (!r) return null;
    return r.trim().split(/\s+/)[0].toLowerCase();
  }
  function implicitRole(el, tag) {
    switch (tag) {
      case "a":
      case "area":
        return el.hasAttribute("href") ? "link" : null;
      case "button":
        return "button";
      case "textarea":
        return "textbox";
      case "select":
        return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "option":
        return el.closest("select") ? "option" : null;
      case "input": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (type === "hidden") return null;
        const role = Object.prototype.hasOwnProperty.call(INPUT_ROLES, type) ? INPUT_ROLES[type] : null;
        const known = role !== null || /^(color|date|datetime-local|month|time|week)$/.test(type);
        if (!known) return el.hasAttribute("list") ? "combobox" : "textbox";
        if (el.hasAttribute("list") && (role === "textbox" || role === "searchbox")) return "combobox";
        return role;
      }
      default:
        if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return "textbox";
        return null;
    }
  }
  function focusable(el) {
    return el.tabIndex >= 0 || el.hasAttribute("tabindex");
  }
  function roleOf(el) {
    const tag = el.localName;
    const explicit = explicitRole(el);
    if (explicit && explicit !== "none" && explicit !== "presentation" && explicit !== "generic") return explicit;
    const implicit = implicitRole(el, tag);
    // none/presentation on a focusable element is ignored (ARIA 1.2
    // §Presentational Roles Conflict Resolution), as Chromium does.
    if (explicit && !(implicit && focusable(el))) return null;
    return implicit;
  }
  function clean(s) {
    return String(s || "").replace(/\s+/g, " ").trim();
  }
  function rendered(el) {
    if (el.checkVisibility && !el.checkVisibility()) return false;
    const v = getComputedStyle(el).visibility;
    return v !== "hidden" && v !== "collapse";
  }
  function hiddenFromContent(el) {
    if (el.getAttribute("aria-hidden") === "true") return true;
    if (el.localName === "option" || el.localName === "optgroup") return false;
    return !rendered(el);
  }
  function controlValue(el) {
    const tag = el.localName;
    if (tag === "select") {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? clean(o.label || o.textContent) : "";
    }
    if (tag === "textarea") return el.value;
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (/^(checkbox|radio|button|submit|reset|image|file|hidden)$/.test(type)) return "";
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
  // Containers whose content never names an ancestor, as in Chromium
  // (a link around a <figure> takes its title, not the figure's text).
  const NO_CONTENT_TAGS = {
    figure: 1, ul: 1, ol: 1, menu: 1, table: 1, nav: 1, main: 1, aside: 1, dialog: 1,
    video: 1, audio: 1, iframe: 1, object: 1, embed: 1, canvas: 1, math: 1,
  };
  function transformed(text, parent) {
    if (!parent || parent.nodeType !== 1) return text;
    const t = getComputedStyle(parent).textTransform;
    if (t === "uppercase") return text.toUpperCase();
    if (t === "lowercase") return text.toLowerCase();
    if (t === "capitalize") return text.replace(/(^|\s)(\S)/g, (m, a, b) => a + b.toUpperCase());
    return text;
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
      const label = k.getAttribute("aria-label");
      let part;
      if (label && clean(label)) part = label;
      else if (tag === "img" || (tag === "input" && k.type === "image")) part = k.getAttribute("alt") || k.getAttribute("title") || "";
      else if (tag === "svg") {
        const title = Array.from(k.children).find((c) => c.localName === "title");
        part = title ? title.textContent : "";
      } else if (NO_CONTENT_TAGS[tag]) part = "";
      else if (k !== self && /^(input|select|textarea)$/.test(tag)) part = controlValue(k);
      else if (tag === "br") part = "\n";
      else part = depth > 20 ? k.textContent : fromContent(k, self, depth + 1);
      const d = k.localName === "br" ? "inline" : getComputedStyle(k).display;
      s += d === "inline" || d === "contents" ? part : " " + part + " ";
    }
    return s;
  }
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
  function nameOf(el, role) {
    const tag = el.localName;
    const labelled = byIds(el, "aria-labelledby");
    if (labelled) return labelled;
    const aria = clean(el.getAttribute("aria-label"));
    if (aria) return aria;
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "submit" || type === "reset" || type === "button") {
        if (el.hasAttribute("value")) return clean(el.value);
        return type === "submit" ? "Submit" : type === "reset" ? "Reset" : clean(el.title);
      }
      if (type === "image") return clean(el.getAttribute("alt") || el.value || el.title || "Submit");
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
    if (tag === "a" || tag === "area") {
      const img = tag === "a" ? el.querySelector("img[alt]") : null;
      if (img) return clean(img.getAttribute("alt"));
    }
    return "";
  }
  function disabledOf(el) {
    if (el.matches(":disabled")) return true;
    const a = el.closest("[aria-disabled]");
    return Boolean(a) && a.getAttribute("aria-disabled") === "true";
  }
  function describe(el, role, visible, parent, frame) {
    const item = { role, visible };
    const name = nameOf(el, role).slice(0, 300);
    if (name) item.name = name;
    if (VALUED[role]) {
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

  // visit walks one element and its flat-tree children. hidden says an
  // ancestor took the subtree out of the accessibility tree (aria-hidden,
  // inert, an iframe not rendered); owner is the index of the kept select
  // or listbox the subtree belongs to.
  function visit(el, hidden, owner, frame) {
    if (el.getAttribute("aria-hidden") === "true" || el.hasAttribute("inert")) hidden = true;
    const tag = el.localName;
    if (tag === "script" || tag === "style" || tag === "template" || tag === "head") return;
    if (!hidden) {
      const role = roleOf(el);
      if (role && ROLES[role]) {
        // An option is drawn in its select's popup, so it is as visible
        // as its select; any other element needs a box of its own.
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
        if (shown) {
          total++;
          const at = opts.all ? opts.all.push(el) - 1 : -1;
          if (nodes.length < max && (!opts.keep || opts.keep(el))) {
            const index = nodes.length;
            nodes.push(el);
            items.push(describe(el, role, visible, role === "option" ? owner : undefined, frame));
            if ((role === "listbox" || role === "combobox") && at < 0) owner = index;
          }
          if ((role === "listbox" || role === "combobox") && at >= 0) owner = at;
        }
      }
    }
    if (tag === "iframe" || tag === "frame") {
      let doc = null;
      try {
        doc = el.contentDocument;
      } catch (e) {
        doc = null;
      }
      if (doc && doc.documentElement) visit(doc.documentElement, hidden || !rendered(el), owner, doc.URL);
      return;
    }
    let kids;
    if (el.shadowRoot) kids = el.shadowRoot.children;
    else if (tag === "slot") {
      const assigned = el.assignedElements({ flatten: true });
      kids = assigned.length ? assigned : el.children;
    } else kids = el.children;
    for (let i = 0; i < kids.length; i++) visit(kids[i], hidden, owner, frame);
  }

  // Ancestors above root still hide it.
  let hidden = false;
  for (let a = root.parentElement; a; a = a.parentElement) {
    if (a.getAttribute("aria-hidden") === "true" || a.hasAttribute("inert")) hidden = true;
  }
  visit(root, hidden, undefined, opts.frame);
  return { nodes, items, total };
}
