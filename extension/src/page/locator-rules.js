// The pure rules of the locator generator (locator.js): which ids and
// classes a person wrote, and how values are quoted and texts compared.
// Node-tested (test/locator.test.js).

// TEST_ID_ATTRS are the test-id attributes, in the order they are tried.
export const TEST_ID_ATTRS = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];

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
