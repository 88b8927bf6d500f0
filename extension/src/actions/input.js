// click, hover, type, press_key, scroll: trusted input through the Input
// domain (events reach the page with isTrusted = true), aimed by backend
// node id, never by re-querying a selector in the page.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { CdpError, invalid, notFound, sessionSend } from "../lib/cdp.js";
import { keyEvents } from "../lib/keys.js";
import { watchNavigation } from "../lib/settle.js";
import { withDownload } from "../lib/downloads.js";
import { watchNewTab } from "../lib/new-tab.js";
import { describeRoleTarget, findByRole } from "../lib/role-target.js";
import { clearFocused } from "../lib/clear.js";

const GROUP = "bua";

export function describeTarget(action) {
  if (action.role !== undefined) return describeRoleTarget(action);
  if (action.uid !== undefined) return `uid ${action.uid}`;
  const inFrame = action.frame !== undefined ? ` in frame ${JSON.stringify(action.frame)}` : "";
  return `selector ${JSON.stringify(action.selector)}${inFrame}`;
}

// resolveWith turns {uid}, {selector, frame?} or {role, name, nth} into a
// live node, {session, backendNodeId, objectId, label}, and sends `also(by, send)`
// (commands that need only the node's id, through send, which goes to the
// node's session) in the same round trip, returning their settled results
// as `rest`. session is the debugger session the node lives in: null for
// the tab's own (the main frame and its same-process iframes), else an
// out-of-process iframe's child session; every command on the node goes
// there. A uid missing from the cache, or from an older document, is
// element_stale; a node that is gone from the page is element_not_found. A
// detached node still resolves and still accepts box and focus queries, so
// callers that act on it check isConnected first. A selector is looked up
// in the page (findSelector), and the commands go by the remote object it
// returns. A role target is looked up in the accessibility tree
// (lib/role-target.js: its frame's, or without frame the main frame's
// and then every other frame's) on every call, so each actionability
// probe finds the element afresh, and the commands go by the
// backendNodeId it names, in its frame's session.
export async function resolveWith(ctx, action, also = () => []) {
  const label = describeTarget(action);
  if (action.role !== undefined) {
    const { backendNodeId, session } = await findByRole(ctx, action, await roleScope(ctx, action));
    const send = sessionSend(ctx, session);
    const by = { backendNodeId };
    const [resolved, ...rest] = await settle([send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by, send)]);
    if (resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) throw gone(label);
    return { target: { session, backendNodeId, objectId: resolved.value.object.objectId, label }, rest };
  }
  if (action.selector !== undefined) {
    const { session, objectId } = await findSelector(ctx, action.selector, action.frame);
    const send = sessionSend(ctx, session);
    const by = { objectId };
    const [described, ...rest] = await settle([send("DOM.describeNode", by), ...also(by, send)]);
    if (described.status === "rejected") throw gone(label);
    return { target: { session, backendNodeId: described.value.node.backendNodeId, objectId, label }, rest };
  }
  const u = ctx.uidNode(action.uid);
  const session = u.session || null;
  const send = sessionSend(ctx, session);
  const by = { backendNodeId: u.id };
  const [doc, resolved, ...rest] = await settle([u.current, send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by, send)]);
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
  const reads = await settle(kids.map((f) => ctx.sendTo(f.sessionId, "Runtime.evaluate", args(true))));
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

function noMatch(selector) {
  return notFound(`no element matches selector ${JSON.stringify(selector)}`);
}

// settle waits for every promise. A CDP error or a protocol error is a
// result for the caller to judge; anything else is a bug and is thrown.
async function settle(promises) {
  const results = await Promise.allSettled(promises);
  for (const r of results) {
    if (r.status === "rejected" && !(r.reason instanceof CdpError) && !(r.reason instanceof BridgeError)) throw r.reason;
  }
  return results;
}

// gone is element_not_found for a target that left the page after it was
// found. It is marked removed: a target looked up again on each probe (a
// role or a selector) may have been replaced between its lookup and its
// checks, so waitActionable probes again instead of failing.
export function gone(label) {
  const since = label.startsWith("uid ") ? "the extract" : "it was found";
  const e = notFound(`${label} is no longer in the page (removed since ${since})`);
  e.removed = true;
  return e;
}

// isConnected asks the page whether the resolved node is still in its
// document: a detached node still resolves and still answers box and focus
// queries, so without this an action on a removed node would report ok.
async function isConnected(ctx, objectId, session = null) {
  const r = await sessionSend(ctx, session)("Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: "function () { return this.isConnected === true; }",
    returnByValue: true,
  });
  return Boolean(r.result && r.result.value === true);
}

// connectedObject resolves backendNodeId (in session, null for the tab's
// own) to a remote object if the node is still connected to its document,
// else returns null.
export async function connectedObject(ctx, backendNodeId, session = null) {
  let object;
  try {
    ({ object } = await sessionSend(ctx, session)("DOM.resolveNode", { backendNodeId, objectGroup: GROUP }));
  } catch (e) {
    if (e instanceof CdpError) return null;
    if (session && e instanceof BridgeError && e.code === ErrorCodes.ELEMENT_NOT_FOUND) return null; // its frame went away
    throw e;
  }
  if (!object || !object.objectId) return null;
  return (await isConnected(ctx, object.objectId, session)) ? object.objectId : null;
}

// Runs in the page with `this` = the target and hit = the node at the click
// point: the hit is fine if it is the target or inside it (crossing shadow
// boundaries, including the user-agent shadow tree of inputs), or if the
// hit is a shadow host whose open shadow tree holds the target (retargeted
// hit test). Otherwise it describes the covering element for the message.
const HIT_CHECK = `function (hit) {
  const up = (n) => n.parentNode || n.host || null;
  for (let n = hit; n; n = up(n)) if (n === this) return { ok: true };
  if (hit.shadowRoot) for (let n = this; n; n = up(n)) if (n === hit.shadowRoot) return { ok: true };
  let el = hit;
  while (el && el.nodeType !== 1) el = up(el);
  if (!el) return { ok: false, cover: String(hit.nodeName), text: "" };
  let d = el.localName;
  if (el.id) d += "#" + el.id;
  if (el.classList) for (const c of Array.from(el.classList).slice(0, 3)) d += "." + c;
  const text = String(el.innerText || el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60);
  return { ok: false, cover: d, text };
}`;

// FRAME_HIT runs in an out-of-process iframe with `this` = the target and
// (x, y) the aim point in that frame's viewport: the frame's own hit test
// (elementFromPoint, which skips pointer-events: none as a click does),
// judged as HIT_CHECK judges the tab's. The tab's hit test then checks
// that the point lands on the frame's iframe at all.
const FRAME_HIT = `function (x, y) {
  const hit = (this.ownerDocument || document).elementFromPoint(x, y);
  if (!hit) return { ok: false, outside: true };
  return (${HIT_CHECK}).call(this, hit);
}`;

// COVER runs in the page with `this` = the node a hit test found instead
// of the target: a short description for the message.
const COVER = `function () {
  let el = this;
  while (el && el.nodeType !== 1) el = el.parentNode || el.host || null;
  if (!el) return { cover: String(this.nodeName), text: "" };
  let d = el.localName;
  if (el.id) d += "#" + el.id;
  if (el.classList) for (const c of Array.from(el.classList).slice(0, 3)) d += "." + c;
  return { cover: d, text: String(el.innerText || el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60) };
}`;

// ACTIONABLE runs in the page with `this` = the target and returns what
// the actionability checks need (docs/extension.md §Actionability): still
// connected, visible (a non-empty box, not visibility:hidden), enabled (not
// :disabled, itself or through a fieldset, and not inside
// aria-disabled="true"), editable (not a read-only input), whether a
// running animation moves it or an ancestor, and whether its document is
// hidden (drawFrame).
export const ACTIONABLE = `function () { /* bua:actionable */
  const el = this;
  if (!el.isConnected) return { connected: false };
  const e = el.nodeType === 1 ? el : el.parentElement;
  if (!e) return { connected: true, visible: false, enabled: true, editable: true, animating: false };
  const r = e.getBoundingClientRect();
  const visible = r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden" &&
    (typeof e.checkVisibility !== "function" || e.checkVisibility());
  const disabled = (e.matches(":disabled")) || Boolean(e.closest('[aria-disabled="true"]'));
  const editable = !(/^(input|textarea)$/.test(e.localName) && e.readOnly);
  // The element's own document: a node found from the parent (a selector
  // in a same-origin frame) runs this in the parent's realm.
  const doc = e.ownerDocument || document;
  let animating = false;
  if (typeof doc.getAnimations === "function") {
    for (const a of doc.getAnimations()) {
      const t = a.effect && a.effect.target;
      if (a.playState === "running" && t && t.contains && t.contains(e)) { animating = true; break; }
    }
  }
  const hidden = doc.visibilityState === "hidden";
  return { connected: true, visible, enabled: !disabled, editable, animating, hidden };
}`;

// STABLE runs in the page: whether the target's rect is the same over two
// animation frames (Playwright's "stable"); asked only while an animation
// runs on it. It answers true, false, or "no frames" when none came in
// 100 ms: a tab that draws no frames (hidden) does not advance its
// animations either, so an unchanged rect there proves nothing.
const STABLE = `function () {
  const rect = () => { const r = this.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); };
  const before = rect();
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve("no frames"), 100);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); resolve(rect() === before); }));
  });
}`;

// POLL_MS are the pauses between actionability probes: short at first, as
// most waits end within a frame or two, then every 200 ms.
const POLL_MS = [20, 50, 100, 100, 200];

// ANSWER_MS is how long before the budget's end waitActionable gives up on
// a probe still running: its timeout, naming the check that failed last,
// then answers before the controller's watchdog, whose bare "did not
// finish" names nothing. The two are timers, so the earlier one runs
// first however late a loaded machine runs them.
const ANSWER_MS = 20;

// waitActionable runs probe until it returns {ok: true, ...} or the
// action's own time (budget.inner(): the caller's --timeout or step
// timeout, x-ladder) runs out, which is timeout naming the check that
// failed last. The last probe starts when that time is up; the settle
// margin above it is for that probe and the answer, and a probe still
// running ANSWER_MS before the budget's end is given up. A probe throws
// for what waiting cannot fix: a stale uid, a selector with no match, a
// node removed from the page. A role target or a selector is looked up
// afresh on each probe, so its node removed between the lookup and the
// checks (a page replacing the element, as frameworks re-render) fails
// that probe only: the next lookup finds the new element, or nothing,
// which is final. A uid names one node, so its removal is final at once.
export async function waitActionable(ctx, action, probe) {
  const started = Date.now();
  let why = "not checked in time (the page did not answer the first check)";
  for (let i = 0; ; i++) {
    const checked = probe().catch((e) => {
      if (e.removed && action.uid === undefined) return { ok: false, why: "no longer in the page (removed each time after it was found)" };
      throw e;
    });
    const r = await beforeEnd(ctx, checked);
    if (r === null) break;
    if (r.ok) return r;
    why = r.why;
    const left = ctx.budget.inner();
    if (left <= 0) break;
    await ctx.sleep(Math.min(POLL_MS[Math.min(i, POLL_MS.length - 1)], left));
  }
  throw new BridgeError(
    ErrorCodes.TIMEOUT,
    `${describeTarget(action)} is ${why} (waited ${Date.now() - started} ms for it to be actionable; force: true skips the checks)`,
  );
}

// beforeEnd is p, or null when ANSWER_MS before the budget's end comes
// first (p is then left to end on its own).
function beforeEnd(ctx, p) {
  p.catch(() => {});
  const ms = ctx.budget.remaining() - ANSWER_MS;
  if (ms <= 0) return Promise.resolve(null);
  let timer;
  const end = new Promise((resolve) => {
    timer = ctx.timers.setTimeout(() => resolve(null), ms);
  });
  return Promise.race([p, end]).finally(() => ctx.timers.clearTimeout(timer));
}

// aim finds where to click the target: the centre of its border box in
// viewport CSS pixels, after scrolling it into view. Unless action.force,
// it waits until the target is actionable (docs/extension.md
// §Actionability): visible, stable, enabled when `enabled`, and the node a
// click there would land on rather than an overlay. chrome.debugger adds a
// hop to every call, so each probe travels in as few round trips as its
// dependencies allow: everything that needs only the node's id goes at
// once (a debugger session runs its commands in order, so the box is read
// after the scroll), then the page-side checks with the hit test.
export async function aim(ctx, action, { enabled = true } = {}) {
  const probe = () => probeAim(ctx, action, enabled);
  return waitActionable(ctx, action, probe);
}

// aimPoint is where a click lands: the centre of the target's first content
// quad with an area (its first line box, for an inline element that wraps:
// the centre of the whole border box may fall between its lines, on
// whatever is there), else the centre of its border box. Playwright aims
// the same way.
export function aimPoint(border, quads) {
  for (const c of quads || []) {
    const area = Math.abs((c[0] * c[3] - c[2] * c[1]) + (c[2] * c[5] - c[4] * c[3]) + (c[4] * c[7] - c[6] * c[5]) + (c[6] * c[1] - c[0] * c[7])) / 2;
    if (area > 0.99) return { x: (c[0] + c[2] + c[4] + c[6]) / 4, y: (c[1] + c[3] + c[5] + c[7]) / 4 };
  }
  return { x: (border[0] + border[2] + border[4] + border[6]) / 4, y: (border[1] + border[3] + border[5] + border[7]) / 4 };
}

// hitBox is the bounding box [x, y, width, height] of a settled
// DOM.getContentQuads read, the boxes a click there could land on, or null
// when there were none. Stability compares two such reads: the same
// command twice, so the same box. The border box (DOM.getBoxModel) or
// getBoundingClientRect would not do for the second read: for an inline
// element they hold only its own line boxes, the height of its font,
// while its content quads also take in what it wraps (an image, a block),
// so an image link or a link around a block never matched itself.
export function hitBox(read) {
  const quads = read && read.status === "fulfilled" && read.value ? read.value.quads : null;
  if (!quads || quads.length === 0) return null;
  const pts = quads.flat();
  const xs = pts.filter((_, i) => i % 2 === 0);
  const ys = pts.filter((_, i) => i % 2 === 1);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return [x, y, Math.max(...xs) - x, Math.max(...ys) - y];
}

// sameBox says whether two hitBox reads agree within 1 px (two reads with
// no quads agree too: the box model already showed the target rendered).
export function sameBox(a, b) {
  if (!a || !b) return a === b;
  return a.every((v, i) => Math.abs(v - b[i]) <= 1);
}

async function probeAim(ctx, action, enabled) {
  const { target, rest } = await resolveWith(ctx, action, (by, send) => [
    send("DOM.scrollIntoViewIfNeeded", by),
    send("DOM.getBoxModel", by),
    ctx.send("Page.getLayoutMetrics"),
    send("DOM.getContentQuads", by),
  ]);
  const [scrolled, boxed, metrics, quads] = rest;
  const { session, backendNodeId, objectId, label } = target;
  const send = sessionSend(ctx, session);
  const force = action.force === true;
  if (scrolled.status === "rejected" || boxed.status === "rejected") {
    if (!(await isConnected(ctx, objectId, session))) throw gone(label);
    if (force && scrolled.status === "rejected") throw notFound(`${label} is not visible: it is not rendered (${scrolled.reason.cdpMessage})`);
    if (force) throw notFound(`${label} is not visible: it has no box (hidden or not rendered)`);
    return { ok: false, why: "not visible (not rendered)" };
  }
  if (metrics.status === "rejected") throw metrics.reason;
  const { model } = boxed.value;
  if (!model || model.width === 0 || model.height === 0) {
    if (force) throw notFound(`${label} is not visible: it has zero size`);
    return { ok: false, why: "not visible (zero size)" };
  }
  const q = model.border;
  // The box model is in the viewport of the node's session: the tab's, or
  // an out-of-process iframe's own, which frameOrigin places in the tab's.
  const local = aimPoint(q, quads.status === "fulfilled" ? quads.value.quads : null);
  const origin = session ? await frameOrigin(ctx, session) : { x: 0, y: 0, owner: null };
  const x = local.x + origin.x;
  const y = local.y + origin.y;
  // Input for an out-of-process iframe goes to its own session, at the
  // point in its viewport: sent to the tab's, Chromium routes it by a hit
  // test on the frames the compositor drew, and a tab that draws none (a
  // background tab, a minimized BUA window) would route it to the page.
  const to = session ? { session, x: local.x, y: local.y } : null;
  if (force) return { ok: true, x, y, to, hidden: true }; // unknown: drawFrame costs one capture

  // getNodeForLocation hit-tests in document coordinates, while the box
  // model (and Input.dispatchMouseEvent) use the viewport: add the scroll.
  // In an out-of-process iframe the frame hit-tests itself (FRAME_HIT) and
  // the tab's hit test must land on the frame's iframe.
  const vv = metrics.value.cssVisualViewport;
  const tabHit = ctx.send("DOM.getNodeForLocation", {
    x: Math.floor(x + (vv ? vv.pageX : 0)),
    y: Math.floor(y + (vv ? vv.pageY : 0)),
    includeUserAgentShadowDOM: true,
    ignorePointerEventsNone: false,
  });
  const [checked, located, frameHit, requads] = await settle([
    send("Runtime.callFunctionOn", { objectId, functionDeclaration: ACTIONABLE, returnByValue: true }),
    tabHit,
    session ? send("Runtime.callFunctionOn", { objectId, functionDeclaration: FRAME_HIT, arguments: [{ value: local.x }, { value: local.y }], returnByValue: true }) : null,
    send("DOM.getContentQuads", { objectId }),
  ]);
  const st = checked.status === "fulfilled" && checked.value.result ? checked.value.result.value : null;
  if (!st || !st.connected) throw gone(label);
  if (!st.visible) return { ok: false, why: "not visible" };
  if (!sameBox(hitBox(quads), hitBox(requads))) return { ok: false, why: "not stable (it moved between two reads)" };
  if (st.animating) {
    const r = await send("Runtime.callFunctionOn", { objectId, functionDeclaration: STABLE, awaitPromise: true, returnByValue: true });
    const v = r.result && r.result.value;
    if (v === "no frames") return { ok: false, why: "not stable (animating, in a tab that draws no frames)" };
    if (v !== true) return { ok: false, why: "not stable (animating)" };
  }
  if (enabled && !st.enabled) return { ok: false, why: "not enabled" };
  // No node at the point means the centre is outside the viewport even
  // after scrolling (e.g. an element wider than the window).
  if (located.status === "rejected") return { ok: false, why: `outside the viewport at (${Math.round(x)}, ${Math.round(y)})` };
  const hit = located.value;
  if (session) {
    const fh = frameHit.status === "fulfilled" && frameHit.value.result ? frameHit.value.result.value : null;
    if (!fh || fh.outside) return { ok: false, why: `outside its frame's viewport at (${Math.round(local.x)}, ${Math.round(local.y)}) in the frame` };
    if (!fh.ok) return { ok: false, why: `covered by ${fh.cover}${fh.text ? ` ${JSON.stringify(fh.text)}` : ""} in its frame at (${Math.round(x)}, ${Math.round(y)})` };
    if (hit.backendNodeId !== origin.owner) {
      const c = await cover(ctx, hit.backendNodeId);
      return { ok: false, why: `covered by ${c} at (${Math.round(x)}, ${Math.round(y)}), over its frame` };
    }
    return { ok: true, x, y, to, hidden: st.hidden };
  }
  if (hit.backendNodeId !== backendNodeId) {
    let verdict = { ok: true };
    try {
      const { object } = await ctx.send("DOM.resolveNode", { backendNodeId: hit.backendNodeId, objectGroup: GROUP });
      const r = await ctx.send("Runtime.callFunctionOn", {
        objectId,
        functionDeclaration: HIT_CHECK,
        arguments: [{ objectId: object.objectId }],
        returnByValue: true,
      });
      if (r.result && r.result.value) verdict = r.result.value;
    } catch (e) {
      // The hit node lives in another frame's JS world, where containment
      // cannot be asked; the box model already placed the target there.
      if (!(e instanceof CdpError)) throw e;
    }
    if (!verdict.ok) {
      const text = verdict.text ? ` ${JSON.stringify(verdict.text)}` : "";
      return { ok: false, why: `covered by ${verdict.cover}${text} at (${Math.round(x)}, ${Math.round(y)})` };
    }
  }
  return { ok: true, x, y, hidden: st.hidden };
}

// cover describes the node a hit test found in the tab (COVER): "div#x
// \"text\"", or its node id when it cannot be read.
async function cover(ctx, backendNodeId) {
  try {
    const { object } = await ctx.send("DOM.resolveNode", { backendNodeId, objectGroup: GROUP });
    const r = await ctx.send("Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration: COVER, returnByValue: true });
    const v = r.result && r.result.value;
    if (v) return v.text ? `${v.cover} ${JSON.stringify(v.text)}` : v.cover;
  } catch (e) {
    if (!(e instanceof CdpError)) throw e;
  }
  return `node ${backendNodeId}`;
}

// frameOrigin places an out-of-process iframe's viewport in the tab's:
// {x, y} is the top-left of its iframe's content box, added up through
// every out-of-process ancestor (each box read in the parent's session,
// after scrolling the iframe into view there), and owner the backendNodeId,
// in the tab's session, of the outermost such iframe: where the tab's hit
// test must land. A frame gone since is element_not_found.
export async function frameOrigin(ctx, session) {
  const frames = new Map(ctx.frames().map((f) => [f.sessionId, f]));
  let x = 0;
  let y = 0;
  let owner = null;
  for (let s = session; s; ) {
    const f = frames.get(s);
    if (!f) throw notFound("its frame is no longer in the page");
    const send = sessionSend(ctx, f.parent);
    const { backendNodeId } = await send("DOM.getFrameOwner", { frameId: f.targetId });
    const [, boxed] = await Promise.all([
      send("DOM.scrollIntoViewIfNeeded", { backendNodeId }).catch(() => {}),
      send("DOM.getBoxModel", { backendNodeId }),
    ]);
    const c = boxed.model.content;
    x += c[0];
    y += c[1];
    owner = backendNodeId;
    s = f.parent;
  }
  return { x, y, owner };
}

// drawFrame makes a hidden page (a tab of the minimized BUA window) draw
// one compositor frame before a mouse event: Chrome routes mouse input by
// the hit-test data of the page's last frame, and drops it when the page
// has drawn none (a tab that became active while its window was
// minimized), while the action would report ok. A 1×1 capture draws one
// frame (about 20-40 ms, measured in e2e/person); a capture that stalls
// (see capture.js) is not waited for past DRAW_FRAME_MS.
// A managed (headless) browser needs none of this: its pages take mouse
// input without a frame drawn first (e2e TestClickBackgroundTab), and a
// capture there can stall for the whole DRAW_FRAME_MS.
const DRAW_FRAME_MS = 1000;
async function drawFrame(ctx) {
  if (ctx.managed && ctx.managed()) return;
  const shot = ctx.send("Page.captureScreenshot", { format: "jpeg", quality: 1, clip: { x: 0, y: 0, width: 1, height: 1, scale: 1 } });
  await Promise.race([shot.catch(() => {}), ctx.sleep(Math.min(DRAW_FRAME_MS, Math.max(0, ctx.budget.inner())))]);
}

// settleAfter runs act (the input) with the tab's navigation events
// watched, then settles (lib/settle.js): a navigation the input started is
// waited for until DOMContentLoaded, anything else for one page task. A
// tab the input opened is answered as newTabId (lib/new-tab.js).
export async function settleAfter(ctx, what, act) {
  const watch = watchNavigation(ctx, ctx.mainFrameId ? ctx.mainFrameId() : null);
  const popup = watchNewTab(ctx);
  try {
    await act();
    await watch.settle(what);
    const newTabId = await popup.opened();
    return newTabId === null ? { ok: true } : { ok: true, newTabId };
  } finally {
    watch.off();
    popup.off();
  }
}

// mouse sends one mouse event at the aim's point: the tab's, or for an
// out-of-process iframe (aim.to) its own session's and its point.
async function mouse(ctx, aim, type, extra) {
  const { x, y } = aim.to || aim;
  await sessionSend(ctx, aim.to ? aim.to.session : null)("Input.dispatchMouseEvent", { type, x, y, button: "none", buttons: 0, modifiers: 0, ...extra });
}

// BUTTON_BITS is Input.dispatchMouseEvent's `buttons` bit for each of
// click's buttons (the schema's action.click button, feature click_options).
const BUTTON_BITS = Object.freeze({ left: 1, right: 2, middle: 4, back: 8, forward: 16 });

export async function click(ctx, action) {
  const at = await aim(ctx, action);
  if (at.hidden) await drawFrame(ctx);
  // clickCount n is n presses and releases counting up, as a person's
  // double click reaches Chromium: the page sees click (detail 1), click
  // (detail 2), then dblclick.
  const button = action.button || "left";
  const press = () => {
    const sent = [mouse(ctx, at, "mouseMoved")];
    for (let n = 1; n <= (action.clickCount || 1); n++) {
      sent.push(
        mouse(ctx, at, "mousePressed", { button, buttons: BUTTON_BITS[button], clickCount: n }),
        mouse(ctx, at, "mouseReleased", { button, buttons: 0, clickCount: n }),
      );
    }
    return Promise.all(sent);
  };
  // Sent back to back without waiting between them: a debugger session
  // runs its commands in order, so the page still sees move, press,
  // release, and the click costs one round trip instead of three.
  return withDownload(ctx, action, "click", () => settleAfter(ctx, "click", press));
}

// hover waits as click does, except for enabled (Playwright's rule: a
// disabled control still shows its tooltip).
export async function hover(ctx, action) {
  const at = await aim(ctx, action, { enabled: false });
  if (at.hidden) await drawFrame(ctx);
  return settleAfter(ctx, "hover", () => mouse(ctx, at, "mouseMoved"));
}

// typeText focuses the target and inserts the text like a paste: Unicode
// goes through unchanged and no per-character key events are synthesised.
// Unless action.force, it first waits for the target to be visible,
// enabled and editable (Playwright's checks for fill: no hit test, as
// focus needs none). The probe that passes focuses the target in the same
// call, so the navigation watch of the settle starts before the probes: a
// focus handler may navigate.
export async function typeText(ctx, action) {
  const force = action.force === true;
  return settleAfter(ctx, "type", async () => {
    await waitActionable(ctx, action, () => typeProbe(ctx, action, force));
    if (action.clear) await clearFocused(ctx);
    if (action.text.length > 0) await ctx.send("Input.insertText", { text: action.text });
  });
}

// TYPE_PROBE runs in the page with `this` = the target: the actionability
// checks of type (ACTIONABLE; with force only that it is still in the
// page), then, when they pass, focus. It reports whether focus took: the
// focused element (through open shadow roots) is the target, focus moved
// (a wrapper that hands focus to its own input), or the target is a
// shadow host that holds it. An element that cannot take focus leaves it
// where it was, as DOM.focus would have refused it.
const TYPE_PROBE = `function (force) { /* bua:type */
  const el = this;
  const st = force ? { connected: el.isConnected === true } : (${ACTIONABLE}).call(el);
  if (!st.connected || (!force && !(st.visible && st.enabled && st.editable))) return st;
  const active = () => {
    let a = (el.ownerDocument || document).activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  const before = active();
  if (typeof el.focus === "function") el.focus();
  const after = active();
  let inside = false;
  for (let n = after; n && !inside; n = n.parentNode || n.host || null) inside = n === el;
  st.focused = after === el || after !== before || (inside && Boolean(el.shadowRoot));
  return st;
}`;

// typeProbe runs TYPE_PROBE on the target in one round trip: by selector,
// the lookup runs in the same evaluate; by uid or by selector in a frame,
// on the resolved node, in its session (an out-of-process iframe's focus
// moves the tab's focused frame there, where Input.insertText then goes,
// as a person's typing would).
async function typeProbe(ctx, action, force) {
  const label = describeTarget(action);
  let r;
  if (action.selector !== undefined && action.frame === undefined) {
    const sel = JSON.stringify(action.selector);
    r = await ctx.send("Runtime.evaluate", {
      expression: `(() => { let el; try { el = document.querySelector(${sel}); } catch (e) { return { invalid: String(e) }; } return el ? (${TYPE_PROBE}).call(el, ${force}) : { found: false }; })()`,
      returnByValue: true,
    });
  } else {
    const { target } = await resolveWith(ctx, action);
    r = await sessionSend(ctx, target.session)("Runtime.callFunctionOn", {
      objectId: target.objectId,
      functionDeclaration: TYPE_PROBE,
      arguments: [{ value: force }],
      returnByValue: true,
    });
  }
  if (r.exceptionDetails) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `the checks before type failed in the page: ${r.exceptionDetails.text}`);
  const st = r.result && r.result.value;
  if (st && st.invalid !== undefined) throw invalid(`invalid CSS selector ${JSON.stringify(action.selector)}: ${String(st.invalid).split("\n")[0]}`);
  if (st && st.found === false) throw noMatch(action.selector);
  if (!st || !st.connected) throw gone(label);
  if (!force) {
    if (!st.visible) return { ok: false, why: "not visible" };
    if (!st.enabled) return { ok: false, why: "not enabled" };
    if (!st.editable) return { ok: false, why: "not editable (read-only)" };
  }
  if (!st.focused) throw notFound(`${label} cannot take focus: it is not an input, textarea or editable element`);
  return { ok: true };
}

export async function pressKey(ctx, action) {
  let events;
  try {
    events = keyEvents(action.key);
  } catch (e) {
    if (e instanceof RangeError) throw invalid(e.message);
    throw e;
  }
  return withDownload(ctx, action, "press_key", () =>
    settleAfter(ctx, "press_key", async () => {
      for (const ev of events) await ctx.send("Input.dispatchKeyEvent", ev);
    }),
  );
}

// scroll moves the page by amount CSS pixels (default one viewport height).
// It scrolls the document, and when the document cannot move (app shells
// whose body does not scroll) the scrollable element under the viewport
// centre, which is what a wheel there would move. window.scrollBy rather
// than a synthetic wheel: wheel events are handled asynchronously by the
// compositor, and not at all in a hidden tab, so the next action could see
// the old position. It returns whether anything moved: a page already at
// the end in that direction, or one that cannot scroll, gives false. A
// scrollable element that is already at its end passes the scroll on to
// the next one up, as a wheel would.
const SCROLL_FN = `function (dir, amount) {
  const dy = (amount || window.innerHeight || 600) * (dir === "up" ? -1 : 1);
  const before = window.scrollY;
  window.scrollBy({ top: dy, left: 0, behavior: "instant" });
  if (window.scrollY !== before) return true;
  let el = document.elementFromPoint(window.innerWidth / 2, window.innerHeight / 2);
  for (; el; el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null) {
    const oy = getComputedStyle(el).overflowY;
    if (/(auto|scroll|overlay)/.test(oy) && el.scrollHeight > el.clientHeight) {
      const top = el.scrollTop;
      el.scrollBy({ top: dy, left: 0, behavior: "instant" });
      if (el.scrollTop !== top) return true;
    }
  }
  return false;
}`;

export async function scroll(ctx, action) {
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: `(${SCROLL_FN})(${JSON.stringify(action.direction)}, ${Number(action.amount) || 0})`,
    returnByValue: true,
  });
  if (exceptionDetails) {
    throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `scroll failed in the page: ${exceptionDetails.text}`);
  }
  // The schema's result.scroll: scrolled says whether the position changed.
  return { ok: true, scrolled: Boolean(result && result.value === true) };
}

export const executors = Object.freeze({ click, hover, type: typeText, press_key: pressKey, scroll });
