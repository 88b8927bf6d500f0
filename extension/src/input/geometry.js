// Where a pointer lands (docs/extension.md §Actionability, §Frames): the
// aim point in an element's quads, the box stability compares, and the
// place of an out-of-process iframe's viewport in the tab's.

import { notFound, sessionSend } from "../core/cdp.js";

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
