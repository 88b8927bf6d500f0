// The worker's side of describe's locators (actions/describe.js): their
// order. The page side, which generates them, is page/locator.js.

// RANK orders the kinds of locator, best first.
export const RANK = Object.freeze({ role: 0, label: 1, testid: 2, id: 3, css: 4, text: 5 });

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
