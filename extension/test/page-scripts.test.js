// The page scripts as the worker sends them (generated/page.js, bundled
// from src/page by go generate), run in a realm of their own (node:vm)
// over a small fake DOM: each runs whole, without the worker's modules,
// and leaves nothing on the page's window.

import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import * as PAGE from "../src/generated/page.js";
import { buildFrameScript, buildPageScript } from "../src/actions/extract.js";

// el builds a fake element: what the page scripts read of one.
function el(tag, attrs = {}, children = [], style = {}) {
  const e = {
    nodeType: 1,
    localName: tag,
    tagName: tag.toUpperCase(),
    attrs,
    _style: { display: "block", visibility: "visible", position: "static", textTransform: "none", ...style },
    childNodes: children,
    isContentEditable: false,
    isConnected: true,
    tabIndex: tag === "a" || tag === "button" ? 0 : -1,
    getAttribute: (n) => (n in attrs ? attrs[n] : null),
    hasAttribute: (n) => n in attrs,
    checkVisibility: () => e._style.display !== "none",
    getBoundingClientRect: () => (e._style.display === "none" ? { width: 0, height: 0 } : { width: 10, height: 10 }),
    matches: (sel) => sel === ":disabled" && "disabled" in attrs,
    closest: (sel) => {
      for (let a = e; a; a = a.parentElement) if (sel === "[aria-disabled]" ? "aria-disabled" in a.attrs : a.localName === sel) return a;
      return null;
    },
    contains: (other) => {
      for (let a = other; a; a = a.parentElement) if (a === e) return true;
      return false;
    },
    querySelectorAll: (sel) => {
      const tags = sel.split(",").map((s) => s.replace(/\[.*$/, ""));
      const out = [];
      (function walk(n) {
        for (const k of n.children) {
          if (tags.includes(k.localName) && (!sel.includes("[src]") || "src" in k.attrs)) out.push(k);
          walk(k);
        }
      })(e);
      return out;
    },
  };
  if (tag === "a") e.href = new URL(attrs.href, "https://site.test/page").href;
  for (const k of children) k.parentNode = k.parentElement = e;
  Object.defineProperty(e, "children", { get: () => e.childNodes.filter((k) => k.nodeType === 1) });
  Object.defineProperty(e, "textContent", { get: () => e.childNodes.map((k) => (k.nodeType === 3 ? k.nodeValue : k.textContent)).join("") });
  Object.defineProperty(e, "innerText", { get: () => e.textContent });
  return e;
}
const text = (t) => ({ nodeType: 3, nodeValue: t });

// page is a fresh realm holding a small page: a heading, a paragraph
// with a link, a button and a hidden one.
function page() {
  const body = el("body", {}, [
    el("h1", {}, [text("Title")]),
    el("p", {}, [text("Read "), el("a", { href: "/docs?utm_source=x" }, [text("the docs")], { display: "inline" })]),
    el("button", {}, [text("Go")]),
    el("button", {}, [text("Gone")], { display: "none" }),
  ]);
  const html = el("html", {}, [body]);
  const document = { body, documentElement: html, readyState: "complete", title: "Fake", URL: "https://site.test/page", querySelectorAll: (s) => html.querySelectorAll(s) };
  for (const e of [html, ...html.querySelectorAll("body,h1,p,a,button")]) {
    e.ownerDocument = document;
    e.getRootNode = () => document;
  }
  const window = {
    document,
    location: { href: "https://site.test/page" },
    innerWidth: 1280,
    innerHeight: 720,
    performance: { now: () => 0 },
    URL,
    getComputedStyle: (e) => e._style,
  };
  document.defaultView = window;
  const realm = vm.createContext(window);
  // A page script that set these would run the page's setter.
  for (const name of ["__buaRun", "__bua", "run", "readPage"]) {
    Object.defineProperty(window, name, {
      configurable: true,
      get: () => assert.fail(`the page script read window.${name}`),
      set: () => {
        assert.fail(`the page script set window.${name}`);
      },
    });
  }
  return { realm, window, body, run: (expr) => vm.runInContext(expr, realm) };
}

test("every page script is a function declaration that names itself for the CDP log", () => {
  const want = { EXTRACT: "extract", EXTRACT_FRAME: "elements", CHANGES: "changes", DESCRIBE: "describe", WAIT_PROBE: "wait", RECORDER: "recorder" };
  assert.deepEqual(Object.keys(PAGE).sort(), Object.keys(want).sort());
  for (const [name, marker] of Object.entries(want)) {
    assert.match(PAGE[name], new RegExp(`^function \\(\\) \\{ /\\* bua:${marker} \\*/\\n`), name);
    assert.equal(typeof new Function(`return (${PAGE[name]});`)(), "function", name);
    assert.doesNotMatch(PAGE[name], /\bimport\b|\bexport\b|chrome\./, `${name} holds no module syntax and no chrome.* call`);
  }
});

test("extract's read runs whole in the page and leaves no global behind", () => {
  const p = page();
  const before = Object.getOwnPropertyNames(p.window).sort();
  const out = p.run(buildPageScript(undefined, { final: true }));
  assert.deepEqual(Object.getOwnPropertyNames(p.window).sort(), before);
  const read = JSON.parse(out[0]);
  assert.equal(read.markdown, "# Title\n\nRead [the docs](/docs)\n\nGo");
  assert.equal(read.text, "TitleRead the docsGoGone");
  assert.deepEqual(read.elements, [
    { role: "link", name: "the docs", visible: true },
    { role: "button", name: "Go", visible: true },
  ]);
  assert.equal(read.elementsTotal, 2);
  // The kept nodes, then every listed element for the next changes read.
  assert.equal(out.length, 4);
  assert.equal(out[2].textContent, "Go");
  assert.deepEqual(Array.from(out[3], (e) => e.localName), ["a", "button"]);

  const frame = JSON.parse(p.run(buildFrameScript(1))[0]);
  assert.deepEqual(frame, { url: "https://site.test/page", elements: [{ role: "link", name: "the docs", visible: true, frame: "https://site.test/page" }], elementsTotal: 2 });
});

test("a changes read runs on the last read's array, or on none", () => {
  const p = page();
  const changes = p.run(`(${PAGE.CHANGES})`);
  const first = changes.call(null, { max: 200 });
  assert.deepEqual(JSON.parse(first[0]).from, [-1, -1], "no last array: every element is new");
  const more = el("button", {}, [text("More")]);
  more.ownerDocument = p.window.document;
  more.getRootNode = () => p.window.document;
  more.parentNode = more.parentElement = p.body;
  p.body.childNodes.push(more);
  const next = changes.call(first, { max: 200 });
  const read = JSON.parse(next[0]);
  assert.deepEqual(read.from, [0, 1, -1], "the link and Go are known, More is new");
  assert.deepEqual(read.items, [{ role: "button", name: "More", visible: true }]);
  assert.equal(next[1], more);
});

test("wait_for's probe runs on the element it is given", () => {
  const p = page();
  const run = p.run(`(${PAGE.WAIT_PROBE})`);
  // Its answer is an object of the page's realm.
  const probe = (...args) => ({ ...run(...args) });
  const [, , go, gone] = p.body.children;
  assert.deepEqual(probe(go, true, { state: "visible" }), { ok: true, seen: "it is visible" });
  assert.deepEqual(probe(gone, true, { state: "hidden" }), { ok: true, seen: "it is attached but hidden" });
  assert.deepEqual(probe(null, false, { state: "visible", text: "the docs" }), { ok: true, seen: "it is shown" });
});
