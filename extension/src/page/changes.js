// The page side of a changes read (extract changes: true; the worker's
// side is read/changes.js, which sends this as generated/page.js's
// CHANGES).

import { collectElements } from "./elements.js";

// listChanges runs with `this` = the session's last read array (or
// anything else when there is none): it lists the elements now, describes
// those not in the last array (at most opts.max), and returns [read JSON,
// ...their nodes, the new array]. The read is {url, title, items, from}:
// from[j] is, for the j-th listed element, its index in the last array,
// -1 when it is new and described (the next item), -2 when new past
// opts.max (known from now on, no uid). opts.frame marks an
// out-of-process iframe's document: its elements carry its URL, and a
// frame drawn with no size lists nothing.
export function listChanges(opts) {
  const last = Array.isArray(this) ? this[this.length - 1] : null;
  const prev = Array.isArray(last) ? last : [];
  const index = new Map();
  for (let i = 0; i < prev.length; i++) index.set(prev[i], i);
  const all = [];
  let els = { nodes: [], items: [] };
  const empty = opts.frame && (innerWidth === 0 || innerHeight === 0);
  if (document.documentElement && !empty) {
    els = collectElements(document.documentElement, { max: opts.max, all, keep: (el) => !index.has(el), frame: opts.frame ? location.href : undefined });
  }
  const described = new Set(els.nodes);
  const from = all.map((el) => (index.has(el) ? index.get(el) : described.has(el) ? -1 : -2));
  return [JSON.stringify({ url: location.href, title: document.title, items: els.items, from }), ...els.nodes, all];
}
