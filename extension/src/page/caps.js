// The caps on extract's text and markdown (docs/protocol.md#extract), and
// the cut that keeps a string within one. The worker imports the caps
// too: this module is all of src/page it imports as code (the page
// scripts reach it as generated/page.js).

export const MARKDOWN_MAX_CHARS = 30720; // 30 KB, extract.markdown
export const TEXT_MAX_CHARS = 51200; // 50 KB, extract.text

// capText cuts s to at most max UTF-16 units, ending with marker when cut,
// and never splits a surrogate pair (a lone half would reach the daemon as
// U+FFFD).
export function capText(s, max, marker) {
  if (s.length <= max) return s;
  return cutTo(s, max, marker === undefined ? `\n…[truncated ${s.length - max} chars]` : marker);
}

// cutTo is s cut to max units with marker at its end (the marker counted),
// never splitting a surrogate pair.
export function cutTo(s, max, marker) {
  let cut = Math.max(0, max - marker.length);
  const c = s.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return s.slice(0, cut) + marker;
}
