// Locating a target (docs/extension.md §Frames, §Role targets): a uid, a
// selector (with or without frame) or a role target becomes a node in a
// debugger session, {session, backendNodeId, objectId, label}. session is
// null for the tab's own (the main frame and its same-process iframes),
// else an out-of-process iframe's child session; every command on the node
// goes there. Nothing here waits: input/actionability.js retries a lookup
// that may succeed later, wait.js polls one.

import { BridgeError } from "../core/errors.js";
import { CdpError, invalid, notFound, sessionSend } from "../core/cdp.js";
import { describeRoleTarget, findByRole } from "./role-target.js";

// GROUP is the object group every action's remote objects go into
// (released after the action: sessions/run.js).
export const GROUP = "bua";

// describeTarget names the action's target in messages: uid e3, selector
// "#go" in frame "pay", role button named "Save".
export function describeTarget(action) {
  if (action.role !== undefined) return describeRoleTarget(action);
  if (action.uid !== undefined) return `uid ${action.uid}`;
  const inFrame = action.frame !== undefined ? ` in frame ${JSON.stringify(action.frame)}` : "";
  return `selector ${JSON.stringify(action.selector)}${inFrame}`;
}

// locate turns {uid}, {selector, frame?} or {role, name, nth} into a live
// node, {target: {session, backendNodeId, objectId, label}, rest}, and
// sends `also(by, send)` (commands that need only the node's id, through
// send, which goes to the node's session) in the same round trip,
// returning their settled results as `rest`. A uid missing from the cache,
// or from an older document, is element_stale; a node that is gone from
// the page is element_not_found. A detached node still resolves and still
// accepts box and focus queries, so callers that act on it check
// isConnected first. A selector is looked up in the page (findSelector),
// and the commands go by the remote object it returns. A role target is
// looked up in the accessibility tree (target/role-target.js: its frame's, or
// without frame the main frame's and then every other frame's) on every
// call, so each actionability probe finds the element afresh, and the
// commands go by the backendNodeId it names, in its frame's session.
export async function locate(ctx, action, also = () => []) {
  const label = describeTarget(action);
  if (action.role !== undefined) return byRole(ctx, action, label, also);
  if (action.selector !== undefined) return bySelector(ctx, action, label, also);
  return byUid(ctx, action, label, also);
}

async function byRole(ctx, action, label, also) {
  const { backendNodeId, session } = await findByRole(ctx, action, await roleScope(ctx, action));
  const send = sessionSend(ctx, session);
  const by = { backendNodeId };
  const [resolved, ...rest] = await settled([send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by, send)]);
  if (resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) throw gone(label);
  return { target: { session, backendNodeId, objectId: resolved.value.object.objectId, label }, rest };
}

async function bySelector(ctx, action, label, also) {
  const { session, objectId } = await findSelector(ctx, action.selector, action.frame);
  const send = sessionSend(ctx, session);
  const by = { objectId };
  const [described, ...rest] = await settled([send("DOM.describeNode", by), ...also(by, send)]);
  if (described.status === "rejected") throw gone(label);
  return { target: { session, backendNodeId: described.value.node.backendNodeId, objectId, label }, rest };
}

async function byUid(ctx, action, label, also) {
  const u = ctx.uidNode(action.uid);
  const session = u.session || null;
  const send = sessionSend(ctx, session);
  const by = { backendNodeId: u.id };
  const [doc, resolved, ...rest] = await settled([u.current, send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by, send)]);
  if (doc.status === "rejected") throw doc.reason; // element_stale: a newer document
  if (resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) throw gone(label);
  return { target: { session, backendNodeId: u.id, objectId: resolved.value.object.objectId, label }, rest };
}

// roleScope is where a role target with frame is looked up: the frame's
// root element, {session, objectId}, found as a selector with frame is
// (findSelector); null without frame (the main frame's document).
export async function roleScope(ctx, action) {
  return action.frame === undefined ? null : findSelector(ctx, ":root", action.frame);
}

// findSelector returns {session, objectId}: the remote object of the first
// match of selector, and the debugger session it lives in (null: the
// tab's). Without frame it looks in the main document, as
// DOM.querySelector would, in one round trip (DOM.getDocument then
// DOM.querySelector took two, and querySelector pushes the path to the
// node into the DOM agent). With frame it looks in the first frame whose
// URL contains frame or whose name equals it (findInFrame). No match is
// element_not_found; a malformed selector is the caller's bug:
// invalid_action.
export async function findSelector(ctx, selector, frame) {
  if (frame !== undefined) return findInFrame(ctx, selector, frame);
  const r = await ctx.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)})`, objectGroup: GROUP });
  if (r.exceptionDetails) throw invalidSelector(selector, r.exceptionDetails);
  if (!r.result || r.result.subtype !== "node" || !r.result.objectId) throw noMatch(selector);
  return { session: null, objectId: r.result.objectId };
}

// FRAME_QUERY runs in a document (the main one, or an out-of-process
// iframe's) and answers, for selector in frame want: the first match, in
// the first frame in document order whose URL contains want or whose name
// (the iframe's name attribute) equals it, walking same-origin frames
// depth first; null when that frame has no match; or a string "nomatch"
// followed by the JSON list of the frame URLs it saw. own says whether the
// document itself is a candidate (an out-of-process iframe's is: its name
// is window.name).
export const FRAME_QUERY = `function (sel, want, own) { /* bua:frame */
  const seen = [];
  const hit = (url, name) => (name !== "" && name === want) || url.includes(want);
  if (own) {
    seen.push(location.href);
    if (hit(location.href, window.name)) return document.querySelector(sel);
  }
  let found;
  (function walk(doc) {
    for (const f of doc.querySelectorAll("iframe, frame")) {
      if (found !== undefined) return;
      let d = null;
      try { d = f.contentDocument; } catch (e) { d = null; }
      if (!d) continue;
      seen.push(d.URL);
      if (hit(d.URL, f.name || "")) { found = d; return; }
      walk(d);
    }
  })(document);
  if (found !== undefined) return found.querySelector(sel);
  return "nomatch" + JSON.stringify(seen);
}`;

// findInFrame looks for selector in frame (FRAME_QUERY): first in the tab's
// own session, which holds the main document and its same-origin frames,
// then in each out-of-process iframe's child session (in the order they
// attached), all those at once. No frame matching is element_not_found
// listing the frames there are.
async function findInFrame(ctx, selector, frame) {
  const args = (own) => ({
    expression: `(${FRAME_QUERY})(${JSON.stringify(selector)}, ${JSON.stringify(frame)}, ${own})`,
    objectGroup: GROUP,
  });
  const answer = (session, r) => {
    if (r.exceptionDetails) throw invalidSelector(selector, r.exceptionDetails);
    const v = r.result || {};
    if (v.subtype === "node" && v.objectId) return { session, objectId: v.objectId };
    if (v.type === "string" && String(v.value).startsWith("nomatch")) return { seen: JSON.parse(String(v.value).slice(7)) };
    throw notFound(`no element matches selector ${JSON.stringify(selector)} in frame ${JSON.stringify(frame)}`);
  };
  const main = answer(null, await ctx.send("Runtime.evaluate", args(false)));
  if (!main.seen) return main;
  const seen = [...main.seen];
  const kids = ctx.frames ? ctx.frames() : [];
  const reads = await settled(kids.map((f) => ctx.sendTo(f.sessionId, "Runtime.evaluate", args(true))));
  for (let i = 0; i < reads.length; i++) {
    if (reads[i].status === "rejected") continue; // a frame gone meanwhile
    const a = answer(kids[i].sessionId, reads[i].value);
    if (!a.seen) return a;
    seen.push(...a.seen);
  }
  const list = seen.length ? `the page's frames are ${seen.slice(0, 10).map((u) => JSON.stringify(u)).join(", ")}` : "the page has no frames";
  throw notFound(`no frame matches ${JSON.stringify(frame)} (a part of its URL or its name): ${list}`);
}

// invalidSelector is invalid_action for a selector the page's
// querySelector threw on, with the first line of its message.
export function invalidSelector(selector, exceptionDetails) {
  const d = exceptionDetails.exception && exceptionDetails.exception.description;
  return invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${String(d || exceptionDetails.text || "").split("\n")[0]}`);
}

// noMatch is element_not_found for a selector that matches nothing.
export function noMatch(selector) {
  return notFound(`no element matches selector ${JSON.stringify(selector)}`);
}

// settled waits for every promise. A CDP error or a protocol error is a
// result for the caller to judge; anything else is a bug and is thrown.
export async function settled(promises) {
  const results = await Promise.allSettled(promises);
  for (const r of results) {
    if (r.status === "rejected" && !(r.reason instanceof CdpError) && !(r.reason instanceof BridgeError)) throw r.reason;
  }
  return results;
}

// gone is element_not_found for a target that left the page after it was
// found. It is marked removed: a target looked up again on each probe (a
// role or a selector) may have been replaced between its lookup and its
// checks, so waitActionable (input/actionability.js) probes again instead of
// failing.
export function gone(label) {
  const since = label.startsWith("uid ") ? "the extract" : "it was found";
  const e = notFound(`${label} is no longer in the page (removed since ${since})`);
  e.removed = true;
  return e;
}

// isConnected asks the page whether the resolved node is still in its
// document: a detached node still resolves and still answers box and focus
// queries, so without this an action on a removed node would report ok.
export async function isConnected(ctx, objectId, session = null) {
  const r = await sessionSend(ctx, session)("Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: "function () { return this.isConnected === true; }",
    returnByValue: true,
  });
  return Boolean(r.result && r.result.value === true);
}
