// Tables in the markdown: which are data and which layout, and the
// Markdown table of a data one. markdown.js renders the cells.
//
// A table is data when it has at least 2 rows and 2 columns, no
// role=presentation/none, no table nested in it, no body cell holding
// blocks (headings, lists, quotes, pre, forms, rules, or more than one
// paragraph; a header cell's blocks are its label, on one line), and
// either a header row (thead, or th in the first row) or no cell longer
// than LAYOUT_CELL_CHARS. Anything else is layout (LWN's and Tumblr's
// page grids): a Markdown table would put the whole page on one line.

import { stripped } from "./markdown-rules.js";

// Content that makes a table cell a layout box rather than a datum.
const CELL_BLOCKS = {
  table: 1, ul: 1, ol: 1, dl: 1, blockquote: 1, pre: 1, hr: 1, form: 1,
  h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1,
};
// A longer cell in a table without a header row is prose.
export const LAYOUT_CELL_CHARS = 100;

// readTable reads table n's shape: {grid, width, data, header}. grid holds
// each row's shown cells (td, th), width the most cells in a row, data
// whether the table may be data by its structure (the cells' lengths are
// checked on their text, by the caller), header whether it has a header
// row.
export function readTable(n) {
  const rows = [];
  const headRows = new Set(); // the rows of a thead
  collectRows(n, false, rows, headRows);
  const grid = rows.map((r) => (r.children || []).filter((c) => (c.tag === "td" || c.tag === "th") && !stripped(c)));
  const width = grid.length ? Math.max(...grid.map((r) => r.length)) : 0;
  const role = String((n.attrs && n.attrs.role) || "").toLowerCase();
  let data = rows.length >= 2 && width >= 2 && role !== "presentation" && role !== "none";
  for (let i = 0; i < grid.length && data; i++) {
    for (const c of grid[i]) {
      if (blocky(c, c.tag === "th" || headRows.has(rows[i]))) {
        data = false;
        break;
      }
    }
  }
  const header = headRows.size > 0 || (grid.length > 0 && grid[0].some((c) => c.tag === "th"));
  return { grid, width, data, header };
}

// collectRows adds t's rows to rows, through thead, tbody and tfoot, and
// those of a thead to headRows.
function collectRows(t, inHead, rows, headRows) {
  for (const c of t.children || []) {
    if (c.text !== undefined || stripped(c)) continue;
    if (c.tag === "tr") {
      rows.push(c);
      if (inHead) headRows.add(c);
    } else if (c.tag === "thead" || c.tag === "tbody" || c.tag === "tfoot") collectRows(c, inHead || c.tag === "thead", rows, headRows);
  }
}

// blocky: the cell holds blocks. A header cell (a th, or any cell of a
// thead) is a label, whose headings, paragraphs and lists read as one
// line: only a table nested in it makes it layout.
function blocky(c, header) {
  let paras = 0;
  return (function walk(x) {
    for (const k of x.children || []) {
      if (k.text !== undefined || stripped(k)) continue;
      if (header ? k.tag === "table" : CELL_BLOCKS[k.tag]) return true;
      if (!header && k.tag === "p" && ++paras > 1) return true;
      if (walk(k)) return true;
    }
    return false;
  })(c);
}

// markdownTable writes cells (rows of one-line texts, the first the
// header) as a Markdown table width columns wide, | escaped.
export function markdownTable(cells, width) {
  const esc = cells.map((r) => r.map((c) => c.replace(/\|/g, "\\|")));
  const line = (r) => "| " + Array.from({ length: width }, (_, i) => r[i] || "").join(" | ") + " |";
  const out = [line(esc[0]), "|" + " --- |".repeat(width)];
  for (const r of esc.slice(1)) out.push(line(r));
  return out.join("\n");
}
