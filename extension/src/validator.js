// CSP-safe JSON Schema validation. MV3 forbids eval/new Function, so the
// usual compiling validators cannot run in the worker; this interprets the
// subset of draft 2020-12 that schema/protocol.schema.json uses (type, enum,
// const, required, properties, items, min/max, min/maxLength, maxItems,
// pattern, allOf/anyOf/oneOf/not, if/then/else, local $ref). Any keyword
// outside that subset makes compileSchema throw, so a schema edit cannot be
// silently ignored here while Go enforces it.

const ANNOTATIONS = new Set([
  "$schema", "$id", "title", "description", "default", "$defs", "examples", "$comment",
]);
const SUPPORTED = new Set([
  "type", "enum", "const", "required", "properties", "items", "minimum", "maximum",
  "minLength", "maxLength", "minItems", "maxItems", "pattern", "allOf", "anyOf", "oneOf",
  "not", "if", "then", "else", "$ref",
]);

function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v; // object, string, number, boolean
}

function hasType(v, t) {
  switch (t) {
    case "integer": return typeof v === "number" && Number.isInteger(v);
    case "number": return typeof v === "number" && Number.isFinite(v);
    default: return typeOf(v) === t;
  }
}

function deepEqual(a, b) {
  if (a === b) return true;
  const ta = typeOf(a);
  if (ta !== typeOf(b)) return false;
  if (ta === "array") return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (ta === "object") {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// JSON Schema counts string length in code points, as Go does; JS .length
// counts UTF-16 units.
const codePoints = (s) => { let n = 0; for (const _ of s) n++; return n; };

function where(path) { return path === "" ? "message" : path.slice(1).replaceAll("/", "."); }

// compileSchema checks the schema once and returns validate(value) ->
// null | "path: reason".
export function compileSchema(root) {
  const regexes = new Map();
  const seen = new Set();

  function resolve(ref) {
    if (ref === "#") return root;
    if (!ref.startsWith("#/")) throw new Error(`validator: only local $ref supported, got ${ref}`);
    let node = root;
    for (const part of ref.slice(2).split("/")) {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
      if (node == null || !Object.hasOwn(node, key)) throw new Error(`validator: unresolvable $ref ${ref}`);
      node = node[key];
    }
    return node;
  }

  function check(schema) {
    if (typeof schema === "boolean" || seen.has(schema)) return;
    seen.add(schema);
    for (const [k, v] of Object.entries(schema)) {
      if (k.startsWith("x-") || ANNOTATIONS.has(k)) continue;
      if (!SUPPORTED.has(k)) throw new Error(`validator: unsupported keyword ${k}`);
      if (k === "pattern") regexes.set(v, new RegExp(v, "u"));
      if (k === "$ref") check(resolve(v));
      if (["allOf", "anyOf", "oneOf"].includes(k)) v.forEach(check);
      if (["not", "if", "then", "else", "items"].includes(k)) check(v);
      if (k === "properties") Object.values(v).forEach(check);
    }
    if (schema.$defs) Object.values(schema.$defs).forEach(check);
  }
  check(root);

  // x-message replaces the generic wording when its node fails, so the
  // common mistakes (a bad URL, an unknown key) read as advice.
  function validate(schema, v, path) {
    if (schema !== true && schema !== false && schema["x-message"] !== undefined) {
      return checkValue(schema, v, path) ? `${where(path)}: ${schema["x-message"]}` : null;
    }
    return checkValue(schema, v, path);
  }

  function checkValue(schema, v, path) {
    if (schema === true) return null;
    if (schema === false) return `${where(path)}: not allowed`;
    let err;
    if (schema.$ref !== undefined && (err = validate(resolve(schema.$ref), v, path))) return err;
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (!types.some((t) => hasType(v, t))) return `${where(path)}: must be ${types.join(" or ")}, got ${typeOf(v)}`;
    }
    if (schema.const !== undefined && !deepEqual(v, schema.const)) {
      return `${where(path)}: must be ${JSON.stringify(schema.const)}`;
    }
    if (schema.enum !== undefined && !schema.enum.some((e) => deepEqual(v, e))) {
      return `${where(path)}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}, got ${JSON.stringify(v)}`;
    }
    if (typeof v === "string") {
      const n = (schema.minLength !== undefined || schema.maxLength !== undefined) ? codePoints(v) : 0;
      if (schema.minLength !== undefined && n < schema.minLength) return `${where(path)}: must be at least ${schema.minLength} characters`;
      if (schema.maxLength !== undefined && n > schema.maxLength) return `${where(path)}: must be at most ${schema.maxLength} characters`;
      if (schema.pattern !== undefined && !regexes.get(schema.pattern).test(v)) {
        return `${where(path)}: ${JSON.stringify(v.length > 80 ? v.slice(0, 80) + "…" : v)} does not match ${schema.pattern}`;
      }
    }
    if (typeof v === "number") {
      if (schema.minimum !== undefined && v < schema.minimum) return `${where(path)}: must be >= ${schema.minimum}`;
      if (schema.maximum !== undefined && v > schema.maximum) return `${where(path)}: must be <= ${schema.maximum}`;
    }
    if (Array.isArray(v)) {
      if (schema.minItems !== undefined && v.length < schema.minItems) return `${where(path)}: must have at least ${schema.minItems} items`;
      if (schema.maxItems !== undefined && v.length > schema.maxItems) return `${where(path)}: must have at most ${schema.maxItems} items`;
      if (schema.items !== undefined) {
        for (let i = 0; i < v.length; i++) if ((err = validate(schema.items, v[i], `${path}/${i}`))) return err;
      }
    }
    if (typeOf(v) === "object") {
      if (schema.required) {
        for (const k of schema.required) if (!Object.hasOwn(v, k)) return `${where(path)}: missing required field ${JSON.stringify(k)}`;
      }
      if (schema.properties) {
        // Sorted, as the Go twin does, so both report the same field first.
        for (const k of Object.keys(schema.properties).sort()) {
          if (Object.hasOwn(v, k) && (err = validate(schema.properties[k], v[k], `${path}/${k}`))) return err;
        }
      }
    }
    if (schema.allOf) for (const s of schema.allOf) if ((err = validate(s, v, path))) return err;
    if (schema.anyOf) {
      const errs = schema.anyOf.map((s) => validate(s, v, path));
      if (errs.every(Boolean)) return errs[errs.length - 1];
    }
    if (schema.oneOf) {
      const errs = schema.oneOf.map((s) => validate(s, v, path));
      const passed = errs.filter((e) => !e).length;
      if (passed !== 1) return oneOfMessage(schema.oneOf, v, path, passed, errs);
    }
    if (schema.not !== undefined && !validate(schema.not, v, path)) {
      return `${where(path)}: must not match ${describe(schema.not)}`;
    }
    if (schema.if !== undefined) {
      const branch = validate(schema.if, v, path) ? schema.else : schema.then;
      if (branch !== undefined && (err = validate(branch, v, path))) return err;
    }
    return null;
  }

  return (value) => validate(root, value, "");
}

function describe(s) {
  if (s && s.required) return `having ${s.required.join(", ")}`;
  return "the excluded shape";
}

// oneOf in this schema always means "exactly one of these fields", so say
// that rather than dumping both branch errors.
function oneOfMessage(branches, v, path, passed, errs) {
  const fields = branches.map((b) => (b.required ? b.required.join("+") : null));
  if (fields.every(Boolean)) {
    const present = typeOf(v) === "object" ? branches.filter((b) => b.required.every((k) => Object.hasOwn(v, k))).length : 0;
    const two = branches.length === 2;
    const got = present > 1 ? (two ? " (got both)" : ` (got ${present})`) : present === 0 ? (two ? " (got neither)" : " (got none)") : "";
    const list = `${fields.slice(0, -1).join(", ")} or ${fields[fields.length - 1]}`;
    return `${where(path)}: needs exactly one of ${list}${got}`;
  }
  return passed > 1 ? `${where(path)}: matches more than one alternative` : errs[0];
}

let current = null;

// initValidator installs the schema validateMessage uses. The worker passes
// the fetched schema/protocol.schema.json; node tests read it from disk.
export function initValidator(schema) {
  current = compileSchema(schema);
}

// loadValidator fetches the schema through an injected loader (async () =>
// schema object) and installs it.
export async function loadValidator(loadSchema) {
  initValidator(await loadSchema());
}

// validateMessage checks one decoded protocol message against the schema.
export function validateMessage(obj) {
  if (!current) return { ok: false, message: "validator not initialised: schema not loaded" };
  const err = current(obj);
  return err ? { ok: false, message: err } : { ok: true };
}

// parseMessage parses raw WebSocket text and validates it; malformed JSON is
// invalid like any other schema failure.
export function parseMessage(text) {
  let obj;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `message is not JSON: ${e.message}` };
  }
  const r = validateMessage(obj);
  return r.ok ? { ok: true, value: obj } : { ok: false, message: r.message, value: obj };
}
