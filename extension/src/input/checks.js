// The page side of actionability (docs/extension.md §Actionability): the
// functions the checks run in the page, on the target (`this`), as
// Playwright's injected script owns its state checks. Each travels as
// source text to Runtime.callFunctionOn; input/actionability.js judges what
// they answer.

// ACTIONABLE runs in the page with `this` = the target and returns what
// the actionability checks need: still connected, visible (a non-empty
// box, not visibility:hidden), enabled (not :disabled, itself or through a
// fieldset, and not inside aria-disabled="true"), editable (not a
// read-only input), whether a running animation moves it or an ancestor,
// and whether its document is hidden (input/input.js drawFrame).
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
export const STABLE = `function () {
  const rect = () => { const r = this.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); };
  const before = rect();
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve("no frames"), 100);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); resolve(rect() === before); }));
  });
}`;

// HIT_CHECK runs in the page with `this` = the target and hit = the node
// at the click point: the hit is fine if it is the target or inside it
// (crossing shadow boundaries, including the user-agent shadow tree of
// inputs), or if the hit is a shadow host whose open shadow tree holds the
// target (retargeted hit test). Otherwise it describes the covering
// element for the message.
export const HIT_CHECK = `function (hit) {
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
export const FRAME_HIT = `function (x, y) {
  const hit = (this.ownerDocument || document).elementFromPoint(x, y);
  if (!hit) return { ok: false, outside: true };
  return (${HIT_CHECK}).call(this, hit);
}`;

// COVER runs in the page with `this` = the node a hit test found instead
// of the target: a short description for the message.
export const COVER = `function () {
  let el = this;
  while (el && el.nodeType !== 1) el = el.parentNode || el.host || null;
  if (!el) return { cover: String(this.nodeName), text: "" };
  let d = el.localName;
  if (el.id) d += "#" + el.id;
  if (el.classList) for (const c of Array.from(el.classList).slice(0, 3)) d += "." + c;
  return { cover: d, text: String(el.innerText || el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60) };
}`;

// TYPE_PROBE runs in the page with `this` = the target: the actionability
// checks of type (ACTIONABLE; with force only that it is still in the
// page), then, when they pass, focus. It reports whether focus took: the
// focused element (through open shadow roots) is the target, focus moved
// (a wrapper that hands focus to its own input), or the target is a
// shadow host that holds it. An element that cannot take focus leaves it
// where it was, as DOM.focus would have refused it.
export const TYPE_PROBE = `function (force) { /* bua:type */
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
