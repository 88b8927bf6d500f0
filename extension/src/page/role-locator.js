// The role locator the recorder's page side takes when the pointer goes
// down (page/recorder.js's see), before the page can change: a submit
// that navigates at once, or a button that renames itself ("Signing
// in…") as it is clicked, leaves the worker's accessibility-tree lookup
// (recorder/describe.js) nothing to find, or the wrong name. It uses
// extract's own rules, which reproduce Chromium's tree for the listed
// roles (roles.js, names.js, and elements.js for what the tree leaves
// out), and counts the elements of the document with the same role and
// name, as a role target's lookup would.

import { collectElements } from "./elements.js";
import { nameOf } from "./names.js";
import { roleOf } from "./roles.js";

// pageRoleLocator is {by: "role", role, name?, count, nth?} for el, or
// null when el has none of the listed roles or is not rendered.
export function pageRoleLocator(el) {
  const doc = el.ownerDocument;
  const role = roleOf(el);
  if (!role || !doc || !doc.documentElement) return null;
  const all = [];
  collectElements(doc.documentElement, { max: 0, all });
  if (!all.includes(el)) return null;
  const name = nameOf(el, role);
  const same = all.filter((e) => e.ownerDocument === doc && roleOf(e) === role && nameOf(e, role) === name);
  const loc = { by: "role", role };
  if (name) loc.name = name;
  loc.count = same.length;
  if (same.length > 1) loc.nth = same.indexOf(el);
  return loc;
}
