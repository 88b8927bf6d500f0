// extract: text, markdown, page signals and the interactive elements in
// one Runtime.evaluate round trip. The elements (uids e0, e1, ... cached
// per tab) are found in the page by page/elements.js and come back by deep
// serialization, which gives each kept node's backendNodeId: the cost
// follows what is returned, not the size of the page (BENCHMARKS.md
// "Extract"). Then the obstacle verdict.
//
// Limits: `selector` scopes text, markdown and elements to its matches in
// the main document only (not inside iframes or shadow roots): every match
// in document order, one markdown block each, a match inside another read
// with it (result.matches counts those read). Elements
// of a whole-page extract include same-origin iframes and open shadow roots
// (the page script walks them), then the out-of-process iframes' (each
// read in its own child session, readFrames); markdown includes
// same-origin frames' text, under a "[frame: URL]" marker.

import { BridgeError, ErrorCodes, withPageStack } from "../core/errors.js";
import { invalid, notFound } from "../core/cdp.js";
import { EXTRACT, EXTRACT_FRAME } from "../generated/page.js";
import { isCaptchaFrameSrc } from "../read/page-signals.js";
import { detectObstacle } from "../read/obstacle.js";
import { KNOWN_GROUP, knownAfterExtract, nodeIdsOf, readChanges, releaseKnown, toElement } from "../read/changes.js";
import { MARKDOWN_MAX_CHARS } from "../page/caps.js";
import { PAGED_MARKDOWN_MAX_CHARS, applyBudget, firstRead } from "../read/parts.js";

// MAX_ELEMENTS is the default cap on listed elements (docs/protocol.md#extract);
// action.maxElements (1-5000) changes it. elementsTotal always says how many
// there were before the cut.
export const MAX_ELEMENTS = 200;
export const MAX_ELEMENTS_LIMIT = 5000;

// CONTENT_WAIT_MS bounds how long extract waits, from its start, for a page
// that shows nothing (its body hidden until script runs, or a read with no
// text, markdown, element or drawn image) to show some; after it the page
// is read, and reported empty unless that read found markdown or
// elements. docs/commands.md#what-extract-reads documents it.
export const CONTENT_WAIT_MS = 2500;
// READ_RESERVE_MS is what the wait for a loading document leaves of the
// budget for the read itself.
export const READ_RESERVE_MS = 5000;
const POLL_MS = 100;

// buildPageScript returns the expression extract evaluates: the page
// script EXTRACT (page/read.js readPage, bundled into generated/page.js)
// called with selector (or null) and options {final, maxElements,
// markdownMax}. Rendered iframe srcs come back raw and are classified by
// isCaptchaFrameSrc here in the worker, so the page needs no copy of the
// captcha patterns.
//
// The value is an array: first the read as a JSON string, then the kept
// elements' nodes, which deep serialization (readValue) turns into their
// backendNodeIds, then the array of every listed element, which stays in
// the page for the next changes read (read/changes.js). Unless
// options.final, a page without content comes back as [{found,
// hasContent: false, readyState}]. options.maxElements caps the nodes
// (MAX_ELEMENTS); options.markdownMax the markdown (MARKDOWN_MAX_CHARS; a
// budgeted read renders more, to cut it into parts).
export function buildPageScript(selector, options = {}) {
  const opts = {
    final: Boolean(options.final),
    maxElements: options.maxElements || MAX_ELEMENTS,
    markdownMax: options.markdownMax || MARKDOWN_MAX_CHARS,
    walkAll: Boolean(options.walkAll),
  };
  return `(${EXTRACT}).call(null, ${JSON.stringify(selector === undefined ? null : selector)}, ${JSON.stringify(opts)})`;
}

// readValue turns the page script's deep-serialized array back into the
// page's read, with each element's backendNodeId from its node. Deep
// serialization (Runtime.evaluate serializationOptions) describes a node
// with its backendNodeId, so the uids cost no CDP command per element.
export function readValue(deep) {
  const parts = (deep && deep.value) || [];
  const head = parts[0];
  if (!head || head.type !== "string") throw new BridgeError(ErrorCodes.INTERNAL_ERROR, "extract read nothing from the page");
  const page = JSON.parse(head.value);
  const items = page.elements || [];
  nodeIdsOf(parts, items.length, "extract").forEach((id, i) => (items[i].backendNodeId = id));
  return page;
}

function pageError(selector, exceptionDetails) {
  const d = (exceptionDetails.exception && exceptionDetails.exception.description) || exceptionDetails.text || "";
  if (selector !== undefined && /SyntaxError|not a valid selector/i.test(d)) {
    return invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${d.split("\n")[0]}`);
  }
  return withPageStack(new BridgeError(ErrorCodes.INTERNAL_ERROR, `extract failed in the page: ${d.split("\n")[0]}`), d);
}

// readPage reads the current main-frame document once it is past
// "loading" (waiting at most what the budget leaves less READ_RESERVE_MS)
// and shows some content (waiting at most CONTENT_WAIT_MS from start). A
// document replaced while it was read is read again. Returns {page,
// loaderId}; page.hasContent false means the page stayed empty.
async function readPage(ctx, action, start) {
  const loadStop = start + Math.max(0, ctx.budget.inner() - READ_RESERVE_MS);
  const contentStop = Math.min(start + CONTENT_WAIT_MS, loadStop);
  for (;;) {
    const { frameTree } = await ctx.send("Page.getFrameTree");
    const loaderId = frameTree.frame.loaderId;
    const now = Date.now();
    const probe = await evalPage(ctx, action, false);
    if (probe && probe.found) {
      const loading = probe.readyState === "loading" && now < loadStop;
      const waiting = !probe.hasContent && now < contentStop;
      if (loading || waiting) {
        await ctx.sleep(POLL_MS);
        continue;
      }
    }
    const page = probe && probe.found && probe.hasContent ? probe : await evalPage(ctx, action, true);
    // The uid cache is tied to the document read here: one that committed
    // meanwhile is read again while the budget lasts.
    const after = await ctx.send("Page.getFrameTree");
    if (after.frameTree.frame.loaderId !== loaderId && Date.now() < loadStop) continue;
    return { page, loaderId: after.frameTree.frame.loaderId };
  }
}

async function evalPage(ctx, action, final) {
  // Every read renders past the 30 KB cap, to end at a block boundary
  // within it and say how much more there is (firstRead).
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: buildPageScript(action.selector, { final, maxElements: maxElementsOf(action), markdownMax: PAGED_MARKDOWN_MAX_CHARS, walkAll: Boolean(action.maxChars) }),
    objectGroup: KNOWN_GROUP,
    serializationOptions: { serialization: "deep", maxDepth: 1 },
  });
  if (exceptionDetails) throw pageError(action.selector, exceptionDetails);
  const page = readValue(result.deepSerializedValue);
  page.handle = result.objectId;
  return page;
}

// maxElementsOf is the action's maxElements, or MAX_ELEMENTS; a budgeted
// read (maxChars) lists up to MAX_ELEMENTS_LIMIT, each in its part.
export function maxElementsOf(action) {
  const m = action.maxElements;
  if (Number.isInteger(m) && m >= 1) return Math.min(m, MAX_ELEMENTS_LIMIT);
  return action.maxChars ? MAX_ELEMENTS_LIMIT : MAX_ELEMENTS;
}

// buildFrameScript returns the expression extract evaluates in an
// out-of-process iframe's own session: the page script EXTRACT_FRAME
// (page/read.js readFrame), its elements only, each marked with the
// frame's URL, the same array shape as buildPageScript's.
export function buildFrameScript(maxElements) {
  return `(${EXTRACT_FRAME}).call(null, ${Number(maxElements) || MAX_ELEMENTS})`;
}

// readFrames reads the elements of the tab's out-of-process iframes
// (ctx.frames(), in the order they attached), each in its own session, all
// at once: [{session, elements, elementsTotal}]. A frame that fails to
// answer (it navigated or went away meanwhile) adds nothing. A tab
// without such frames costs nothing.
export async function readFrames(ctx, maxElements) {
  const frames = ctx.frames ? ctx.frames() : [];
  if (frames.length === 0) return [];
  const expression = buildFrameScript(maxElements);
  const reads = await Promise.allSettled(
    frames.map((f) =>
      ctx.sendTo(f.sessionId, "Runtime.evaluate", { expression, objectGroup: KNOWN_GROUP, serializationOptions: { serialization: "deep", maxDepth: 1 } }),
    ),
  );
  const out = [];
  reads.forEach((r, i) => {
    if (r.status !== "fulfilled" || r.value.exceptionDetails) return;
    try {
      const page = readValue(r.value.result.deepSerializedValue);
      for (const el of page.elements) el.session = frames[i].sessionId;
      out.push({ session: frames[i].sessionId, elements: page.elements, elementsTotal: page.elementsTotal || 0, handle: r.value.result.objectId });
    } catch (e) {
      if (!(e instanceof BridgeError)) throw e;
    }
  });
  return out;
}

// toElements numbers the page's items e0, e1, ... and returns the result's
// elements and the uid -> {session, id} map for the tab's cache (session:
// the out-of-process iframe's debugger session, null for the tab's own;
// id: the backendNodeId). A parent index becomes its uid.
export function toElements(items) {
  const uids = new Map();
  const elements = items.map((el, i) => {
    const uid = `e${i}`;
    uids.set(uid, { session: el.session || null, id: el.backendNodeId });
    return toElement(el, uid, Number.isInteger(el.parent) && el.parent < i ? `e${el.parent}` : undefined);
  });
  return { elements, uids };
}

// profiled returns ctx whose send records each CDP command's time in
// prof.steps as [method, ms].
function profiled(ctx, prof) {
  return Object.create(ctx, {
    send: {
      value: (method, params) => {
        const t = performance.now();
        return ctx.send(method, params).finally(() => prof.steps.push([method, performance.now() - t]));
      },
    },
  });
}

// The last extract's timings, kept in the worker for BenchmarkExtractSteps
// (e2e/bench_test.go), which reads globalThis.buaProfile.extract over the
// worker's DevTools target: {steps: [[method, ms]...], page: {domToTree,
// toMarkdown, frames, elements} (ms inside the page), totalMs}. Pages
// cannot see the worker's globals.
globalThis.buaProfile = globalThis.buaProfile || {};

export async function extract(ctx, action) {
  if (action.changes) return readChanges(ctx, maxElementsOf(action));
  // Every part of a budgeted read numbers the elements as part 1 does and
  // lists those inside it, so each part's uids are the tab's.
  releaseKnown(ctx);
  const selector = action.selector;
  const started = performance.now();
  const prof = { steps: [] };
  const { page, loaderId } = await readPage(profiled(ctx, prof), action, Date.now());
  prof.page = page && page.profile;
  prof.totalMs = performance.now() - started;
  globalThis.buaProfile.extract = prof;
  if (!page || !page.found) throw notFound(`no element matches selector ${JSON.stringify(selector)}`);

  // A whole-page extract adds the out-of-process iframes' elements after
  // the page's own (a selector scopes the read to the main document).
  const items = page.elements || [];
  let total = page.elementsTotal || 0;
  // A page whose read found markdown or elements is never empty, whatever
  // the probe for content saw.
  const empty = !page.hasContent && !(page.markdown || "").trim() && total === 0;
  const reads = [{ session: null, objectId: page.handle, base: 0, kept: items.length }];
  if (selector === undefined && !empty) {
    const max = maxElementsOf(action);
    for (const f of await readFrames(ctx, max)) {
      total += f.elementsTotal;
      const base = items.length;
      const kept = f.elements.slice(0, Math.max(0, max - base));
      reads.push({ session: f.session, objectId: f.handle, base, kept: kept.length });
      for (const el of kept) {
        // An option's parent is an index into its frame's own list.
        if (Number.isInteger(el.parent)) el.parent += base;
        items.push(el);
      }
    }
  }
  const { elements, uids } = toElements(items);
  ctx.storeUids(uids, loaderId, { next: elements.length, known: knownAfterExtract(reads) });

  const captchaFrame = (page.frameSrcs || []).some((src) => isCaptchaFrameSrc(src));
  const res = {
    text: page.text,
    markdown: page.markdown,
    elements,
    elementsTotal: total,
    url: page.url,
    title: page.title,
    captchaFrame,
  };
  if (page.matches !== undefined) res.matches = page.matches;
  if (empty) res.empty = true;
  const obstacle = detectObstacle({ url: page.url, title: page.title, markdown: page.markdown, elements, captchaFrame });
  if (obstacle) res.obstacle = obstacle;
  if (action.maxChars) {
    try {
      Object.assign(res, applyBudget(page.markdown, elements, action.maxChars, action.part || 1, page.at));
    } catch (e) {
      if (e instanceof RangeError) throw invalid(e.message);
      throw e;
    }
  } else Object.assign(res, firstRead(page.markdown, elements, page.at));
  return res;
}

export const executors = Object.freeze({ extract });
