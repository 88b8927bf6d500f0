// evaluate: run an agent-written function body in the page
// (docs/protocol.md#evaluate).

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError } from "../core/cdp.js";
import { REASONS } from "../generated/protocol.js";

// docs/protocol.md#evaluate: a 10 s CDP-side timeout, cut to what the
// request's budget leaves.
export const EVALUATE_TIMEOUT_MS = 10000;
// Our own clock allows this much past the CDP timeout for the reply.
const OWN_CLOCK_SLACK_MS = 500;
export const VALUE_MAX_CHARS = 8192; // 8 KB of serialised JSON

// wrapExpression applies the spec's arrow-IIFE, (() => { ... })(); a
// returned promise is awaited (awaitPromise). With async, the pure
// extension for a body that uses await: (async () => { ... })(). The
// newline keeps a trailing // comment from swallowing the brace.
export function wrapExpression(expression, async = false) {
  return `(${async ? "async " : ""}() => {\n${expression}\n})()`;
}

// usesAwait says whether the spec's wrapper failed to compile because the
// body uses await, which V8 allows only in async functions. Nothing of the
// body ran (a SyntaxError is thrown before the script starts), so it is
// sent again, wrapped async. Any other body keeps the spec's wrapper.
export function usesAwait(details) {
  const ex = details && details.exception;
  return Boolean(ex && ex.className === "SyntaxError" && /await is only valid in async function/.test(String(ex.description || "")));
}

// Subtypes whose JSON form would lose what the value is (a DOM node
// serialises as {}, a Map as {}): they are described, not serialised.
const DESCRIBED_SUBTYPES = new Set([
  "node", "map", "set", "weakmap", "weakset", "regexp", "date", "promise", "proxy", "error",
  "iterator", "generator", "wasmvalue", "arraybuffer", "dataview", "webassemblymemory", "weakref",
  "trustedtype",
]);

// shapeResult maps a CDP RemoteObject to the protocol's evaluate shape.
// serialise(objectId) returns the object's JSON text (or throws).
export async function shapeResult(remote, serialise) {
  const type = remote.type;
  if (remote.unserializableValue !== undefined) return { type, description: remote.unserializableValue };
  switch (type) {
    case "undefined":
      return { type };
    case "symbol":
    case "function":
      return { type, description: remote.description || String(type) };
    case "string":
    case "number":
    case "boolean":
      return fitJSON(type, remote.value, JSON.stringify(remote.value));
    case "bigint":
      return { type, description: remote.description || String(remote.unserializableValue) };
    case "object": {
      if (remote.subtype === "null") return { type, value: null };
      if (DESCRIBED_SUBTYPES.has(remote.subtype) || !remote.objectId) {
        return { type, description: remote.description || remote.className || "object" };
      }
      let json;
      try {
        json = await serialise(remote.objectId);
      } catch {
        // Circular structures and throwing toJSON: say what it is instead.
        return { type, description: remote.description || remote.className || "object" };
      }
      if (typeof json !== "string") return { type, description: remote.description || "object" };
      return fitJSON(type, null, json);
    }
    default:
      return { type, description: remote.description || String(type) };
  }
}

function fitJSON(type, value, json) {
  if (json.length > VALUE_MAX_CHARS) {
    return { type, truncated: true, preview: `${json.slice(0, VALUE_MAX_CHARS)}…[truncated ${json.length - VALUE_MAX_CHARS} chars]` };
  }
  return { type, value: value === null ? JSON.parse(json) : value };
}

function exceptionMessage(details) {
  const ex = details.exception;
  const desc = ex && (ex.description || (ex.value !== undefined ? String(ex.value) : ""));
  // The description carries the stack; its first line is the message.
  const first = desc ? String(desc).split("\n")[0] : "";
  return first || details.text || "the expression threw";
}

export async function evaluate(ctx, action) {
  ctx.beginEvaluate();
  let timer;
  const timeoutMs = ctx.budget.inner(EVALUATE_TIMEOUT_MS);
  try {
    // CDP's timeout covers only synchronous execution; a promise that never
    // settles needs our own clock.
    const expired = new Promise((resolve) => {
      timer = ctx.timers.setTimeout(() => resolve(null), ctx.budget.inner(timeoutMs + OWN_CLOCK_SLACK_MS));
    });
    // call is ctx.send's: it rejects with the reason when the request is
    // cancelled, so evaluate stops waiting at once. A cancel does not
    // terminate the page's script: Runtime.terminateExecution would also
    // kill the page's next script when none of ours is running, and a
    // synchronous loop is already bounded by the CDP timeout above.
    const run = (async) => {
      const call = ctx.send("Runtime.evaluate", {
        expression: wrapExpression(action.expression, async),
        returnByValue: false,
        awaitPromise: true,
        userGesture: true,
        timeout: timeoutMs,
        objectGroup: "bua",
      });
      call.catch(() => {}); // abandoned if our own clock fires first
      return Promise.race([call, expired]);
    };
    let res = await run(false);
    if (res && usesAwait(res.exceptionDetails)) res = await run(true);
    if (res === null) {
      await ctx.send("Runtime.terminateExecution").catch(() => {});
      throw new BridgeError(ErrorCodes.TIMEOUT, `evaluate did not finish within ${timeoutMs} ms`);
    }
    if (res.exceptionDetails) {
      const msg = exceptionMessage(res.exceptionDetails);
      if (/Execution was terminated/i.test(msg)) {
        throw new BridgeError(ErrorCodes.TIMEOUT, `evaluate did not finish within ${timeoutMs} ms`);
      }
      // The page's own error: script_threw tells it from a request bua
      // refused, so a hint blames the page script only when one ran.
      throw new BridgeError(ErrorCodes.INVALID_ACTION, msg, REASONS.SCRIPT_THREW);
    }
    return await shapeResult(res.result, async (objectId) => {
      const r = await ctx.send("Runtime.callFunctionOn", {
        objectId,
        functionDeclaration: "function () { return JSON.stringify(this); }",
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(exceptionMessage(r.exceptionDetails));
      return r.result.value;
    });
  } catch (e) {
    if (e instanceof CdpError) throw new BridgeError(ErrorCodes.INVALID_ACTION, e.cdpMessage);
    throw e;
  } finally {
    ctx.timers.clearTimeout(timer);
    ctx.endEvaluate();
  }
}

export const executors = Object.freeze({ evaluate });
