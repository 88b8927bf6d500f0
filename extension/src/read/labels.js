// screenshot's labels: true (feature screenshot_labels): set-of-marks, each
// element of the tab's last read drawn with its uid at its box, so a model
// reading the image can name what it sees ("click e12").
//
// The marks are drawn on the captured image in the worker (OffscreenCanvas),
// not by an overlay put into the page and taken out again: the page's DOM,
// layout and scripts never see anything (no mutation a MutationObserver
// could record, no layout shift, nothing to remove if the request is
// cancelled or fails halfway), and the marks cannot be hidden or restyled
// by the page's CSS. What that costs: the boxes are read in the page first
// and placed in the image by coordinates (device pixel ratio, scroll for a
// full page, an out-of-process frame's place in the tab).
//
// layoutMarks is pure (test/labels.test.js); readMarks and drawMarks run
// in Chromium (e2e/mcp_ext_test.go).

import { readChanges } from "./changes.js";
import { CdpError, sessionSend } from "../core/cdp.js";

// PALETTE are the marks' colours, taken in turn: saturated enough to read
// white text on, and far enough apart to tell neighbours apart.
export const PALETTE = Object.freeze(["#d92d20", "#1570ef", "#079455", "#c11574", "#b54708", "#6938ef", "#0e7090", "#4d7c0f"]);

// RECTS runs on a session's last read array (read/changes.js): for each index
// of idx, its element's border box in the session's top document's
// viewport, CSS pixels, [x, y, width, height] (same-origin frames added up),
// or null for an element gone or drawn with no box.
const RECTS = `function (idx) { /* bua:rects */
  const all = this[this.length - 1];
  return idx.map((i) => {
    const el = all[i];
    if (!el || !el.isConnected) return null;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return null;
    let x = r.left;
    let y = r.top;
    for (let w = el.ownerDocument.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
      const fe = w.frameElement;
      const fr = fe.getBoundingClientRect();
      const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
      x += fr.left + fe.clientLeft + parseFloat(cs.paddingLeft);
      y += fr.top + fe.clientTop + parseFloat(cs.paddingTop);
    }
    return [x, y, r.width, r.height];
  });
}`;

const VIEW = "[scrollX, scrollY, devicePixelRatio, innerWidth, innerHeight]";

// frameOffset is where an out-of-process iframe's viewport sits in the
// tab's: its owner iframe's content box, added up through every
// out-of-process ancestor, read without scrolling anything (a screenshot
// shows the page as it is). null when the frame is gone.
async function frameOffset(ctx, session) {
  const frames = new Map(ctx.frames().map((f) => [f.sessionId, f]));
  let x = 0;
  let y = 0;
  for (let s = session; s; ) {
    const f = frames.get(s);
    if (!f) return null;
    const send = sessionSend(ctx, f.parent);
    const { backendNodeId } = await send("DOM.getFrameOwner", { frameId: f.targetId });
    const { model } = await send("DOM.getBoxModel", { backendNodeId });
    x += model.content[0];
    y += model.content[1];
    s = f.parent;
  }
  return { x, y };
}

// boxOfQuad is [x, y, width, height] around a DOM.getBoxModel quad.
function boxOfQuad(q) {
  const xs = [q[0], q[2], q[4], q[6]];
  const ys = [q[1], q[3], q[5], q[7]];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)];
}

// sessionBoxes reads the boxes of one session's numbered elements: on its
// last read array when there is one (one call), else node by node with
// DOM.getBoxModel. Returns [{uid, box}] in that session's viewport.
async function sessionBoxes(ctx, session, entries, known) {
  const send = sessionSend(ctx, session);
  if (known && known.objectId) {
    const idx = [];
    const uids = [];
    known.uids.forEach((uid, i) => {
      if (uid && entries.has(uid)) {
        idx.push(i);
        uids.push(uid);
      }
    });
    try {
      const r = await send("Runtime.callFunctionOn", { objectId: known.objectId, functionDeclaration: RECTS, arguments: [{ value: idx }], returnByValue: true });
      const rects = (r.result && r.result.value) || [];
      return uids.map((uid, k) => ({ uid, box: rects[k] })).filter((m) => m.box);
    } catch (e) {
      if (!(e instanceof CdpError)) throw e;
    }
  }
  const list = [...entries];
  const got = await Promise.allSettled(list.map(([, n]) => send("DOM.getBoxModel", { backendNodeId: n.id })));
  const out = [];
  got.forEach((g, k) => {
    if (g.status !== "fulfilled" || !g.value.model) return;
    const box = boxOfQuad(g.value.model.border);
    if (box[2] > 0 && box[3] > 0) out.push({ uid: list[k][0], box });
  });
  return out;
}

// readMarks returns {marks: [{uid, box}], scale, origin}: the boxes of the
// tab's last read's elements in the capture's CSS pixels (the viewport's,
// or with fullPage the page's), and the device pixel ratio. A tab with no
// read of its current document gets one first (a changes read, which
// numbers the elements and records them, so the uids drawn are the ones a
// click takes). max caps the elements that read describes.
export async function readMarks(ctx, fullPage, max) {
  const { frameTree } = await ctx.send("Page.getFrameTree");
  let ledger = ctx.lastRead();
  if (!ledger || ledger.loaderId !== frameTree.frame.loaderId) {
    await readChanges(ctx, max);
    ledger = ctx.lastRead();
  }
  const bySession = new Map();
  for (const [uid, n] of ledger.map) {
    const s = n.session || null;
    if (!bySession.has(s)) bySession.set(s, new Map());
    bySession.get(s).set(uid, n);
  }
  const known = ledger.known || new Map();
  const view = ctx.send("Runtime.evaluate", { expression: VIEW, returnByValue: true });
  const reads = await Promise.all(
    [...bySession].map(async ([s, entries]) => {
      const boxes = await sessionBoxes(ctx, s, entries, known.get(s));
      if (!s) return boxes;
      const off = await frameOffset(ctx, s).catch(() => null);
      if (!off) return [];
      return boxes.map((m) => ({ uid: m.uid, box: [m.box[0] + off.x, m.box[1] + off.y, m.box[2], m.box[3]] }));
    }),
  );
  const [sx, sy, dpr] = (await view).result.value;
  const marks = reads.flat();
  if (fullPage) for (const m of marks) m.box = [m.box[0] + sx, m.box[1] + sy, m.box[2], m.box[3]];
  // Document order, which is uid order for one read.
  marks.sort((a, b) => Number(a.uid.slice(1)) - Number(b.uid.slice(1)));
  return { marks, scale: dpr || 1 };
}

// layoutMarks places each mark's tag (its uid on a coloured patch) in an
// image of width × height pixels: marks are [{uid, box}] in CSS pixels,
// scale the image pixels per CSS pixel, measure(text) a tag text's width
// in image pixels at fontPx. A tag goes just above its box's top-left
// corner (so it hides none of the element), else inside that corner, else
// just below the box, else inside its top-right corner: the first that
// stays in the image and clear of the tags already placed; failing all,
// inside the top-left corner. Boxes
// wholly outside the image are left out. Returns [{uid, color, box, tag}]
// in image pixels, tag = [x, y, w, h].
export function layoutMarks(marks, width, height, scale, measure, fontPx) {
  const pad = Math.round(2 * scale);
  const th = fontPx + 2 * pad;
  const placed = [];
  const overlaps = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
  const inside = (t) => t[0] >= 0 && t[1] >= 0 && t[0] + t[2] <= width && t[1] + t[3] <= height;
  marks.forEach((m, i) => {
    const box = m.box.map((v) => Math.round(v * scale));
    if (box[0] >= width || box[1] >= height || box[0] + box[2] <= 0 || box[1] + box[3] <= 0) return;
    const tw = Math.ceil(measure(m.uid)) + 2 * pad;
    const clamp = (t) => [Math.min(Math.max(0, t[0]), Math.max(0, width - t[2])), Math.min(Math.max(0, t[1]), Math.max(0, height - t[3])), t[2], t[3]];
    const options = [
      [box[0], box[1] - th, tw, th],
      [box[0], box[1], tw, th],
      [box[0], box[1] + box[3], tw, th],
      [box[0] + box[2] - tw, box[1], tw, th],
    ];
    let tag = options.find((t) => inside(t) && !placed.some((p) => overlaps(p.tag, t)));
    if (!tag) tag = clamp(options[1]);
    placed.push({ uid: m.uid, color: PALETTE[i % PALETTE.length], box, tag });
  });
  return placed;
}

// FONT_PX is the tags' font size in CSS pixels.
const FONT_PX = 12;

// drawMarks draws marks (readMarks) on a base64 JPEG and returns the new
// image as base64 JPEG at quality 80, as screenshot's own.
export async function drawMarks(base64, marks, scale) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/jpeg" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const g = canvas.getContext("2d");
  g.drawImage(bitmap, 0, 0);
  bitmap.close();
  const fontPx = Math.round(FONT_PX * scale);
  g.font = `bold ${fontPx}px sans-serif`;
  g.textBaseline = "top";
  const placed = layoutMarks(marks, canvas.width, canvas.height, scale, (t) => g.measureText(t).width, fontPx);
  g.lineWidth = Math.max(1, Math.round(2 * scale));
  for (const p of placed) {
    g.strokeStyle = p.color;
    g.strokeRect(p.box[0], p.box[1], p.box[2], p.box[3]);
  }
  const pad = Math.round(2 * scale);
  for (const p of placed) {
    g.fillStyle = p.color;
    g.fillRect(p.tag[0], p.tag[1], p.tag[2], p.tag[3]);
    g.fillStyle = "#ffffff";
    g.fillText(p.uid, p.tag[0] + pad, p.tag[1] + pad);
  }
  const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: 0.8 });
  const buf = new Uint8Array(await blob.arrayBuffer());
  let bin = "";
  for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
  return btoa(bin);
}
