// The role of an element, as Chromium's accessibility tree gives it to the
// roles extract lists (elements.js): the explicit role attribute's first
// token, else the implicit role of its tag (HTML-AAM), with ARIA 1.2's
// presentational role conflict resolution.

// ROLES are the roles extract lists (the interactive ones).
export const ROLES = {
  button: 1, link: 1, textbox: 1, searchbox: 1, checkbox: 1, radio: 1, combobox: 1, listbox: 1,
  option: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, tab: 1, switch: 1, slider: 1,
  spinbutton: 1, treeitem: 1,
};
const INPUT_ROLES = {
  button: "button", submit: "button", reset: "button", image: "button", file: "button",
  checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
  search: "searchbox", text: "textbox", email: "textbox", tel: "textbox", url: "textbox",
  password: "textbox",
};

// roleOf is el's role, or null when it has none.
export function roleOf(el) {
  const explicit = explicitRole(el);
  if (explicit && explicit !== "none" && explicit !== "presentation" && explicit !== "generic") return explicit;
  const implicit = implicitRole(el, el.localName);
  // none/presentation on a focusable element is ignored (ARIA 1.2
  // §Presentational Roles Conflict Resolution), as Chromium does.
  if (explicit && !(implicit && focusable(el))) return null;
  return implicit;
}

// explicitRole is the first token of el's role attribute, lower case, or
// null.
export function explicitRole(el) {
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
    case "input":
      return inputRole(el);
    default:
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return "textbox";
      return null;
  }
}

// inputRole is an <input>'s role by its type (and list: a text field
// with suggestions is a combobox); a hidden input has none.
function inputRole(el) {
  const type = (el.getAttribute("type") || "text").toLowerCase();
  if (type === "hidden") return null;
  const role = Object.prototype.hasOwnProperty.call(INPUT_ROLES, type) ? INPUT_ROLES[type] : null;
  const known = role !== null || /^(color|date|datetime-local|month|time|week)$/.test(type);
  if (!known) return el.hasAttribute("list") ? "combobox" : "textbox";
  if (el.hasAttribute("list") && (role === "textbox" || role === "searchbox")) return "combobox";
  return role;
}

function focusable(el) {
  return el.tabIndex >= 0 || el.hasAttribute("tabindex");
}
