// A small scanner for the extension's size limits
// (docs/decisions/extension-modules.md): how many
// lines each source file has, and where each function starts and ends.
// Not a parser: it reads our code style. It skips strings, template
// literals (their ${…} parts are code, and are read), comments and regular
// expression literals, matches braces, and calls a `{` a function's body
// when it follows `=>` (an arrow function with a block body), or follows
// a parameter list `(…)` whose `(` comes after `function`, a name that is
// not a statement keyword (a named function, a method, a getter), or
// `function name`. A class's body, an object literal and a block are not
// functions; a function nested in another counts inside it too, as its
// lines are the outer function's lines.

// STATEMENTS are the keywords whose `(…) {` is a statement's block, not a
// function's body.
const STATEMENTS = new Set(["if", "for", "while", "switch", "catch", "with", "return", "typeof", "await", "yield", "in", "of", "new", "delete", "void"]);

// REGEX_AFTER are the words after which a `/` starts a regular expression
// literal rather than a division.
const REGEX_AFTER = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof", "yield", "await"]);

// scanFunctions returns [{name, start, end, lines}] for every function in
// source, in the order their bodies close. start is the line of the
// function's head (its name, `function`, or the `{` of an arrow's body),
// end the line of its closing brace, both 1-based.
export function scanFunctions(source) {
  const fns = [];
  const braces = []; // for each open `{`: {fn, kind: "block"|"template"}
  const parens = []; // for each open `(`: the token before it
  const templates = []; // brace depth at each `${` of an open template literal
  let prev = null; // the last significant token: {t, line}
  let closedParen = null; // for a `)` just read: the token before its `(`
  let line = 1;
  let i = 0;
  const n = source.length;
  const isIdent = (c) => /[A-Za-z0-9_$]/.test(c);

  function token(t, extra = {}) {
    prev = { t, line, ...extra };
  }

  // template reads a template literal's text from i (after its ` or the
  // } that ends a ${…}) up to its closing ` or the next ${.
  function template() {
    while (i < n) {
      const c = source[i];
      if (c === "\\") {
        if (source[i + 1] === "\n") line++;
        i += 2;
        continue;
      }
      if (c === "\n") line++;
      if (c === "`") {
        i++;
        token("`str`");
        return;
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2;
        braces.push({ fn: null, kind: "template" });
        templates.push(braces.length);
        prev = { t: "(", line };
        return;
      }
      i++;
    }
  }

  function quoted(q) {
    i++;
    while (i < n && source[i] !== q) {
      if (source[i] === "\\") i++;
      else if (source[i] === "\n") line++;
      i++;
    }
    i++;
    token("str");
  }

  function regex() {
    i++;
    let inClass = false;
    while (i < n) {
      const c = source[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "\n") break; // not a regex after all: a line never ends one
      if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) break;
      i++;
    }
    i++;
    while (i < n && /[a-z]/.test(source[i])) i++;
    token("regex");
  }

  function regexAllowed() {
    if (!prev) return true;
    if (REGEX_AFTER.has(prev.t)) return true;
    return !(prev.t === ")" || prev.t === "]" || prev.t === "str" || prev.t === "`str`" || prev.t === "regex" || prev.t === "num" || prev.word);
  }

  function open() {
    let fn = null;
    if (prev && prev.t === "=>") {
      fn = { name: "=>", start: line };
    } else if (prev && prev.t === ")" && closedParen) {
      const head = closedParen;
      if (head.t === "function") fn = { name: "function", start: head.line };
      else if (head.word && !STATEMENTS.has(head.t)) fn = { name: head.t, start: head.line };
    }
    braces.push({ fn, kind: "block" });
    token("{");
  }

  function close() {
    const b = braces.pop();
    if (b && b.kind === "template") {
      templates.pop();
      i++;
      template();
      return true;
    }
    if (b && b.fn) fns.push({ ...b.fn, end: line, lines: line - b.fn.start + 1 });
    return false;
  }

  while (i < n) {
    const c = source[i];
    if (c === "\n") {
      line++;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = i; k < stop; k++) if (source[k] === "\n") line++;
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      quoted(c);
      continue;
    }
    if (c === "`") {
      i++;
      template();
      continue;
    }
    if (c === "/" && regexAllowed()) {
      regex();
      continue;
    }
    if (isIdent(c)) {
      let j = i;
      while (j < n && isIdent(source[j])) j++;
      const w = source.slice(i, j);
      i = j;
      if (/^[0-9]/.test(w)) token("num");
      else token(w, { word: true });
      continue;
    }
    if (c === "=" && source[i + 1] === ">") {
      i += 2;
      token("=>");
      continue;
    }
    if (c === "(") {
      parens.push(prev || { t: "" });
      i++;
      token("(");
      continue;
    }
    if (c === ")") {
      closedParen = parens.pop() || null;
      i++;
      token(")");
      continue;
    }
    if (c === "{") {
      i++;
      open();
      continue;
    }
    if (c === "}") {
      if (close()) continue;
      i++;
      token("}");
      continue;
    }
    i++;
    token(c);
  }
  return fns;
}

// scan returns the file's line count and its functions.
export function scan(source) {
  const lines = source.endsWith("\n") ? source.split("\n").length - 1 : source.split("\n").length;
  return { lines, functions: scanFunctions(source) };
}
