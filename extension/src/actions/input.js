// click, hover, type, press_key, scroll: trusted input through the Input
// domain (events reach the page with isTrusted = true), aimed by backend
// node id, never by re-querying a selector in the page.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { CdpError, invalid, notFound } from "../lib/cdp.js";
import { keyEvents } from "../lib/keys.js";
import { watchNavigation } from "../lib/settle.js";
import { describeRoleTarget, findByRole } from "../lib/role-target.js";

const GROUP = "bua";

export function describeTarget(action) {
  if (action.role !== undefined) return describeRoleTarget(action);
  return action.uid !== undefined ? `uid ${action.uid}` : `selector ${JSON.stringify(action.selector)}`;
}

// resolveWith turns {uid}, {selector} or {role, name, nth} into a live node,
// {backendNodeId, objectId, label}, and sends `also(by)` (commands that
// need only the node's id) in the same round trip, returning their settled
// results as `rest`. A uid missing from the cache, or from an older
// document, is element_stale; a node that is gone from the page is
// element_not_found. A detached node still resolves and still accepts box
// and focus queries, so callers that act on it check isConnected first.
// A selector is looked up in the page (findSelector), and the commands go
// by the remote object it returns. A role target is looked up in the
// accessibility tree (lib/role-target.js) on every call, so each
// actionability probe finds the element afresh, and the commands go by the
// backendNodeId it names.
async function resolveWith(ctx, action, also = () => []) {
  const label = describeTarget(action);
  if (action.role !== undefined) {
    const { backendNodeId } = await findByRole(ctx, action);
    const by = { backendNodeId };
    const [resolved, ...rest] = await settle([ctx.send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by)]);
    if (resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) throw gone(label);
    return { target: { backendNodeId, objectId: resolved.value.object.objectId, label }, rest };
  }
  if (action.selector !== undefined) {
    const objectId = await findSelector(ctx, action.selector);
    const by = { objectId };
    const [described, ...rest] = await settle([ctx.send("DOM.describeNode", by), ...also(by)]);
    if (described.status === "rejected") throw gone(label);
    return { target: { backendNodeId: described.value.node.backendNodeId, objectId, label }, rest };
  }
  const u = ctx.uidNode(action.uid);
  const by = { backendNodeId: u.id };
  const [doc, resolved, ...rest] = await settle([u.current, ctx.send("DOM.resolveNode", { ...by, objectGroup: GROUP }), ...also(by)]);
  if (doc.status === "rejected") throw doc.reason; // element_stale: a newer document
  if (resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) throw gone(label);
  return { target: { backendNodeId: u.id, objectId: resolved.value.object.objectId, label }, rest };
}

// findSelector returns the remote object of the first match of selector in
// the main document, as DOM.querySelector would find it, in one round trip
// (DOM.getDocument then DOM.querySelector took two, and querySelector
// pushes the path to the node into the DOM agent). No match is
// element_not_found; a malformed selector is the caller's bug:
// invalid_action.
async function findSelector(ctx, selector) {
  const r = await ctx.send("Runtime.evaluate", { expression: `document.querySelector(${JSON.stringify(selector)})`, objectGroup: GROUP });
  if (r.exceptionDetails) throw invalidSelector(selector, r.exceptionDetails);
  if (!r.result || r.result.subtype !== "node" || !r.result.objectId) throw noMatch(selector);
  return r.result.objectId;
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

function gone(label) {
  const since = label.startsWith("uid ") ? "the extract" : "it was found";
  return notFound(`${label} is no longer in the page (removed since ${since})`);
}

// isConnected asks the page whether the resolved node is still in its
// document: a detached node still resolves and still answers box and focus
// queries, so without this an action on a removed node would report ok.
async function isConnected(ctx, objectId) {
  const r = await ctx.send("Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: "function () { return this.isConnected === true; }",
    returnByValue: true,
  });
  return Boolean(r.result && r.result.value === true);
}

// connectedObject resolves backendNodeId to a remote object if the node is
// still connected to its document, else returns null.
export async function connectedObject(ctx, backendNodeId) {
  let object;
  try {
    ({ object } = await ctx.send("DOM.resolveNode", { backendNodeId, objectGroup: GROUP }));
  } catch (e) {
    if (e instanceof CdpError) return null;
    throw e;
  }
  if (!object || !object.objectId) return null;
  return (await isConnected(ctx, object.objectId)) ? object.objectId : null;
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

// ACTIONABLE runs in the page with `this` = the target and returns what
// the actionability checks need (docs/extension.md §Actionability): still
// connected, visible (a non-empty box, not visibility:hidden), enabled (not
// :disabled, itself or through a fieldset, and not inside
// aria-disabled="true"), editable (not a read-only input), its viewport
// rect when it lives in the top document (to compare with the box model
// for stability), and whether a running animation moves it or an ancestor.
const ACTIONABLE = `function () { /* bua:actionable */
  const el = this;
  if (!el.isConnected) return { connected: false };
  const e = el.nodeType === 1 ? el : el.parentElement;
  if (!e) return { connected: true, visible: false, enabled: true, editable: true, rect: null, animating: false };
  const r = e.getBoundingClientRect();
  const visible = r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden" &&
    (typeof e.checkVisibility !== "function" || e.checkVisibility());
  const disabled = (e.matches(":disabled")) || Boolean(e.closest('[aria-disabled="true"]'));
  const editable = !(/^(input|textarea)$/.test(e.localName) && e.readOnly);
  let animating = false;
  if (typeof document.getAnimations === "function") {
    for (const a of document.getAnimations()) {
      const t = a.effect && a.effect.target;
      if (a.playState === "running" && t && t.contains && t.contains(e)) { animating = true; break; }
    }
  }
  const top = window === window.top;
  const hidden = document.visibilityState === "hidden";
  return { connected: true, visible, enabled: !disabled, editable, rect: top ? [r.x, r.y, r.width, r.height] : null, animating, hidden };
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

// waitActionable runs probe until it returns {ok: true, ...} or the
// action's budget (lib/budget.js) runs out, which is timeout naming the
// check that failed last. A probe throws for what waiting cannot fix: a
// stale uid, a selector with no match, a node removed from the page.
async function waitActionable(ctx, action, probe) {
  const started = Date.now();
  let why = "";
  let slowest = 0; // the longest probe so far: the next one must fit too
  for (let i = 0; ; i++) {
    const t0 = Date.now();
    const r = await probe();
    slowest = Math.max(slowest, Date.now() - t0);
    if (r.ok) return r;
    why = r.why;
    const pause = POLL_MS[Math.min(i, POLL_MS.length - 1)];
    // Stop while there is room to say which check failed: a probe that
    // would outrun the budget ends in the controller's bare watchdog
    // timeout instead (a slow page, a loaded machine).
    if (ctx.budget.inner() <= pause + slowest) break;
    await ctx.sleep(pause);
  }
  throw new BridgeError(
    ErrorCodes.TIMEOUT,
    `${describeTarget(action)} is ${why} (waited ${Date.now() - started} ms for it to be actionable; force: true skips the checks)`,
  );
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

async function probeAim(ctx, action, enabled) {
  const { target, rest } = await resolveWith(ctx, action, (by) => [
    ctx.send("DOM.scrollIntoViewIfNeeded", by),
    ctx.send("DOM.getBoxModel", by),
    ctx.send("Page.getLayoutMetrics"),
    ctx.send("DOM.getContentQuads", by),
  ]);
  const [scrolled, boxed, metrics, quads] = rest;
  const { backendNodeId, objectId, label } = target;
  const force = action.force === true;
  if (scrolled.status === "rejected" || boxed.status === "rejected") {
    if (!(await isConnected(ctx, objectId))) throw gone(label);
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
  const { x, y } = aimPoint(q, quads.status === "fulfilled" ? quads.value.quads : null);
  if (force) return { ok: true, x, y, hidden: true }; // unknown: drawFrame costs one capture

  // getNodeForLocation hit-tests in document coordinates, while the box
  // model (and Input.dispatchMouseEvent) use the viewport: add the scroll.
  const vv = metrics.value.cssVisualViewport;
  const [checked, located] = await settle([
    ctx.send("Runtime.callFunctionOn", { objectId, functionDeclaration: ACTIONABLE, returnByValue: true }),
    ctx.send("DOM.getNodeForLocation", {
      x: Math.floor(x + (vv ? vv.pageX : 0)),
      y: Math.floor(y + (vv ? vv.pageY : 0)),
      includeUserAgentShadowDOM: true,
      ignorePointerEventsNone: false,
    }),
  ]);
  const st = checked.status === "fulfilled" && checked.value.result ? checked.value.result.value : null;
  if (!st || !st.connected) throw gone(label);
  if (!st.visible) return { ok: false, why: "not visible" };
  if (st.rect) {
    // Stable: the box read before the scroll settled and the rect read now agree.
    // Compare like with like: getBoundingClientRect bounds every fragment
    // of the element (all line boxes of a wrapped link), as its content
    // quads do; the border box of an inline element does not.
    const pts = quads.status === "fulfilled" && quads.value.quads && quads.value.quads.length ? quads.value.quads.flat() : q;
    const xs = pts.filter((_, i) => i % 2 === 0);
    const ys = pts.filter((_, i) => i % 2 === 1);
    const bx = [Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)];
    if (bx.some((v, i) => Math.abs(v - st.rect[i]) > 1)) return { ok: false, why: "not stable (it moved between two reads)" };
  }
  if (st.animating) {
    const r = await ctx.send("Runtime.callFunctionOn", { objectId, functionDeclaration: STABLE, awaitPromise: true, returnByValue: true });
    const v = r.result && r.result.value;
    if (v === "no frames") return { ok: false, why: "not stable (animating, in a tab that draws no frames)" };
    if (v !== true) return { ok: false, why: "not stable (animating)" };
  }
  if (enabled && !st.enabled) return { ok: false, why: "not enabled" };
  // No node at the point means the centre is outside the viewport even
  // after scrolling (e.g. an element wider than the window).
  if (located.status === "rejected") return { ok: false, why: `outside the viewport at (${Math.round(x)}, ${Math.round(y)})` };
  const hit = located.value;
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
// waited for until DOMContentLoaded, anything else for one page task.
async function settleAfter(ctx, what, act) {
  const watch = watchNavigation(ctx, ctx.mainFrameId ? ctx.mainFrameId() : null);
  try {
    await act();
    await watch.settle(what);
  } finally {
    watch.off();
  }
  return { ok: true };
}

async function mouse(ctx, type, x, y, extra) {
  await ctx.send("Input.dispatchMouseEvent", { type, x, y, button: "none", buttons: 0, modifiers: 0, ...extra });
}

export async function click(ctx, action) {
  const { x, y, hidden } = await aim(ctx, action);
  if (hidden) await drawFrame(ctx);
  // Sent back to back without waiting between them: a debugger session
  // runs its commands in order, so the page still sees move, press,
  // release, and the click costs one round trip instead of three.
  return settleAfter(ctx, "click", () =>
    Promise.all([
      mouse(ctx, "mouseMoved", x, y),
      mouse(ctx, "mousePressed", x, y, { button: "left", buttons: 1, clickCount: 1 }),
      mouse(ctx, "mouseReleased", x, y, { button: "left", buttons: 0, clickCount: 1 }),
    ]),
  );
}

// hover waits as click does, except for enabled (Playwright's rule: a
// disabled control still shows its tooltip).
export async function hover(ctx, action) {
  const { x, y, hidden } = await aim(ctx, action, { enabled: false });
  if (hidden) await drawFrame(ctx);
  return settleAfter(ctx, "hover", () => mouse(ctx, "mouseMoved", x, y));
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
// the lookup runs in the same evaluate; by uid, on the resolved node.
async function typeProbe(ctx, action, force) {
  const label = describeTarget(action);
  let r;
  if (action.selector !== undefined) {
    const sel = JSON.stringify(action.selector);
    r = await ctx.send("Runtime.evaluate", {
      expression: `(() => { let el; try { el = document.querySelector(${sel}); } catch (e) { return { invalid: String(e) }; } return el ? (${TYPE_PROBE}).call(el, ${force}) : { found: false }; })()`,
      returnByValue: true,
    });
  } else {
    const { target } = await resolveWith(ctx, action);
    r = await ctx.send("Runtime.callFunctionOn", {
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
  return settleAfter(ctx, "press_key", async () => {
    for (const ev of events) await ctx.send("Input.dispatchKeyEvent", ev);
  });
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
