// Markdown rules for extract. The page side runs domToTree (DOM -> plain
// objects) and toMarkdown (plain objects -> Markdown) inside one
// Runtime.evaluate; node tests run toMarkdown on hand-built trees.
//
// Every exported function is injected into the page with fn.toString(), so
// each one is self-contained: no references to module scope, no imports.
//
// Tree shape: a text node is {text}; an element is
// {tag, attrs, style, children} where attrs holds the few attributes the
// rules read (href, src, alt, title, role, aria-hidden, aria-label, hidden)
// and style the computed {display, visibility, position}.

export const MARKDOWN_MAX_CHARS = 30720; // 30 KB, protocol v4 extract.markdown
export const TEXT_MAX_CHARS = 51200; // 50 KB, protocol v4 extract.text

// domToTree snapshots root's flat tree (open shadow roots and slotted nodes
// included, as rendered) into plain objects; root may be a list of
// elements, each then one block of the tree. Computed style is read once per
// element so toMarkdown can drop hidden content and fixed/sticky overlays
// without touching the DOM again.
//
// The walk stops, and marks the root {cut: true}, once it holds more text
// than the Markdown can show: opts.maxText characters (default three times
// the 30 KB cap, as rendering drops whitespace and adds link targets)
// outside the parts toMarkdown strips, or opts.maxNodes nodes (default
// 60000). A long page then costs what its first screens cost.
export function domToTree(root, opts) {
  const maxNodes = (opts && opts.maxNodes) || 60000;
  let textLeft = (opts && opts.maxText) || 3 * 30720;
  const QUIET_TAGS = { nav: 1, footer: 1, aside: 1, select: 1, datalist: 1, option: 1, textarea: 1 };
  const QUIET_ROLES = { navigation: 1, contentinfo: 1, complementary: 1 };
  let cut = false;
  const first = Array.isArray(root) ? root[0] : root;
  const doc = first.ownerDocument || first;
  const view = doc.defaultView;
  const SKIP = {
    script: 1, style: 1, noscript: 1, template: 1, head: 1, meta: 1, link: 1,
    svg: 1, canvas: 1, object: 1, embed: 1, audio: 1, video: 1,
  };
  const ATTRS = ["alt", "title", "role", "aria-hidden", "aria-label", "hidden"];
  let count = 0;
  // quiet: under something toMarkdown strips, so its text costs nothing.
  function walk(node, quiet) {
    if (cut) return null;
    if (count++ > maxNodes || textLeft <= 0) {
      cut = true;
      return null;
    }
    if (node.nodeType === 3) {
      if (!quiet) textLeft -= node.nodeValue.length;
      return { text: node.nodeValue };
    }
    if (node.nodeType !== 1) return null;
    const tag = String(node.localName || node.tagName || "").toLowerCase();
    if (SKIP[tag]) return null;
    const cs = view && view.getComputedStyle ? view.getComputedStyle(node) : null;
    const style = cs
      ? { display: cs.display, visibility: cs.visibility, position: cs.position }
      : {};
    const attrs = {};
    for (const name of ATTRS) {
      const v = node.getAttribute ? node.getAttribute(name) : null;
      if (v !== null && v !== undefined) attrs[name] = v;
    }
    // The resolved properties, not the attributes, so relative links come
    // out absolute and the agent can navigate to them directly.
    if (tag === "a" && node.getAttribute && node.getAttribute("href") !== null) {
      attrs.href = node.href || node.getAttribute("href");
    }
    if (tag === "img") attrs.src = node.currentSrc || node.src || "";
    const el = { tag, attrs, style, children: [] };
    if (style.display === "none") return el;
    if (tag === "iframe" || tag === "frame") {
      // A same-origin frame's text is the page's too: its body is walked
      // in place, under the frame's URL; a cross-origin one is not the
      // page's to read (contentDocument is null).
      let inner = null;
      try {
        inner = node.contentDocument;
      } catch (e) {
        inner = null;
      }
      if (!inner || !inner.body) return null;
      attrs.src = inner.URL;
      const body = walk(inner.body, quiet || style.visibility === "hidden");
      if (body) el.children.push(body);
      return el;
    }
    const role = String(attrs.role || "").toLowerCase();
    const still = quiet || QUIET_TAGS[tag] || QUIET_ROLES[role] || attrs.hidden !== undefined ||
      String(attrs["aria-hidden"]).toLowerCase() === "true" || style.position === "fixed" ||
      style.position === "sticky" || style.visibility === "hidden";
    let kids = node.childNodes;
    if (node.shadowRoot) kids = node.shadowRoot.childNodes;
    if (tag === "slot" && node.assignedNodes) {
      const assigned = node.assignedNodes({ flatten: true });
      if (assigned.length) kids = assigned;
    }
    for (const kid of Array.from(kids || [])) {
      const t = walk(kid, still);
      if (t) el.children.push(t);
      if (cut) break;
    }
    return el;
  }
  // Several roots (extract's selector matches) share the budget, each
  // one block under a plain root.
  const block = (children) => ({ tag: "div", attrs: {}, style: { display: "block" }, children });
  let tree;
  if (Array.isArray(root)) {
    tree = block([]);
    for (const r of root) {
      const t = walk(r, false);
      if (t) tree.children.push(block([t]));
      if (cut) break;
    }
  } else tree = walk(root, false);
  if (tree && cut) tree.cut = true;
  return tree;
}

// capText cuts s to at most max UTF-16 units, ending with marker when cut,
// and never splits a surrogate pair (a lone half would reach the daemon as
// U+FFFD).
export function capText(s, max, marker) {
  if (s.length <= max) return s;
  const m = marker === undefined ? `\n…[truncated ${s.length - max} chars]` : marker;
  let cut = Math.max(0, max - m.length);
  const c = s.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return s.slice(0, cut) + m;
}

// toMarkdown renders a domToTree tree as Markdown: headings, paragraphs,
// links, images, emphasis, code, lists (nested), blockquotes and tables.
// nav, footer, aside (and their ARIA roles), hidden content and
// fixed/sticky overlays (cookie banners, chat bubbles) are stripped. The
// result is at most opts.maxLength chars (default 30720) and ends with a
// "…[markdown truncated …]" marker when cut.
//
// Rules for real pages (docs/extension.md "Markdown rules"):
//   - Link and image URLs lose tracking parameters, and those on the page's
//     own origin (opts.pageUrl) are written as paths: /wiki/Foo, or #frag
//     for the page itself. The 30 KB budget goes to text, not URLs.
//   - A linked image is [![alt](src)](href); an image without alt adds no
//     text, so its link shows only if something else names it.
//   - A heading is never link text: <a href><h2>T</h2></a> is ## [T](href).
//   - Only data tables become Markdown tables; layout tables render their
//     cells as blocks in reading order (see table below).
export function toMarkdown(tree, opts) {
  const max = (opts && opts.maxLength) || 30720;
  let page = null;
  try {
    page = opts && opts.pageUrl ? new URL(opts.pageUrl) : null;
  } catch (e) {
    page = null;
  }
  // Query parameters that only identify a campaign, a click or a referrer.
  const TRACKING = /^(utm_.*|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|twclid|igshid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|ref|ref_src|ref_url|cmpid|ocid)$/i;
  const HEADING = /^h[1-6]$/;
  // Content that makes a table cell a layout box rather than a datum.
  const CELL_BLOCKS = {
    table: 1, ul: 1, ol: 1, dl: 1, blockquote: 1, pre: 1, hr: 1, form: 1,
    h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1,
  };
  const LAYOUT_CELL_CHARS = 100; // a longer cell in a table without a header row is prose
  const STRIP_TAGS = {
    nav: 1, footer: 1, aside: 1, script: 1, style: 1, noscript: 1, template: 1,
    head: 1, svg: 1, canvas: 1, select: 1, datalist: 1, option: 1,
    input: 1, textarea: 1,
  };
  const STRIP_ROLES = { navigation: 1, contentinfo: 1, complementary: 1 };
  const BLOCK_TAGS = {
    address: 1, article: 1, body: 1, center: 1, dd: 1, details: 1, dialog: 1, div: 1,
    dl: 1, dt: 1, fieldset: 1, figcaption: 1, figure: 1, form: 1, header: 1, hgroup: 1,
    html: 1, legend: 1, li: 1, main: 1, p: 1, search: 1, section: 1, summary: 1, tr: 1,
  };
  const BLOCK_DISPLAY = /^(block|flex|grid|flow-root|list-item|table|table-row|table-row-group|table-header-group|table-footer-group|table-caption)$/;
  // List/quote indentation is written as a private-use char and turned into
  // spaces only at the end, so the whitespace clean-up between blocks cannot
  // eat it.
  const IND = "\uE000";

  function stripped(n) {
    const a = n.attrs || {};
    const s = n.style || {};
    if (STRIP_TAGS[n.tag]) return true;
    if (a.role && STRIP_ROLES[String(a.role).toLowerCase()]) return true;
    if (a.hidden !== undefined && a.hidden !== null && a.hidden !== false) return true;
    if (String(a["aria-hidden"]).toLowerCase() === "true") return true;
    if (s.display === "none") return true;
    if (s.position === "fixed" || s.position === "sticky") return true;
    return false;
  }
  function isBlock(n) {
    const d = n.style && n.style.display;
    if (d) return BLOCK_DISPLAY.test(d);
    return !!BLOCK_TAGS[n.tag];
  }
  function kids(n, ctx) {
    let out = "";
    for (const c of n.children || []) out += render(c, ctx);
    return out;
  }
  function oneLine(s) {
    return s.replace(/\s+/g, " ").trim();
  }
  function indentBody(body, first, rest) {
    const lines = body.split("\n");
    return lines.map((l, i) => (i === 0 ? first : l ? rest : "") + l).join("\n");
  }
  // shortUrl drops tracking parameters from an http(s) URL and writes a
  // URL on the page's origin as its path (or #fragment on the page itself).
  // Other URLs, and ones URL cannot parse, are returned as they are.
  function shortUrl(raw) {
    let u;
    try {
      u = new URL(raw);
    } catch (e) {
      return raw;
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") return raw;
    let search = u.search;
    if (search) {
      const kept = search.slice(1).split("&").filter((pair) => {
        if (!pair) return false;
        const key = pair.split("=")[0];
        let name = key;
        try {
          name = decodeURIComponent(key.replace(/\+/g, " "));
        } catch (e) {
          name = key;
        }
        return !TRACKING.test(name);
      });
      search = kept.length ? "?" + kept.join("&") : "";
    }
    if (page && u.origin === page.origin) {
      if (u.hash && u.pathname === page.pathname && search === page.search) return u.hash;
      return u.pathname + search + u.hash;
    }
    const base = u.href.slice(0, u.href.length - u.search.length - u.hash.length);
    return base + search + u.hash;
  }
  function target(url) {
    // Parentheses would end the Markdown target; encodeURIComponent leaves
    // them as they are.
    return shortUrl(url).replace(/[()\s]/g, (c) => (c === "(" ? "%28" : c === ")" ? "%29" : encodeURIComponent(c)));
  }
  function escBrackets(s) {
    return s.replace(/[[\]]/g, "\\$&");
  }
  function hasHeading(n) {
    for (const c of n.children || []) {
      if (c.text !== undefined || stripped(c)) continue;
      if (HEADING.test(c.tag) || hasHeading(c)) return true;
    }
    return false;
  }
  function rawText(n) {
    if (n.text !== undefined) return n.text;
    if (n.tag === "br") return "\n";
    let s = "";
    for (const c of n.children || []) s += rawText(c);
    return s;
  }
  function list(n, ctx, ordered) {
    let i = 0;
    const items = [];
    for (const c of n.children || []) {
      if (c.text !== undefined) continue;
      if (stripped(c)) continue;
      if (c.tag !== "li") {
        const other = tidy(render(c, ctx));
        if (other) items.push(other);
        continue;
      }
      i++;
      const marker = ordered ? `${i}. ` : "- ";
      const body = tidy(kids(c, ctx));
      if (!body) continue;
      items.push(indentBody(body, marker, IND.repeat(marker.length)));
    }
    return "\n\n" + items.join("\n") + "\n\n";
  }
  // table renders a data table as a Markdown table and a layout table as
  // its cells' content, one block per cell, row by row. A table is data
  // when it has at least 2 rows and 2 columns, no role=presentation/none,
  // no table nested in it, no body cell holding blocks (headings, lists,
  // quotes, pre, forms, rules, or more than one paragraph; a header cell's
  // blocks are its label, on one line), and either a header row (thead,
  // or th in the first row) or no cell longer than LAYOUT_CELL_CHARS.
  // Anything else is layout (LWN's and Tumblr's page grids): a Markdown
  // table would put the whole page on one line.
  function table(n, ctx) {
    const rows = [];
    const headRows = new Set(); // the rows of a thead
    (function collect(t, inHead) {
      for (const c of t.children || []) {
        if (c.text !== undefined || stripped(c)) continue;
        if (c.tag === "tr") {
          rows.push(c);
          if (inHead) headRows.add(c);
        } else if (c.tag === "thead" || c.tag === "tbody" || c.tag === "tfoot") collect(c, inHead || c.tag === "thead");
      }
    })(n, false);
    const thead = headRows.size > 0;
    const cellsOf = (r) => (r.children || []).filter((c) => (c.tag === "td" || c.tag === "th") && !stripped(c));
    const grid = rows.map(cellsOf);
    const width = grid.length ? Math.max(...grid.map((r) => r.length)) : 0;
    const role = String((n.attrs && n.attrs.role) || "").toLowerCase();
    let data = rows.length >= 2 && width >= 2 && role !== "presentation" && role !== "none";
    // blocky: the cell holds blocks. A header cell (a th, or any cell of
    // a thead) is a label, whose headings, paragraphs and lists read as
    // one line: only a table nested in it makes it layout.
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
    for (let i = 0; i < grid.length && data; i++) {
      for (const c of grid[i]) {
        if (blocky(c, c.tag === "th" || headRows.has(rows[i]))) {
          data = false;
          break;
        }
      }
    }
    let cells = null;
    if (data) {
      cells = grid.map((r) => r.map((c) => oneLine(kids(c, { ...ctx, cell: true }))));
      const header = thead || grid[0].some((c) => c.tag === "th");
      if (!header && cells.some((r) => r.some((c) => c.length > LAYOUT_CELL_CHARS))) data = false;
    }
    if (!data) {
      let out = "";
      for (const c of n.children || []) {
        if (c.tag === "caption") out += "\n\n" + render(c, ctx) + "\n\n";
      }
      for (const r of grid) for (const c of r) out += "\n\n" + kids(c, ctx) + "\n\n";
      return out || "\n\n" + kids(n, ctx) + "\n\n";
    }
    const esc = cells.map((r) => r.map((c) => c.replace(/\|/g, "\\|")));
    const line = (r) => "| " + Array.from({ length: width }, (_, i) => r[i] || "").join(" | ") + " |";
    const out = [line(esc[0]), "|" + " --- |".repeat(width)];
    for (const r of esc.slice(1)) out.push(line(r));
    return "\n\n" + out.join("\n") + "\n\n";
  }
  function wrap(mark, inner) {
    const t = inner.trim();
    if (!t) return inner;
    const lead = /^\s/.test(inner) ? " " : "";
    const trail = /\s$/.test(inner) ? " " : "";
    return lead + mark + t + mark + trail;
  }

  function render(n, ctx) {
    if (n.text !== undefined) {
      if (ctx.hidden) return "";
      if (ctx.pre) return n.text;
      const t = n.text.replace(/\s+/g, " ");
      return ctx.link ? escBrackets(t) : t;
    }
    if (stripped(n)) return "";
    const vis = n.style && n.style.visibility;
    // visibility is inherited but can be overridden below, so a hidden
    // element drops only its own text and still visits its children.
    if (vis === "hidden" || vis === "collapse") ctx = { ...ctx, hidden: true };
    else if (vis === "visible" && ctx.hidden) ctx = { ...ctx, hidden: false };
    const tag = n.tag;
    const a = n.attrs || {};
    if (HEADING.test(tag)) {
      // A heading inside a link carries the link itself (see case "a").
      const href = ctx.headingHref;
      let t = oneLine(kids(n, href ? { ...ctx, headingHref: null, link: true } : ctx));
      if (t && href) t = `[${t}](${target(href)})`;
      // In a data table's cell a heading is the cell's text.
      if (ctx.cell) return t ? ` ${t} ` : "";
      return t ? `\n\n${"#".repeat(Number(tag[1]))} ${t}\n\n` : "";
    }
    switch (tag) {
      case "br":
        return "\n";
      case "hr":
        return "\n\n---\n\n";
      case "a": {
        const href = a.href || "";
        const live = href && !/^\s*javascript:/i.test(href);
        // A link nested in link text (only scripts can build one) adds no
        // second target.
        if (!live || ctx.link) {
          return kids(n, ctx) || (ctx.hidden ? "" : oneLine(a["aria-label"] || a.title || ""));
        }
        // Headings are never link text: the link moves into each heading
        // and the rest of the link's content renders unlinked.
        if (!ctx.headingHref && hasHeading(n)) return kids(n, { ...ctx, headingHref: href });
        const t = oneLine(kids(n, { ...ctx, link: true })) ||
          (ctx.hidden ? "" : escBrackets(oneLine(a["aria-label"] || a.title || "")));
        if (!t) return "";
        return `[${t}](${target(href)})`;
      }
      case "img": {
        if (ctx.hidden) return "";
        const alt = escBrackets(oneLine(a.alt || ""));
        if (!alt) return "";
        const src = a.src || "";
        return /^https?:/i.test(src) ? `![${alt}](${target(src)})` : `![${alt}]`;
      }
      case "strong":
      case "b":
        return wrap("**", kids(n, ctx));
      case "em":
      case "i":
        return wrap("*", kids(n, ctx));
      case "s":
      case "del":
        return wrap("~~", kids(n, ctx));
      case "code":
        if (ctx.pre) return kids(n, ctx);
        return wrap("`", kids(n, ctx).replace(/`/g, "'"));
      case "pre": {
        if (ctx.hidden) return "";
        const body = rawText(n).replace(/^\n+|\s+$/g, "");
        return body ? "\n\n```\n" + body + "\n```\n\n" : "";
      }
      case "blockquote": {
        const body = tidy(kids(n, ctx));
        return body ? "\n\n" + body.split("\n").map((l) => "> " + l).join("\n") + "\n\n" : "";
      }
      case "ul":
      case "menu":
        return list(n, ctx, false);
      case "ol":
        return list(n, ctx, true);
      case "table":
        return table(n, ctx);
      case "td":
      case "th":
        return " " + kids(n, ctx) + " ";
      case "iframe":
      case "frame": {
        // A same-origin frame's text (domToTree walked its body), under a
        // marker naming the frame, so it is never taken for the page's own.
        const body = tidy(kids(n, ctx));
        return body ? `\n\n[frame: ${target(a.src || "")}]\n\n${body}\n\n` : "";
      }
      default:
        break;
    }
    const inner = kids(n, ctx);
    return isBlock(n) ? "\n\n" + inner + "\n\n" : inner;
  }

  // tidy trims each line and collapses blank runs, leaving fenced code as is.
  function tidy(s) {
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

  if (!tree) return "";
  let md = tidy(render(tree, { pre: false, hidden: false })).split(IND).join(" ");
  // A tree domToTree cut short renders to less than the page holds: the
  // marker then gives what was read as a lower bound.
  if (md.length > max || tree.cut) {
    const marker = `\n\n…[markdown truncated: ${tree.cut ? "over " : ""}${md.length} chars, cap ${max}]`;
    let cut = Math.max(0, max - marker.length);
    const c = md.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--;
    md = md.slice(0, cut) + marker;
  }
  return md;
}
