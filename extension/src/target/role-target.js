// Role targets, {role, name, nth} (feature role_target): the element a
// person would name, found through the page's accessibility tree with
// Accessibility.queryAXTree, so no extract (and no uid cache) is needed.
// Like Playwright's getByRole, hidden elements never match: queryAXTree
// leaves out display:none and visibility:hidden content and reports
// aria-hidden (and other ignored) nodes as ignored, which are skipped.

import { CdpError, invalid, notFound, sessionSend } from "../core/cdp.js";
import { BridgeError, ErrorCodes } from "../core/errors.js";

const GROUP = "bua";

// QUERY_ROLE: the ARIA 1.2 roles Chromium's tree spells its own way.
// queryAXTree finds nothing for "img" (Chromium's role is "image", ARIA
// 1.3's name) or "directory" (which Chromium maps to list).
const QUERY_ROLE = Object.freeze({ img: "image", directory: "list" });

// CANDIDATES_SHOWN caps the candidates an ambiguity error lists.
const CANDIDATES_SHOWN = 8;

// parseName reads the schema's name: "/pattern/flags" is a RegExp (the
// same rule as Go's roletarget.ParseName: testdata/roletarget/names.json
// states it once, and both sides' tests read it), anything else an exact
// name. A pattern JavaScript refuses is invalid_action.
const REGEX_NAME = /^\/(.*)\/([a-z]*)$/s;

export function parseName(name) {
  if (name === undefined) return { any: true };
  const m = REGEX_NAME.exec(name);
  if (!m) return { exact: name };
  try {
    return { regex: new RegExp(m[1], m[2]) };
  } catch (e) {
    throw invalid(`name ${name} is not a valid regular expression: ${e.message}`);
  }
}

// describeRoleTarget names the target in messages: role button named
// "Sign in", role link named /^docs/i, role textbox (nth 2).
export function describeRoleTarget(action) {
  let d = `role ${action.role}`;
  if (action.name !== undefined) d += ` named ${REGEX_NAME.test(action.name) ? action.name : JSON.stringify(action.name)}`;
  if (action.nth !== undefined) d += ` (nth ${action.nth})`;
  if (action.frame !== undefined) d += ` in frame ${JSON.stringify(action.frame)}`;
  return d;
}

// normalizeName collapses whitespace runs to one space and trims, as
// Playwright does before comparing names: Chromium keeps an aria-label's
// own spaces (" Hello " stays so), where a person sees "Hello".
export function normalizeName(s) {
  return String(s).replace(/\s+/g, " ").trim();
}

// queryRole lists the elements that match the role target, in document
// order, as [{backendNodeId, role, name}]: one Runtime.evaluate for the
// document, then Accessibility.queryAXTree. An exact name is first asked
// of Chromium as accessibleName, which compares the raw name and returns
// only the matches (on a page of 1,000 buttons about 10× cheaper than all
// of them). When that finds none, and always for a regex or no name, the
// query asks for every element of the role and compares the names here,
// whitespace collapsed: Chromium keeps an aria-label's own spaces, so
// " Hello " is found for "Hello" only this way.
export async function queryRole(ctx, action, scope = null) {
  const want = parseName(action.name);
  const role = QUERY_ROLE[action.role] || action.role;
  // scope, for a frame's lookup: the frame's root element ({objectId}
  // from target/locate.js's roleScope, or {backendNodeId} from frameRoots) and the
  // session it lives in (the tab's for a same-origin frame, else the
  // out-of-process frame's).
  const send = sessionSend(ctx, scope && scope.session);
  const root = scope && (scope.objectId ? { objectId: scope.objectId } : { backendNodeId: scope.backendNodeId });
  // A hidden page (a background tab, the minimized BUA window) never
  // answers queryAXTree: Chromium defers it to a lifecycle update that a
  // page drawing no frames does not run. The whole tree still comes, so a
  // hidden page is read whole (the frame's, with frame) and filtered here,
  // slower on a big page.
  const probe = scope ? "document.visibilityState === 'hidden' ? null : true" : "document.visibilityState === 'hidden' ? null : document";
  const doc = await ctx.send("Runtime.evaluate", { expression: probe, objectGroup: GROUP });
  if (!doc.result) throw new CdpError("Runtime.evaluate", "the page has no document");
  if (doc.result.subtype === "null") {
    const params = {};
    if (scope) params.frameId = (await send("DOM.describeNode", root)).node.frameId;
    const { nodes } = await send("Accessibility.getFullAXTree", params);
    const all = { nodes: (nodes || []).filter((n) => n.role && n.role.value === role) };
    const out = matching(all, action, want);
    if (out.length === 0) out.others = matching(all, action, { any: true });
    return out;
  }
  if (!scope && !doc.result.objectId) throw new CdpError("Runtime.evaluate", "the page has no document");
  const params = { ...(root || { objectId: doc.result.objectId }), role };
  if (want.exact !== undefined) {
    const fast = matching(await send("Accessibility.queryAXTree", { ...params, accessibleName: want.exact }), action, want);
    if (fast.length > 0) return fast;
  }
  const all = await send("Accessibility.queryAXTree", params);
  const out = matching(all, action, want);
  // What the role does have, for noMatch's message, without asking again.
  if (out.length === 0) out.others = matching(all, action, { any: true });
  return out;
}

// matching keeps the queried nodes that a person could see (not ignored),
// that are DOM elements, and whose normalised name is the one wanted.
function matching({ nodes }, action, want) {
  const exact = want.exact !== undefined ? normalizeName(want.exact) : undefined;
  const out = [];
  for (const n of nodes || []) {
    if (n.ignored || n.backendDOMNodeId === undefined) continue;
    const name = normalizeName(n.name && typeof n.name.value === "string" ? n.name.value : "");
    if (exact !== undefined && name !== exact) continue;
    if (want.regex) {
      want.regex.lastIndex = 0; // a g or y flag makes test() stateful
      if (!want.regex.test(name)) continue;
    }
    out.push({ backendNodeId: n.backendDOMNodeId, role: n.role && n.role.value ? String(n.role.value) : action.role, name });
  }
  return out;
}

// FRAME_ROOTS runs in a document (the main one, or an out-of-process
// iframe's) and lists the root elements of the frames it reaches: its own
// when own, then its same-origin iframes', depth first in document order,
// as [JSON list of their URLs, ...root elements] for deep serialization,
// which gives each root's backendNodeId.
export const FRAME_ROOTS = `((own) => { /* bua:frame-roots */
  const urls = [];
  const roots = [];
  if (own && document.documentElement) { urls.push(location.href); roots.push(document.documentElement); }
  (function walk(doc) {
    for (const f of doc.querySelectorAll("iframe, frame")) {
      let d = null;
      try { d = f.contentDocument; } catch (e) { d = null; }
      if (!d || !d.documentElement) continue;
      urls.push(d.URL);
      roots.push(d.documentElement);
      walk(d);
    }
  })(document);
  return [JSON.stringify(urls), ...roots];
})`;

// frameRoots lists every frame of the tab but the main one, as
// [{session, backendNodeId, url}]: the same-origin frames (in the tab's
// session) in document order, then each out-of-process iframe (in its
// own session, in the order they attached) with its same-origin frames.
// A frame gone meanwhile is left out.
export async function frameRoots(ctx) {
  const read = (send, own) =>
    send("Runtime.evaluate", { expression: `${FRAME_ROOTS}(${own})`, serializationOptions: { serialization: "deep", maxDepth: 1 } });
  const kids = ctx.frames ? ctx.frames() : [];
  const reads = await Promise.allSettled([read(ctx.send, false), ...kids.map((f) => read(sessionSend(ctx, f.sessionId), true))]);
  const out = [];
  reads.forEach((r, i) => {
    if (r.status === "rejected") {
      if (frameGone(r.reason)) return;
      throw r.reason;
    }
    const parts = (r.value.result && r.value.result.deepSerializedValue && r.value.result.deepSerializedValue.value) || [];
    if (!parts[0] || parts[0].type !== "string") return;
    const urls = JSON.parse(parts[0].value);
    const session = i === 0 ? null : kids[i - 1].sessionId;
    urls.forEach((url, j) => {
      const node = parts[j + 1];
      const id = node && node.type === "node" && node.value && node.value.backendNodeId;
      if (Number.isInteger(id)) out.push({ session, backendNodeId: id, url });
    });
  });
  return out;
}

// frameGone: the error of a command sent to a frame that navigated or
// went away meanwhile (a child session's is element_not_found).
function frameGone(e) {
  return e instanceof CdpError || (e instanceof BridgeError && e.code === ErrorCodes.ELEMENT_NOT_FOUND);
}

// lookupRole lists the role target's matches, each {backendNodeId, role,
// name, session, frame}: session is the debugger session the node lives
// in (null: the tab's), frame its frame's URL (undefined: the main frame,
// or the frame the action names). With scope (the action's frame) it
// looks there. Without, the main frame's matches win; when it has none,
// every other frame is looked in (as extract lists them all) and the one
// frame with matches wins; matches in several frames are invalid_action
// listing each with its frame. matches.others is what the role does have,
// for noMatch.
export async function lookupRole(ctx, action, scope = null) {
  const main = await queryRole(ctx, action, scope);
  const session = scope ? scope.session : null;
  for (const m of main) m.session = session;
  if (main.length > 0 || scope) return main;
  const roots = await frameRoots(ctx);
  if (roots.length === 0) return main;
  const reads = await Promise.allSettled(roots.map((r) => queryRole(ctx, action, r)));
  const found = [];
  const others = [...(main.others || [])];
  reads.forEach((r, i) => {
    if (r.status === "rejected") {
      if (frameGone(r.reason)) return;
      throw r.reason;
    }
    for (const m of r.value) Object.assign(m, { session: roots[i].session, frame: roots[i].url });
    if (r.value.length > 0) found.push(r.value);
    others.push(...(r.value.others || []));
  });
  if (found.length > 1) throw await inSeveralFrames(ctx, action, found.flat(), found.length);
  const out = found[0] || [];
  if (out.length === 0) out.others = others;
  return out;
}

// pick chooses the action's element among matches: the nth, or the only
// one. More than one without nth is invalid_action listing the
// candidates; none (or too few for nth) returns null, for the caller to
// wait or fail.
export async function pick(ctx, action, matches) {
  if (action.nth !== undefined) return matches[action.nth] || null;
  if (matches.length > 1) throw await ambiguous(ctx, action, matches);
  return matches[0] || null;
}

// findByRole resolves the role target now: the chosen element's
// {backendNodeId, session, frame}, or element_not_found saying what the
// page has instead.
export async function findByRole(ctx, action, scope = null) {
  const matches = await lookupRole(ctx, action, scope);
  const hit = await pick(ctx, action, matches);
  if (hit) return hit;
  throw noMatch(action, matches);
}

// noMatch is element_not_found for a role target: with nth past the end,
// how many matched; otherwise up to five names the role does have (from
// the query that found none).
export function noMatch(action, matches) {
  const what = describeRoleTarget({ ...action, nth: undefined });
  if (action.nth !== undefined && matches.length > 0) {
    return notFound(`${what} matches ${matches.length} element${matches.length === 1 ? "" : "s"}, so there is no nth ${action.nth} (nth counts from 0)`);
  }
  const others = action.name !== undefined && matches.others ? matches.others : [];
  const where = action.frame !== undefined ? "" : " in the page";
  if (others.length === 0) return notFound(`no element with ${what}${where} (hidden ones do not count)`);
  const names = [...new Set(others.map((o) => JSON.stringify(o.name)))];
  const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? `, and ${names.length - 5} more` : "");
  return notFound(`no element with ${what}${where}; its ${action.role} elements are named ${shown}`);
}

// ambiguous is invalid_action listing the candidates: each one's nth, role,
// name and a short locator hint (tag#id.class), so the caller can add nth
// or a more exact name. Candidates found in a frame the action did not
// name say which.
async function ambiguous(ctx, action, matches) {
  const list = await candidates(ctx, matches, (m, i, hint) => `nth ${i}: ${m.role} ${JSON.stringify(m.name)} ${hint}`);
  const where = matches[0].frame !== undefined ? ` in frame ${JSON.stringify(matches[0].frame)}` : "";
  return invalid(`${describeRoleTarget(action)} matches ${matches.length} elements${where}; add nth (0-based) or a more exact name to pick one: ${list}`);
}

// inSeveralFrames is invalid_action for matches found in more than one
// frame (none in the main one): each candidate with its frame, so the
// caller can add frame (and nth within it).
async function inSeveralFrames(ctx, action, matches, frames) {
  const list = await candidates(ctx, matches, (m, i, hint) => `${m.role} ${JSON.stringify(m.name)} ${hint} in frame ${JSON.stringify(m.frame)}`);
  return invalid(
    `${describeRoleTarget(action)} matches elements in ${frames} frames and none in the main frame; ` +
      `add frame (a part of its URL, or its name) to pick one: ${list}`,
  );
}

// candidates describes the first CANDIDATES_SHOWN matches, each as
// line(match, index, its locator hint, read in its own session), and says
// how many more there are.
async function candidates(ctx, matches, line) {
  const shown = matches.slice(0, CANDIDATES_SHOWN);
  const hints = await Promise.all(shown.map((m) => locatorHint(sessionSend(ctx, m.session), m.backendNodeId)));
  const more = matches.length > shown.length ? `; and ${matches.length - shown.length} more` : "";
  return shown.map((m, i) => line(m, i, hints[i])).join("; ") + more;
}

// locatorHint is a short CSS-like description of a node, <button#id.a.b>,
// or <?> when it cannot be described.
async function locatorHint(send, backendNodeId) {
  let node;
  try {
    ({ node } = await send("DOM.describeNode", { backendNodeId }));
  } catch (e) {
    if (e instanceof CdpError) return "<?>";
    throw e;
  }
  const attrs = {};
  const a = node.attributes || [];
  for (let i = 0; i + 1 < a.length; i += 2) attrs[a[i]] = a[i + 1];
  let d = node.localName || String(node.nodeName || "?").toLowerCase();
  if (attrs.id) d += `#${attrs.id}`;
  else if (attrs.name) d += `[name=${JSON.stringify(attrs.name)}]`;
  for (const c of String(attrs.class || "").split(/\s+/).filter(Boolean).slice(0, 2)) d += `.${c}`;
  return `<${d}>`;
}
