// The string work of toMarkdown (markdown.js): inline marks, escapes,
// indentation and the clean-up between blocks.

// IND is list and quote indentation, written as a private-use char and
// turned into spaces only at the end, so the whitespace clean-up between
// blocks cannot eat it.
export const IND = "\uE000";

export function oneLine(s) {
  return s.replace(/\s+/g, " ").trim();
}

export function escBrackets(s) {
  return s.replace(/[[\]]/g, "\\$&");
}

// indentBody starts body's first line with first and its other non-empty
// lines with rest.
export function indentBody(body, first, rest) {
  const lines = body.split("\n");
  return lines.map((l, i) => (i === 0 ? first : l ? rest : "") + l).join("\n");
}

// wrap marks inner's text (** * ~~ `), keeping its outer spaces outside
// the marks.
export function wrap(mark, inner) {
  const t = inner.trim();
  if (!t) return inner;
  const lead = /^\s/.test(inner) ? " " : "";
  const trail = /\s$/.test(inner) ? " " : "";
  return lead + mark + t + mark + trail;
}

// rawText is a tree node's text as written (a pre's), br as a newline.
export function rawText(n) {
  if (n.text !== undefined) return n.text;
  if (n.tag === "br") return "\n";
  let s = "";
  for (const c of n.children || []) s += rawText(c);
  return s;
}

// tidy trims each line and collapses blank runs, leaving fenced code as is.
export function tidy(s) {
  let fence = false;
  const out = [];
  for (const raw of s.split("\n")) {
    const bare = raw.replace(/^[\uE000> ]*/, "");
    if (bare.startsWith("```")) {
      fence = !fence;
      out.push(raw.replace(/\s+$/, ""));
      continue;
    }
    if (fence) {
      out.push(raw);
      continue;
    }
    out.push(raw.replace(/^[ \t]+|[ \t]+$/g, "").replace(/ {2,}/g, " "));
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").replace(/^\n+|\n+$/g, "");
}
