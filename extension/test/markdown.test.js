import { test } from "node:test";
import assert from "node:assert/strict";
import { capText, domToTree, toMarkdown, MARKDOWN_MAX_CHARS } from "../src/lib/markdown.js";

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

test("toMarkdown and domToTree are self-contained so they survive toString injection", () => {
  for (const fn of [toMarkdown, domToTree, capText]) {
    // Evaluating the source in a fresh scope fails if it closes over module scope.
    const rebuilt = new Function(`return (${fn.toString()});`)();
    assert.equal(typeof rebuilt, "function");
  }
  const rebuilt = new Function(`return (${toMarkdown.toString()});`)();
  assert.equal(rebuilt(h("h2", null, "Hi")), "## Hi");
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
