// click, hover, type, press_key, scroll: trusted input through the Input
// domain (events reach the page with isTrusted = true), aimed by backend
// node id, never by re-querying a selector in the page.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { CdpError, invalid, notFound } from "../lib/cdp.js";
import { keyEvents } from "../lib/keys.js";

const GROUP = "bua";

function describeTarget(action) {
  return action.uid !== undefined ? `uid ${action.uid}` : `selector ${JSON.stringify(action.selector)}`;
}

// resolveWith turns {uid} or {selector} into a live node,
// {backendNodeId, objectId, label}, and sends `also(by)` (commands that
// need only the node's id) in the same round trip, returning their settled
// results as `rest`. A uid missing from the cache, or from an older
// document, is element_stale; a node that is gone from the page is
// element_not_found. A detached node still resolves and still accepts box
// and focus queries, so callers that act on it check isConnected first.
async function resolveWith(ctx, action, also = () => []) {
  const label = describeTarget(action);
  let by;
  let current = Promise.resolve();
  if (action.selector !== undefined) {
    const nodeId = await querySelectorNodeId(ctx, action.selector);
    if (!nodeId) throw notFound(`no element matches selector ${JSON.stringify(action.selector)}`);
    by = { nodeId };
  } else {
    const u = ctx.uidNode(action.uid);
    by = { backendNodeId: u.id };
    current = u.current;
  }
  const [doc, described, resolved, ...rest] = await settle([
    current,
    by.nodeId !== undefined ? ctx.send("DOM.describeNode", by) : Promise.resolve({ node: { backendNodeId: by.backendNodeId } }),
    ctx.send("DOM.resolveNode", { ...by, objectGroup: GROUP }),
    ...also(by),
  ]);
  if (doc.status === "rejected") throw doc.reason; // element_stale: a newer document
  if (described.status === "rejected" || resolved.status === "rejected" || !resolved.value.object || !resolved.value.object.objectId) {
    throw gone(label);
  }
  const target = { backendNodeId: described.value.node.backendNodeId, objectId: resolved.value.object.objectId, label };
  return { target, rest };
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
  return notFound(`${label} is no longer in the page (removed since the extract)`);
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

// querySelectorNodeId returns the first match's nodeId in the main
// document, or 0 for no match. A malformed selector is the caller's bug:
// invalid_action.
async function querySelectorNodeId(ctx, selector) {
  const { root } = await ctx.send("DOM.getDocument", { depth: 0 });
  try {
    const { nodeId } = await ctx.send("DOM.querySelector", { nodeId: root.nodeId, selector });
    return nodeId;
  } catch (e) {
    if (e instanceof CdpError) throw invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${e.cdpMessage}`);
    throw e;
  }
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

// aim finds where to click the target: the centre of its border box in
// viewport CSS pixels, after scrolling it into view and checking that it is
// still in the page and that a click there would land on it, not on an
// overlay. chrome.debugger adds a hop to every call, so the checks travel
// in as few round trips as their dependencies allow: everything that needs
// only the node's id goes at once (a debugger session runs its commands in
// order, so the box is read after the scroll), then the "still in the
// page" check with the hit test. All of it completes before any input.
export async function aim(ctx, action) {
  const { target, rest } = await resolveWith(ctx, action, (by) => [
    ctx.send("DOM.scrollIntoViewIfNeeded", by),
    ctx.send("DOM.getBoxModel", by),
    ctx.send("Page.getLayoutMetrics"),
  ]);
  const [scrolled, boxed, metrics] = rest;
  const { backendNodeId, objectId, label } = target;
  if (scrolled.status === "rejected" || boxed.status === "rejected") {
    if (!(await isConnected(ctx, objectId))) throw gone(label);
    if (scrolled.status === "rejected") throw notFound(`${label} is not rendered (${scrolled.reason.cdpMessage})`);
    throw notFound(`${label} has no box: it is hidden or not rendered`);
  }
  if (metrics.status === "rejected") throw metrics.reason;
  const { model } = boxed.value;
  if (!model || model.width === 0 || model.height === 0) throw notFound(`${label} has zero size: it is hidden`);
  const q = model.border;
  const x = (q[0] + q[2] + q[4] + q[6]) / 4;
  const y = (q[1] + q[3] + q[5] + q[7]) / 4;

  // getNodeForLocation hit-tests in document coordinates, while the box
  // model (and Input.dispatchMouseEvent) use the viewport: add the scroll.
  const vv = metrics.value.cssVisualViewport;
  const [connected, located] = await settle([
    isConnected(ctx, objectId),
    ctx.send("DOM.getNodeForLocation", {
      x: Math.floor(x + (vv ? vv.pageX : 0)),
      y: Math.floor(y + (vv ? vv.pageY : 0)),
      includeUserAgentShadowDOM: true,
      ignorePointerEventsNone: false,
    }),
  ]);
  if (connected.status === "rejected" || !connected.value) throw gone(label);
  // No node at the point means the centre is outside the viewport even
  // after scrolling (e.g. an element wider than the window).
  if (located.status === "rejected") throw notFound(`${label} is outside the viewport at (${Math.round(x)}, ${Math.round(y)})`);
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
      throw notFound(
        `${label} is covered by ${verdict.cover}${text} at (${Math.round(x)}, ${Math.round(y)})`,
      );
    }
  }
  return { x, y };
}

async function mouse(ctx, type, x, y, extra) {
  await ctx.send("Input.dispatchMouseEvent", { type, x, y, button: "none", buttons: 0, modifiers: 0, ...extra });
}

export async function click(ctx, action) {
  const { x, y } = await aim(ctx, action);
  // Sent back to back without waiting between them: a debugger session
  // runs its commands in order, so the page still sees move, press,
  // release, and the click costs one round trip instead of three.
  await Promise.all([
    mouse(ctx, "mouseMoved", x, y),
    mouse(ctx, "mousePressed", x, y, { button: "left", buttons: 1, clickCount: 1 }),
    mouse(ctx, "mouseReleased", x, y, { button: "left", buttons: 0, clickCount: 1 }),
  ]);
  return { ok: true };
}

export async function hover(ctx, action) {
  const { x, y } = await aim(ctx, action);
  await mouse(ctx, "mouseMoved", x, y);
  return { ok: true };
}

// typeText focuses the target and inserts the text like a paste: Unicode
// goes through unchanged and no per-character key events are synthesised.
export async function typeText(ctx, action) {
  const { target: t } = await resolveWith(ctx, action);
  if (!(await isConnected(ctx, t.objectId))) throw gone(t.label);
  try {
    await ctx.send("DOM.focus", { backendNodeId: t.backendNodeId });
  } catch (e) {
    if (e instanceof CdpError) throw notFound(`${t.label} cannot take focus (${e.cdpMessage}): it is not an input, textarea or editable element`);
    throw e;
  }
  if (action.text.length > 0) await ctx.send("Input.insertText", { text: action.text });
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
  for (const ev of events) await ctx.send("Input.dispatchKeyEvent", ev);
  return { ok: true };
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
