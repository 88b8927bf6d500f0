// Small reads shared by the element list's modules (elements.js,
// names.js).

// clean collapses whitespace and trims: a name or value as listed.
export function clean(s) {
  return String(s || "").replace(/\s+/g, " ").trim();
}

// rendered says whether el is drawn: checkVisibility, and visibility not
// hidden or collapse.
export function rendered(el) {
  if (el.checkVisibility && !el.checkVisibility()) return false;
  const v = getComputedStyle(el).visibility;
  return v !== "hidden" && v !== "collapse";
}
