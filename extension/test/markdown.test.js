import { test } from "node:test";
import assert from "node:assert/strict";
import { MARKDOWN_MAX_CHARS, capText } from "../src/page/caps.js";
import { toMarkdown } from "../src/page/markdown.js";
import { domToTree } from "../src/page/tree.js";

// h builds a domToTree-shaped element; a string child is a text node.
function h(tag, attrs, ...children) {
  const { style = {}, ...rest } = attrs || {};
  return { tag, attrs: rest, style, children: children.map((c) => (typeof c === "string" ? { text: c } : c)) };
}

test("headings, paragraphs, links and emphasis", () => {
  const tree = h("body", null,
    h("h1", null, "  Main   title "),
    h("p", null, "Read ", h("a", { href: "https://example.test/docs" }, "the docs"), " and ", h("strong", null, "enjoy"), "."),
    h("h3", null, "Sub"),
    h("p", null, h("em", null, "quiet"), " ", h("code", null, "x = 1")),
  );
  assert.equal(toMarkdown(tree), [
    "# Main title",
    "",
    "Read [the docs](https://example.test/docs) and **enjoy**.",
    "",
    "### Sub",
    "",
    "*quiet* `x = 1`",
  ].join("\n"));
});

test("nav, footer, aside, their roles and fixed/sticky overlays are stripped", () => {
  const tree = h("body", null,
    h("nav", null, h("a", { href: "/a" }, "Home")),
    h("div", { role: "navigation" }, "role nav"),
    h("main", null, h("p", null, "Article body")),
    h("aside", null, "Related"),
    h("div", { role: "complementary" }, "role aside"),
    h("div", { style: { position: "fixed", display: "block" } }, "We use cookies"),
    h("div", { style: { position: "sticky", display: "block" } }, "Sticky bar"),
    h("div", { style: { display: "none" } }, "display none"),
    h("div", { hidden: "" }, "hidden attr"),
    h("div", { "aria-hidden": "true" }, "aria hidden"),
    h("footer", null, "Copyright"),
    h("div", { role: "contentinfo" }, "role footer"),
  );
  assert.equal(toMarkdown(tree), "Article body");
});

test("visibility hidden drops own text but keeps visible descendants", () => {
  const tree = h("div", { style: { visibility: "hidden", display: "block" } },
    "secret",
    h("span", { style: { visibility: "visible", display: "inline" } }, "shown"),
  );
  assert.equal(toMarkdown(tree), "shown");
});

test("lists nest with indentation, ordered lists number", () => {
  const tree = h("div", null,
    h("ul", null,
      h("li", null, "one"),
      h("li", null, "two", h("ol", null, h("li", null, "a"), h("li", null, "b"))),
    ),
  );
  assert.equal(toMarkdown(tree), ["- one", "- two", "", "  1. a", "  2. b"].join("\n"));
});

test("tables, blockquotes, pre blocks and images", () => {
  const tree = h("div", null,
    h("table", null,
      h("thead", null, h("tr", null, h("th", null, "Name"), h("th", null, "Qty"))),
      h("tbody", null, h("tr", null, h("td", null, "a|b"), h("td", null, "2"))),
    ),
    h("blockquote", null, h("p", null, "quoted")),
    h("pre", null, h("code", null, "if (x) {\n  y();\n}")),
    h("img", { alt: "Logo", src: "https://example.test/l.png" }),
    h("img", { alt: "Inline", src: "data:image/png;base64,AAAA" }),
    h("img", { alt: "", src: "https://example.test/spacer.gif" }),
  );
  assert.equal(toMarkdown(tree), [
    "| Name | Qty |",
    "| --- | --- |",
    "| a\\|b | 2 |",
    "",
    "> quoted",
    "",
    "```",
    "if (x) {",
    "  y();",
    "}",
    "```",
    "",
    "![Logo](https://example.test/l.png)![Inline]",
  ].join("\n"));
});

test("javascript: links keep their text only; empty links vanish; aria-label names icon links", () => {
  const tree = h("p", null,
    h("a", { href: "javascript:void 0" }, "Do it"), " ",
    h("a", { href: "https://x.test/" }),
    h("a", { href: "https://x.test/s", "aria-label": "Search" }),
  );
  assert.equal(toMarkdown(tree), "Do it [Search](https://x.test/s)");
});

test("display decides block vs inline for custom elements", () => {
  const tree = h("div", null,
    h("x-card", { style: { display: "block" } }, "first"),
    h("x-chip", { style: { display: "inline" } }, "second"),
    h("x-chip", { style: { display: "inline" } }, " third"),
  );
  assert.equal(toMarkdown(tree), "first\n\nsecond third");
});

test("data tables stay Markdown tables; layout tables render their cells as blocks", () => {
  const cases = [
    {
      name: "header row and inline cells",
      tree: h("table", null,
        h("tr", null, h("th", null, "Name"), h("th", null, "Qty")),
        h("tr", null, h("td", null, h("a", { href: "https://x.test/a" }, "apple")), h("td", null, "2"))),
      want: "| Name | Qty |\n| --- | --- |\n| [apple](https://x.test/a) | 2 |",
    },
    {
      name: "no header row, short cells",
      tree: h("table", null,
        h("tr", null, h("td", null, "Born"), h("td", null, "1970")),
        h("tr", null, h("td", null, "Died"), h("td", null, "2020"))),
      want: "| Born | 1970 |\n| --- | --- |\n| Died | 2020 |",
    },
    {
      name: "no header row, a prose cell",
      tree: h("table", null,
        h("tr", null, h("td", null, "Left"), h("td", null, "word ".repeat(30))),
        h("tr", null, h("td", null, "x"), h("td", null, "y"))),
      want: "Left\n\n" + "word ".repeat(30).trim() + "\n\nx\n\ny",
    },
    {
      name: "nested table",
      tree: h("table", null,
        h("tr", null, h("th", null, "A"), h("th", null, "B")),
        h("tr", null,
          h("td", null, h("table", null, h("tr", null, h("td", null, "inner")))),
          h("td", null, h("p", null, "side")))),
      want: "A\n\nB\n\ninner\n\nside",
    },
    {
      name: "cells holding blocks",
      tree: h("table", null, h("tbody", null,
        h("tr", null,
          h("td", null, h("h2", null, "Story"), h("p", null, "One."), h("p", null, "Two.")),
          h("td", null, h("ul", null, h("li", null, "menu"))),
        ),
        h("tr", null, h("td", null, "a|b"), h("td", null, "c")))),
      want: "## Story\n\nOne.\n\nTwo.\n\n- menu\n\na|b\n\nc",
    },
    {
      name: "role=presentation",
      tree: h("table", { role: "presentation" },
        h("tr", null, h("th", null, "A"), h("th", null, "B")),
        h("tr", null, h("td", null, "1"), h("td", null, "2"))),
      want: "A\n\nB\n\n1\n\n2",
    },
    {
      name: "header cells holding headings and paragraphs",
      tree: h("table", null,
        h("thead", null, h("tr", null,
          h("th", null, h("h3", null, "Plan")),
          h("th", null, h("h3", null, "Price"), h("p", null, "per month")),
          h("td", null, h("div", null, h("p", null, "Seats"), h("p", null, "included"))))),
        h("tbody", null,
          h("tr", null, h("th", null, h("p", null, "Free"), h("p", null, "for one")), h("td", null, "$0"), h("td", null, "1")),
          h("tr", null, h("th", null, h("a", { href: "https://x.test/pro" }, h("h4", null, "Pro"))), h("td", null, "$12"), h("td", null, "5")))),
      want: "| Plan | Price per month | Seats included |\n| --- | --- | --- |\n| Free for one | $0 | 1 |\n| [Pro](https://x.test/pro) | $12 | 5 |",
    },
    {
      name: "a table in a header cell",
      tree: h("table", null,
        h("tr", null, h("th", null, h("table", null, h("tr", null, h("td", null, "inner")))), h("th", null, "B")),
        h("tr", null, h("td", null, "1"), h("td", null, "2"))),
      want: "inner\n\nB\n\n1\n\n2",
    },
    {
      name: "single column wrapper",
      tree: h("table", null, h("tr", null, h("td", null, "only")), h("tr", null, h("td", null, "cells"))),
      want: "only\n\ncells",
    },
  ];
  for (const c of cases) assert.equal(toMarkdown(c.tree), c.want, c.name);
});

test("linked images keep image syntax; images without alt leave the link to its other names", () => {
  const cases = [
    {
      name: "image with alt",
      tree: h("a", { href: "https://x.test/post" }, h("img", { alt: "A [big] cat", src: "https://cdn.test/cat.jpg" })),
      want: "[![A \\[big\\] cat](https://cdn.test/cat.jpg)](https://x.test/post)",
    },
    {
      name: "image and text",
      tree: h("a", { href: "https://x.test/post" }, h("img", { alt: "Cat", src: "https://cdn.test/c.jpg" }), " Read [more]"),
      want: "[![Cat](https://cdn.test/c.jpg) Read \\[more\\]](https://x.test/post)",
    },
    {
      name: "image without alt, link titled",
      tree: h("a", { href: "https://x.test/post", title: "The post" }, h("img", { alt: "", src: "https://cdn.test/c.jpg" })),
      want: "[The post](https://x.test/post)",
    },
    {
      name: "image without alt, nothing else",
      tree: h("p", null, "x ", h("a", { href: "https://x.test/post" }, h("img", { src: "https://cdn.test/c.jpg" }))),
      want: "x",
    },
  ];
  for (const c of cases) assert.equal(toMarkdown(c.tree), c.want, c.name);
});

test("headings are never link text: the link moves into the heading", () => {
  const cases = [
    {
      name: "heading in a link",
      tree: h("a", { href: "https://x.test/story" }, h("h2", null, "Title")),
      want: "## [Title](https://x.test/story)",
    },
    {
      name: "card: image, heading, excerpt",
      tree: h("div", null, h("a", { href: "https://x.test/story" },
        h("img", { alt: "Pic", src: "https://cdn.test/p.jpg" }),
        h("h3", null, "Big [news]"),
        h("p", null, "Excerpt."))),
      want: "![Pic](https://cdn.test/p.jpg)\n\n### [Big \\[news\\]](https://x.test/story)\n\nExcerpt.",
    },
    {
      name: "link in a heading is unchanged",
      tree: h("h2", null, h("a", { href: "https://x.test/s" }, "Title")),
      want: "## [Title](https://x.test/s)",
    },
    {
      name: "javascript: link around a heading",
      tree: h("a", { href: "javascript:void 0" }, h("h2", null, "Plain")),
      want: "## Plain",
    },
  ];
  for (const c of cases) assert.equal(toMarkdown(c.tree), c.want, c.name);
});

test("URLs lose tracking parameters and same-origin ones become paths", () => {
  const pageUrl = "https://en.wikipedia.org/wiki/Markdown?action=view";
  const link = (href) => toMarkdown(h("a", { href }, "x"), { pageUrl });
  const cases = [
    ["same origin", "https://en.wikipedia.org/wiki/HTML", "/wiki/HTML"],
    ["same origin with query and fragment", "https://en.wikipedia.org/w/index.php?title=HTML&oldid=1#History", "/w/index.php?title=HTML&oldid=1#History"],
    ["the page itself", "https://en.wikipedia.org/wiki/Markdown?action=view#cite_note-1", "#cite_note-1"],
    ["other origin", "https://www.w3.org/TR/html/", "https://www.w3.org/TR/html/"],
    ["other port is another origin", "https://en.wikipedia.org:8443/wiki/HTML", "https://en.wikipedia.org:8443/wiki/HTML"],
    ["other scheme is another origin", "http://en.wikipedia.org/wiki/HTML", "http://en.wikipedia.org/wiki/HTML"],
    ["utm_* dropped, order kept", "https://n.test/a?id=7&utm_source=tw&utm_medium=social&page=2", "https://n.test/a?id=7&page=2"],
    ["only tracking: no ?", "https://n.test/a?fbclid=IwAR0x&gclid=abc#top", "https://n.test/a#top"],
    ["mailchimp, ref, msclkid", "https://n.test/a?mc_cid=1&mc_eid=2&ref=home&msclkid=3&q=ok", "https://n.test/a?q=ok"],
    ["lookalikes kept", "https://n.test/a?referrer=x&reference=y&utm=z", "https://n.test/a?referrer=x&reference=y&utm=z"],
    ["same origin and tracking", "https://en.wikipedia.org/wiki/HTML?utm_campaign=x", "/wiki/HTML"],
    ["parens and spaces encoded", "https://n.test/Foo_(bar) baz", "https://n.test/Foo_%28bar%29%20baz"],
    ["mailto untouched", "mailto:a@b.test?subject=hi", "mailto:a@b.test?subject=hi"],
  ];
  for (const [name, href, want] of cases) assert.equal(link(href), `[x](${want})`, name);
  assert.equal(
    toMarkdown(h("img", { alt: "Logo", src: "https://en.wikipedia.org/static/logo.png?utm_source=x" }), { pageUrl }),
    "![Logo](/static/logo.png)",
    "image sources follow the same rule",
  );
  assert.equal(toMarkdown(h("a", { href: "https://en.wikipedia.org/wiki/HTML" }, "x")), "[x](https://en.wikipedia.org/wiki/HTML)", "no pageUrl: absolute");
  assert.equal(toMarkdown(h("a", { href: "https://en.wikipedia.org/wiki/HTML" }, "x"), { pageUrl: "not a url" }), "[x](https://en.wikipedia.org/wiki/HTML)", "bad pageUrl: absolute");
});

test("markdown is capped at 30 KB with a marker", () => {
  const paras = [];
  for (let i = 0; i < 2000; i++) paras.push(h("p", null, `Paragraph ${i} ` + "lorem ipsum ".repeat(3)));
  const md = toMarkdown(h("body", null, ...paras));
  assert.equal(md.length <= MARKDOWN_MAX_CHARS, true);
  assert.ok(md.length > MARKDOWN_MAX_CHARS - 100, `close to the cap, got ${md.length}`);
  assert.match(md, /…\[markdown truncated: \d+ chars, cap 30720\]$/);
  assert.ok(md.startsWith("Paragraph 0 "));
  const small = toMarkdown(h("p", null, "x".repeat(100)), { maxLength: 50 });
  assert.ok(small.length <= 50);
});

test("capText never splits a surrogate pair and marks the cut", () => {
  assert.equal(capText("short", 10), "short");
  const s = "a".repeat(9) + "😀" + "b".repeat(100);
  const out = capText(s, 10, "");
  assert.equal(out, "a".repeat(9));
  const marked = capText("x".repeat(60000), 51200);
  assert.equal(marked.length, 51200);
  assert.match(marked, /…\[truncated 8800 chars\]$/);
});

// fakeNode builds just enough of a DOM node for domToTree.
function fakeEl(tag, { attrs = {}, style = { display: "block", visibility: "visible", position: "static" }, children = [], shadow, href, src, assigned } = {}) {
  const el = {
    nodeType: 1,
    localName: tag,
    _style: style,
    getAttribute: (n) => (n in attrs ? attrs[n] : null),
    childNodes: children,
  };
  if (href) el.href = href;
  if (src) el.src = src;
  if (shadow) el.shadowRoot = { childNodes: shadow };
  if (assigned) el.assignedNodes = () => assigned;
  return el;
}
const fakeText = (t) => ({ nodeType: 3, nodeValue: t });

test("domToTree flattens open shadow roots and slots, resolves hrefs, skips scripts", () => {
  const light = fakeText("slotted text");
  const host = fakeEl("x-widget", {
    children: [light],
    shadow: [fakeEl("p", { children: [fakeText("from shadow ")] }), fakeEl("slot", { assigned: [light] })],
  });
  const body = fakeEl("body", {
    children: [
      fakeEl("a", { attrs: { href: "/rel" }, href: "https://site.test/rel", children: [fakeText("rel")] }),
      fakeEl("script", { children: [fakeText("var x")] }),
      fakeEl("div", { style: { display: "none" }, children: [fakeText("gone")] }),
      host,
    ],
  });
  body.ownerDocument = { defaultView: { getComputedStyle: (el) => el._style } };
  const tree = domToTree(body);
  assert.equal(tree.children.length, 3, "script skipped");
  assert.equal(tree.children[0].attrs.href, "https://site.test/rel");
  assert.deepEqual(tree.children[1].children, [], "display:none subtree not walked");
  assert.equal(toMarkdown(tree), "[rel](https://site.test/rel)\n\nfrom shadow\n\nslotted text");
});

test("domToTree stops once it holds more text than the markdown can show, and the marker says so", () => {
  const para = (i) => fakeEl("p", { children: [fakeText(`Paragraph ${i} ` + "lorem ipsum ".repeat(8))] });
  const nav = fakeEl("nav", { children: [fakeText("menu ".repeat(400))] });
  const body = fakeEl("body", { children: [nav, ...Array.from({ length: 500 }, (_, i) => para(i))] });
  body.ownerDocument = { defaultView: { getComputedStyle: (el) => el._style } };
  const tree = domToTree(body, { maxText: 1000 });
  assert.equal(tree.cut, true);
  // The nav's 2,000 chars are stripped by toMarkdown, so they spend none
  // of the budget: the walk reads ~1,000 chars of paragraphs, not 500.
  const kept = tree.children.length - 1;
  assert.ok(kept >= 9 && kept <= 11, `kept ${kept} paragraphs`);
  const md = toMarkdown(tree);
  assert.match(md, /…\[markdown truncated: over \d+ chars, cap 30720\]$/);
  assert.ok(md.startsWith("Paragraph 0 "));

  const whole = domToTree(body);
  assert.equal(whole.cut, undefined, "the default budget reads a 53,000-char page whole");
  assert.equal(whole.children.length, 501);
});
