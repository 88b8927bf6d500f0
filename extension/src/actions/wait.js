// wait_for: poll until a condition holds: the target in a state (attached,
// visible, hidden, detached; visible by default), text shown in the page or
// in the target, or the tab's URL matching a glob or /regex/flags. A
// selector with frame is looked up in that iframe, a uid read in a frame is
// probed in its frame's session, and a role target is looked up in the
// accessibility tree each round. Every round is one CDP call (two for a
// uid, more for a role target); a cancelled request stops at the next await
// (ctx.send and ctx.sleep reject once the signal aborts).

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { waitTimeoutMs } from "../core/budget.js";
import { CdpError, invalid, sessionSend } from "../core/cdp.js";
import { lookupRole, pick } from "../target/role-target.js";
import { describeTarget, findSelector, invalidSelector, roleScope } from "../target/locate.js";
import { WAIT_PROBE } from "../generated/page.js";

const POLL_MS = 100;

// Jitter keeps the poll from beating in step with page timers that run on
// round intervals (e.g. a 100 ms setInterval re-render).
function pollDelay() {
  return POLL_MS * (0.75 + Math.random() * 0.5);
}

// regexOf reads "/source/flags" as a RegExp's parts, or null for any other
// string; a malformed one is invalid_action, naming the param.
export function regexOf(name, s) {
  const m = /^\/(.*)\/([dgimsuvy]*)$/s.exec(s);
  if (!m || m[1] === "") return null;
  try {
    new RegExp(m[1], m[2]);
  } catch (e) {
    throw invalid(`${name} ${JSON.stringify(s)} is not a valid regular expression: ${e.message}`);
  }
  return { source: m[1], flags: m[2] };
}

function escapeRe(c) {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

// globRegExp turns a URL glob into a RegExp over the whole URL, as
// Playwright's waitForURL reads one: ** is any characters, * any but /,
// {a,b} either alternative, a backslash escapes; the rest is literal.
export function globRegExp(glob) {
  let re = "^";
  let group = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        re += ".*";
        i++;
      } else re += "[^/]*";
    } else if (c === "{" && !group) {
      group = true;
      re += "(?:";
    } else if (c === "}" && group) {
      group = false;
      re += ")";
    } else if (c === "," && group) {
      re += "|";
    } else if (c === "\\" && i + 1 < glob.length) {
      re += escapeRe(glob[++i]);
    } else {
      re += escapeRe(c);
    }
  }
  if (group) throw invalid(`url ${JSON.stringify(glob)} has a { without its }`);
  return new RegExp(re + "$");
}

// urlMatcher is url's test: /regex/flags, else a glob over the whole URL.
export function urlMatcher(url) {
  const r = regexOf("url", url);
  const re = r ? new RegExp(r.source, r.flags) : globRegExp(url);
  return (u) => {
    re.lastIndex = 0;
    return re.test(u);
  };
}

// waitedFor says how long a wait ran, as a person would: "10 s", "1.5 s",
// "400 ms".
export function waitedFor(ms) {
  if (ms >= 1000) return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
  return `${ms} ms`;
}

function targetName(action) {
  return hasTarget(action) ? describeTarget(action) : null;
}

function hasTarget(action) {
  return action.uid !== undefined || action.selector !== undefined || action.role !== undefined;
}

// probeObject runs the probe (page/wait.js) on the remote object objectId,
// through send (its session's).
async function probeObject(send, objectId, spec) {
  const { result } = await send("Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: WAIT_PROBE,
    arguments: [{ objectId }, { value: true }, { value: spec }],
    returnByValue: true,
  });
  return result.value;
}

// nodeObject resolves backendNodeId through send to a remote object id, or
// null when the node is gone (or, in a frame's session, its frame is).
async function nodeObject(send, backendNodeId, session) {
  try {
    const { object } = await send("DOM.resolveNode", { backendNodeId, objectGroup: "bua" });
    return object && object.objectId ? object.objectId : null;
  } catch (e) {
    if (e instanceof CdpError || (session && e instanceof BridgeError && e.code === ErrorCodes.ELEMENT_NOT_FOUND)) return null;
    throw e;
  }
}

// targetObject finds the node of a uid, a role target or a selector with
// frame, re-read every round: {send, objectId} in the node's session, or
// null when there is none (yet) or it is gone. A navigation while waiting
// makes a uid stale, which is an answer, not something to wait out. A role
// target with none yet (or fewer than nth + 1) is no node; more than one
// without nth is invalid_action at once, as it is for click. With frame, a
// frame not there yet is no node too (findSelector waits for nothing).
async function targetObject(ctx, action) {
  if (action.uid !== undefined) {
    const { session, id } = await ctx.lookupUid(action.uid);
    const send = sessionSend(ctx, session);
    const objectId = await nodeObject(send, id, session);
    return objectId ? { send, objectId } : null;
  }
  const notThereYet = (e) => action.frame !== undefined && e instanceof BridgeError && e.code === ErrorCodes.ELEMENT_NOT_FOUND;
  if (action.role !== undefined) {
    let hit = null;
    try {
      hit = await pick(ctx, action, await lookupRole(ctx, action, await roleScope(ctx, action)));
    } catch (e) {
      if (!notThereYet(e)) throw e;
    }
    if (!hit) return null;
    const send = sessionSend(ctx, hit.session);
    const objectId = await nodeObject(send, hit.backendNodeId, hit.session);
    return objectId ? { send, objectId } : null;
  }
  try {
    const found = await findSelector(ctx, action.selector, action.frame);
    return { send: sessionSend(ctx, found.session), objectId: found.objectId };
  } catch (e) {
    if (!notThereYet(e)) throw e;
    return null;
  }
}

// probeTarget runs the probe (page/wait.js) on the action's target (or
// the page when it has none) and returns its {ok, seen}.
async function probeTarget(ctx, action, spec) {
  if (action.uid !== undefined || action.role !== undefined || action.frame !== undefined) {
    const found = await targetObject(ctx, action);
    if (found) return probeObject(found.send, found.objectId, spec);
    // No node: it is detached, and so is its text.
    const { result } = await ctx.send("Runtime.evaluate", { expression: `(${WAIT_PROBE})(null, true, ${JSON.stringify(spec)})`, returnByValue: true });
    return result.value;
  }
  const el = action.selector !== undefined ? `document.querySelector(${JSON.stringify(action.selector)})` : "null";
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: `(${WAIT_PROBE})(${el}, ${hasTarget(action)}, ${JSON.stringify(spec)})`,
    returnByValue: true,
  });
  if (exceptionDetails) throw invalidSelector(action.selector, exceptionDetails);
  return result.value;
}

export async function waitFor(ctx, action) {
  // timeoutMs (default WAIT_FOR_DEFAULT_MS, at most WAIT_FOR_MAX_MS), cut
  // to what the request's budget leaves (core/budget.js).
  const timeoutMs = ctx.budget.inner(waitTimeoutMs(action));
  const deadline = Date.now() + timeoutMs;
  const state = action.state || "visible";
  let check;
  let what;
  if (action.url !== undefined) {
    const matches = urlMatcher(action.url);
    let last = "";
    check = async () => {
      last = (await ctx.mainFrame()).url;
      return matches(last);
    };
    what = () => `the tab's URL still does not match ${JSON.stringify(action.url)} after ${waitedFor(timeoutMs)} (it is ${last})`;
  } else {
    const spec = { state };
    if (action.text !== undefined) {
      const re = regexOf("text", action.text);
      if (re) spec.re = re;
      spec.text = action.text.replace(/\s+/g, " ").trim();
    }
    let seen = "";
    check = async () => {
      let r;
      try {
        r = (await probeTarget(ctx, action, spec)) || {};
      } catch (e) {
        // A document being replaced has no context to evaluate in for a
        // moment: that is "not yet", not an error.
        if (!(e instanceof CdpError)) throw e;
        seen = "the page was loading";
        return false;
      }
      seen = r.seen || "";
      return r.ok === true;
    };
    what = () => {
      const t = targetName(action);
      const subject = action.text !== undefined ? `text ${JSON.stringify(action.text)}${t ? ` in ${t}` : ""}` : t;
      return `${subject} still not ${state} after ${waitedFor(timeoutMs)}${seen ? ` (${seen})` : ""}`;
    };
  }
  for (;;) {
    ctx.budget.check(); // ctx.sleep and ctx.send end on abort too; this is the loop's own stop
    if (await check()) return { ok: true };
    const left = deadline - Date.now();
    if (left <= 0) break;
    await ctx.sleep(Math.min(left, pollDelay()));
  }
  throw new BridgeError(ErrorCodes.TIMEOUT, what());
}

export const executors = Object.freeze({ wait_for: waitFor });
