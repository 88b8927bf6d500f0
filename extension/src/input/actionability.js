// Actionability (docs/extension.md §Actionability): before its input,
// unless the action has force: true, an action waits until its target is
// actionable, as Playwright does. One retry loop, waitActionable, runs
// every wait (a pointer's, type's, select_option's): it locates the target
// afresh (target/locate.js), checks it (the page side is input/checks.js), and
// retries after a pause until the checks pass or the time is up. A pointer
// action (click, hover) goes through retryPointerAction, which then acts
// at the point the last check found, as Playwright's _retryPointerAction.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError, invalid, notFound, sessionSend } from "../core/cdp.js";
import { GROUP, describeTarget, gone, isConnected, locate, noMatch, settled } from "../target/locate.js";
import { aimPoint, frameOrigin, hitBox, sameBox } from "./geometry.js";
import { ACTIONABLE, COVER, FRAME_HIT, HIT_CHECK, STABLE, TYPE_PROBE } from "./checks.js";

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

// retryPointerAction locates the target, checks that it is actionable and
// finds where a pointer lands on it, retrying until it is (waitActionable,
// unless action.force), then acts there: act(at) with at = {x, y, to,
// hidden}, the point in the tab's viewport (to: the point in an
// out-of-process iframe's own, and its session) and whether its page is
// hidden (input/input.js drawFrame). enabled: false skips the enabled check
// (hover: a disabled control still shows its tooltip). chrome.debugger
// adds a hop to every call, so each probe travels in as few round trips as
// its dependencies allow: everything that needs only the node's id goes at
// once (a debugger session runs its commands in order, so the box is read
// after the scroll), then the page-side checks with the hit test.
export async function retryPointerAction(ctx, action, { enabled = true } = {}, act) {
  const at = await waitActionable(ctx, action, () => pointerProbe(ctx, action, enabled));
  return act(at);
}

// pointerProbe is one attempt: locate, scroll into view, box, then (unless
// force) the checks. It answers {ok: true, x, y, to, hidden} or {ok:
// false, why}, or throws what waiting cannot fix.
async function pointerProbe(ctx, action, enabled) {
  const { target, rest } = await locate(ctx, action, (by, send) => [
    send("DOM.scrollIntoViewIfNeeded", by),
    send("DOM.getBoxModel", by),
    ctx.send("Page.getLayoutMetrics"),
    send("DOM.getContentQuads", by),
  ]);
  const [scrolled, boxed, metrics, quads] = rest;
  const force = action.force === true;
  const box = await rendered(ctx, target, { scrolled, boxed, metrics }, force);
  if (!box.ok) return box;
  // The box model is in the viewport of the node's session: the tab's, or
  // an out-of-process iframe's own, which frameOrigin places in the tab's.
  const local = aimPoint(box.model.border, quads.status === "fulfilled" ? quads.value.quads : null);
  const origin = target.session ? await frameOrigin(ctx, target.session) : { x: 0, y: 0, owner: null };
  const point = { local, x: local.x + origin.x, y: local.y + origin.y, origin };
  // Input for an out-of-process iframe goes to its own session, at the
  // point in its viewport: sent to the tab's, Chromium routes it by a hit
  // test on the frames the compositor drew, and a tab that draws none (a
  // background tab, a minimized BUA window) would route it to the page.
  const to = target.session ? { session: target.session, x: local.x, y: local.y } : null;
  if (force) return { ok: true, x: point.x, y: point.y, to, hidden: true }; // unknown: drawFrame costs one capture
  return checkPoint(ctx, target, point, { metrics: metrics.value, quads, enabled, to });
}

// rendered judges the scroll, box and layout reads: {ok: true, model}, or
// {ok: false, why} to wait on, or (with force, or for a node gone) the
// error.
async function rendered(ctx, target, { scrolled, boxed, metrics }, force) {
  const { session, objectId, label } = target;
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
  return { ok: true, model };
}

// checkPoint runs the page-side checks and the hit test at the aim point,
// all at once: visible, stable, enabled, and the node a click there lands
// on. getNodeForLocation hit-tests in document coordinates, while the box
// model (and Input.dispatchMouseEvent) use the viewport: add the scroll.
// In an out-of-process iframe the frame hit-tests itself (FRAME_HIT) and
// the tab's hit test must land on the frame's iframe.
async function checkPoint(ctx, target, point, { metrics, quads, enabled, to }) {
  const { session, objectId, label } = target;
  const send = sessionSend(ctx, session);
  const vv = metrics.cssVisualViewport;
  const tabHit = ctx.send("DOM.getNodeForLocation", {
    x: Math.floor(point.x + (vv ? vv.pageX : 0)),
    y: Math.floor(point.y + (vv ? vv.pageY : 0)),
    includeUserAgentShadowDOM: true,
    ignorePointerEventsNone: false,
  });
  const [checked, located, framed, requads] = await settled([
    send("Runtime.callFunctionOn", { objectId, functionDeclaration: ACTIONABLE, returnByValue: true }),
    tabHit,
    session ? send("Runtime.callFunctionOn", { objectId, functionDeclaration: FRAME_HIT, arguments: [{ value: point.local.x }, { value: point.local.y }], returnByValue: true }) : null,
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
  if (located.status === "rejected") return { ok: false, why: `outside the viewport at (${Math.round(point.x)}, ${Math.round(point.y)})` };
  const verdict = session ? await frameHitVerdict(ctx, point, located.value, framed) : await hitVerdict(ctx, target, point, located.value);
  return verdict.ok ? { ok: true, x: point.x, y: point.y, to, hidden: st.hidden } : verdict;
}

// frameHitVerdict judges the hits for a target in an out-of-process
// iframe: the frame's own (FRAME_HIT) must be the target, and the tab's
// must be the frame's iframe, so an overlay in the page over the frame is
// named.
async function frameHitVerdict(ctx, point, hit, framed) {
  const { x, y, local, origin } = point;
  const fh = framed.status === "fulfilled" && framed.value.result ? framed.value.result.value : null;
  if (!fh || fh.outside) return { ok: false, why: `outside its frame's viewport at (${Math.round(local.x)}, ${Math.round(local.y)}) in the frame` };
  if (!fh.ok) return { ok: false, why: `covered by ${fh.cover}${fh.text ? ` ${JSON.stringify(fh.text)}` : ""} in its frame at (${Math.round(x)}, ${Math.round(y)})` };
  if (hit.backendNodeId !== origin.owner) {
    const c = await cover(ctx, hit.backendNodeId);
    return { ok: false, why: `covered by ${c} at (${Math.round(x)}, ${Math.round(y)}), over its frame` };
  }
  return { ok: true };
}

// hitVerdict judges the tab's hit test for a target in the tab's own
// session: the node hit is the target, or inside it (HIT_CHECK).
async function hitVerdict(ctx, target, point, hit) {
  if (hit.backendNodeId === target.backendNodeId) return { ok: true };
  let verdict = { ok: true };
  try {
    const { object } = await ctx.send("DOM.resolveNode", { backendNodeId: hit.backendNodeId, objectGroup: GROUP });
    const r = await ctx.send("Runtime.callFunctionOn", {
      objectId: target.objectId,
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
  if (verdict.ok) return verdict;
  const text = verdict.text ? ` ${JSON.stringify(verdict.text)}` : "";
  return { ok: false, why: `covered by ${verdict.cover}${text} at (${Math.round(point.x)}, ${Math.round(point.y)})` };
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

// typeProbe is one attempt of type's wait: TYPE_PROBE on the target in one
// round trip, which checks visible, enabled and editable (Playwright's
// checks for fill: no hit test, as focus needs none) and, once they pass,
// focuses it. By selector, the lookup runs in the same evaluate; by uid or
// by selector in a frame, on the located node, in its session (an
// out-of-process iframe's focus moves the tab's focused frame there, where
// Input.insertText then goes, as a person's typing would).
export async function typeProbe(ctx, action, force) {
  const label = describeTarget(action);
  let r;
  if (action.selector !== undefined && action.frame === undefined) {
    const sel = JSON.stringify(action.selector);
    r = await ctx.send("Runtime.evaluate", {
      expression: `(() => { let el; try { el = document.querySelector(${sel}); } catch (e) { return { invalid: String(e) }; } return el ? (${TYPE_PROBE}).call(el, ${force}) : { found: false }; })()`,
      returnByValue: true,
    });
  } else {
    const { target } = await locate(ctx, action);
    r = await sessionSend(ctx, target.session)("Runtime.callFunctionOn", {
      objectId: target.objectId,
      functionDeclaration: TYPE_PROBE,
      arguments: [{ value: force }],
      returnByValue: true,
    });
  }
  if (r.exceptionDetails) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `the checks before type failed in the page: ${r.exceptionDetails.text}`);
  return typeVerdict(action, label, r.result && r.result.value, force);
}

// typeVerdict turns TYPE_PROBE's answer into a probe result, or the error
// waiting cannot fix.
function typeVerdict(action, label, st, force) {
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
