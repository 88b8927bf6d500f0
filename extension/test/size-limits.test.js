// The extension's size limits (docs/decisions/extension-modules.md): no
// source file over MAX_FILE_LINES
// lines and no function over MAX_FUNCTION_LINES, generated code aside
// (src/generated/). The scanner is test/helpers/size-scan.js; its own
// tests come first, so a scanner that stopped seeing functions fails here
// rather than letting every file pass.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { scan, scanFunctions } from "./helpers/size-scan.js";

const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 80;
const SRC = fileURLToPath(new URL("../src/", import.meta.url));

// EXEMPT are files other work is rewriting now; each goes when that work
// lands (the test fails while an exempt file is within the limits, or
// gone, so the entry cannot outlive its reason).
const EXEMPT = new Map([]);

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "generated" ? [] : sources(p);
    return name.endsWith(".js") ? [p] : [];
  });
}

// offenders lists "file:line ..." for every limit source breaks.
function offenders(file, source) {
  const { lines, functions } = scan(source);
  const out = [];
  if (lines > MAX_FILE_LINES) out.push(`${file}:1 has ${lines} lines (at most ${MAX_FILE_LINES})`);
  for (const fn of functions) {
    if (fn.lines > MAX_FUNCTION_LINES) out.push(`${file}:${fn.start} ${fn.name} has ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  }
  return out;
}

test("the scanner finds named functions, methods, getters and block-bodied arrows, with their lines", () => {
  const src = [
    "function a(x) {", // 1
    "  return x;",
    "}",
    "const b = async (y) => {", // 4
    "  if (y) { return 1; }",
    "  for (const z of y) { z(); }",
    "  return 2;",
    "};",
    "class C {", // 9
    "  constructor(p) {",
    "    this.p = p;",
    "  }",
    "  get q() { return 1; }",
    "  async #r(s) {",
    "    return s;",
    "  }",
    "}",
    "const o = { m() {", // 18
    "  return () => 1;",
    "}, n: function () {",
    "  return 0;",
    "} };",
  ].join("\n");
  const got = scanFunctions(src).map((f) => `${f.name}@${f.start}+${f.lines}`);
  assert.deepEqual(got.sort(), ["=>@4+5", "a@1+3", "constructor@10+3", "function@20+3", "m@18+3", "q@13+1", "r@14+3"].sort());
});

test("the scanner skips strings, template literals, comments and regular expressions, but reads ${} code", () => {
  const src = [
    "function f() {", // 1
    '  const s = "}}} { function g() {";',
    // eslint-disable-next-line no-template-curly-in-string -- source text for the scanner
    "  const t = `} ${(() => { return '{'; })()} {`;", // an arrow inside ${}
    "  // } a comment {",
    "  /* } { */",
    "  const r = /[}{]\\/}/g;",
    "  const d = 4 / 2 / 1;",
    "  return s + t + r + d;",
    "}",
  ].join("\n");
  const fns = scanFunctions(src);
  assert.deepEqual(fns.map((fn) => [fn.name, fn.start, fn.end]), [["=>", 3, 3], ["f", 1, 9]]);
});

test("a function nested in another counts in the outer one's lines", () => {
  const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = () => { return ${i}; };`).join("\n");
  const src = `export function factory() {\n${body}\n  return {};\n}\n`;
  const found = offenders("x.js", src);
  assert.deepEqual(found, [`x.js:1 factory has 93 lines (at most ${MAX_FUNCTION_LINES})`]);
});

test(`no extension source file is over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
  const found = [];
  for (const path of sources(SRC)) {
    const file = relative(SRC, path).split("\\").join("/");
    if (EXEMPT.has(file)) continue;
    found.push(...offenders(file, readFileSync(path, "utf8")));
  }
  assert.deepEqual(found, [], `over the limits (split the file or the function):\n${found.join("\n")}`);
});

test("every exemption still has its reason: its file exists and is over a limit", () => {
  for (const [file, work] of EXEMPT) {
    const path = join(SRC, file);
    assert.ok(existsSync(path), `${file} is gone: drop its exemption (${work})`);
    assert.notDeepEqual(offenders(file, readFileSync(path, "utf8")), [], `${file} is within the limits now: drop its exemption (${work})`);
  }
});
