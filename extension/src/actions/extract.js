// extract: text + markdown + page signals in one Runtime.evaluate round
// trip, interactive elements from the accessibility tree (uids e0, e1, ...
// cached per tab), and the obstacle verdict.
//
// Limits: `selector` scopes text, markdown and elements to the first match
// in the main document only (not inside iframes or shadow roots); elements
// of a whole-page extract include same-process iframes and open shadow
// roots.

import { BridgeError, ErrorCodes } from "../lib/errors.js";
import { CdpError, invalid, notFound } from "../lib/cdp.js";
import { domToTree, toMarkdown, capText, MARKDOWN_MAX_CHARS, TEXT_MAX_CHARS } from "../lib/markdown.js";
import { isCaptchaFrameSrc } from "../lib/page-signals.js";
import { detectObstacle } from "../lib/obstacle.js";

// MAX_ELEMENTS is the default cap on listed elements (spec 000 §extract);
// action.maxElements (1-5000) changes it. elementsTotal always says how many
// there were before the cut.
export const MAX_ELEMENTS = 200;
export const MAX_ELEMENTS_LIMIT = 5000;

// CONTENT_WAIT_MS bounds how long extract waits, from its start, for a page
// with no visible text and no visible element to show some (a body hidden
// until script runs); after it the page is read and reported empty.
// README §extract documents it.
export const CONTENT_WAIT_MS = 2500;
// READ_RESERVE_MS is what the wait for a loading document leaves of the
// budget for the read itself.
export const READ_RESERVE_MS = 5000;
const POLL_MS = 100;

export const INTERACTIVE_ROLES = new Set([
  "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
  "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
  "spinbutton", "treeitem",
]);

// buildPageScript returns the expression extract evaluates. The markdown
// functions travel by toString (they are written to be self-contained).
// Rendered iframe srcs come back raw and are classified by
// isCaptchaFrameSrc here in the worker, so the page needs no copy of the
// captcha patterns.
//
// Unless options.final, a page with no visible content comes back as
// {found, hasContent: false, readyState} without the costly read.
export function buildPageScript(selector, options = {}) {
  return `(() => {
  const options = ${JSON.stringify({ final: Boolean(options.final) })};
  const domToTree = ${domToTree.toString()};
  const toMarkdown = ${toMarkdown.toString()};
  const capText = ${capText.toString()};
  const selector = ${JSON.stringify(selector === undefined ? null : selector)};
  const root = selector === null ? (document.body || document.documentElement) : document.querySelector(selector);
  if (!root) return { found: false };
  const rendered = (el) => !el.checkVisibility || el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  const raw = String(root.innerText !== undefined ? root.innerText : root.textContent || "");
  const shown = rendered(root) && rendered(document.documentElement);
  let hasContent = shown && raw.trim() !== "";
  if (shown && !hasContent) {
    for (const el of root.querySelectorAll("img,video,canvas,svg,iframe,input,button,select,textarea,object,embed")) {
      if (!rendered(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) { hasContent = true; break; }
    }
  }
  if (!hasContent && !options.final) return { found: true, hasContent, readyState: document.readyState };
  const text = capText(raw, ${TEXT_MAX_CHARS});
  const markdown = root ? toMarkdown(domToTree(root), { maxLength: ${MARKDOWN_MAX_CHARS}, pageUrl: location.href }) : "";
  const frameSrcs = [];
  for (const f of document.querySelectorAll("iframe[src]")) {
    if (frameSrcs.length >= 100) break;
    const cs = getComputedStyle(f);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    frameSrcs.push(String(f.src));
  }
  return { found: true, hasContent, readyState: document.readyState, text, markdown, url: location.href, title: document.title, frameSrcs };
})()`;
}

// orderAXNodes flattens AX trees into document order: a depth-first walk
// of the main tree from its root, splicing each child frame's tree in
// right after the node of its <iframe> owner. Trees whose owner was not
// met are appended.
export function orderAXNodes(mainNodes, frameTrees) {
  const out = [];
  const seen = new Set();
  const pending = new Map(frameTrees.map((t) => [t.ownerBackendNodeId, t.nodes]));
  function walk(nodes) {
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const roots = nodes.filter((n) => !n.parentId || !byId.has(n.parentId));
    const stack = [...roots].reverse();
    while (stack.length) {
      const n = stack.pop();
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(n);
      const owned = n.backendDOMNodeId !== undefined && pending.get(n.backendDOMNodeId);
      const kids = (n.childIds || []).map((id) => byId.get(id)).filter(Boolean);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      if (owned) {
        pending.delete(n.backendDOMNodeId);
        // Walked now, before this node's own children are popped, so the
        // frame's nodes sit where the iframe is.
        walk(owned);
      }
    }
  }
  walk(mainNodes);
  for (const nodes of pending.values()) walk(nodes);
  return out;
}

function axString(v) {
  if (!v || v.value === undefined || v.value === null) return "";
  return String(v.value).replace(/\s+/g, " ").trim();
}

// pickElements filters ordered AX nodes to interactive, non-ignored ones
// with a DOM node, at most max (MAX_ELEMENTS by default), optionally only
// those whose backend node is in `scope`. Duplicates (the same DOM node
// reported by two trees) keep their first place. The array's `total` is
// how many there were before the cut.
export function pickElements(ordered, scope, max = MAX_ELEMENTS) {
  const picked = [];
  const dom = new Set();
  let total = 0;
  for (const n of ordered) {
    if (n.ignored) continue;
    const role = n.role && n.role.value;
    if (!INTERACTIVE_ROLES.has(role)) continue;
    const id = n.backendDOMNodeId;
    if (id === undefined || dom.has(id)) continue;
    if (scope && !scope.has(id)) continue;
    dom.add(id);
    total++;
    if (picked.length >= max) continue;
    const el = { role, backendNodeId: id };
    const name = axString(n.name);
    if (name) el.name = name.slice(0, 300);
    const value = axString(n.value);
    if (value) el.value = value.slice(0, 300);
    picked.push(el);
  }
  picked.total = total;
  return picked;
}

function collectFrames(tree, out) {
  for (const child of tree.childFrames || []) {
    out.push(child.frame.id);
    collectFrames(child, out);
  }
  return out;
}

// subtreeIds returns the backendNodeIds under the selector's first match
// (iframes and shadow roots included), for a scoped extract's elements.
async function subtreeIds(ctx, selector) {
  const { root } = await ctx.send("DOM.getDocument", { depth: 0 });
  let nodeId;
  try {
    ({ nodeId } = await ctx.send("DOM.querySelector", { nodeId: root.nodeId, selector }));
  } catch (e) {
    if (e instanceof CdpError) throw invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${e.cdpMessage}`);
    throw e;
  }
  if (!nodeId) return null;
  const { node } = await ctx.send("DOM.describeNode", { nodeId, depth: -1, pierce: true });
  const ids = new Set();
  (function visit(n) {
    ids.add(n.backendNodeId);
    for (const c of n.children || []) visit(c);
    for (const c of n.shadowRoots || []) visit(c);
    if (n.contentDocument) visit(n.contentDocument);
  })(node);
  return ids;
}

async function axElements(ctx, frameTree, scope, max) {
  const { nodes } = await ctx.send("Accessibility.getFullAXTree", {});
  const frameIds = collectFrames(frameTree, []);
  const frameTrees = (
    await Promise.all(
      frameIds.map(async (frameId) => {
        try {
          const [{ nodes: fnodes }, owner] = await Promise.all([
            ctx.send("Accessibility.getFullAXTree", { frameId }),
            ctx.send("DOM.getFrameOwner", { frameId }),
          ]);
          return { ownerBackendNodeId: owner.backendNodeId, nodes: fnodes };
        } catch (e) {
          // Out-of-process iframes are other targets this session cannot
          // reach; their elements are left out rather than failing extract.
          if (e instanceof CdpError) return null;
          throw e;
        }
      }),
    )
  ).filter(Boolean);
  const picked = pickElements(orderAXNodes(nodes, frameTrees), scope, max);
  // Visible = the node has a non-empty box; boxes are asked in parallel.
  await Promise.all(
    picked.map(async (el) => {
      try {
        const { model } = await ctx.send("DOM.getBoxModel", { backendNodeId: el.backendNodeId });
        el.visible = model.width > 0 && model.height > 0;
      } catch (e) {
        if (!(e instanceof CdpError)) throw e;
        el.visible = false;
      }
    }),
  );
  return picked;
}

function pageError(selector, exceptionDetails) {
  const d = (exceptionDetails.exception && exceptionDetails.exception.description) || exceptionDetails.text || "";
  if (selector !== undefined && /SyntaxError|not a valid selector/i.test(d)) {
    return invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${d.split("\n")[0]}`);
  }
  return new BridgeError(ErrorCodes.INTERNAL_ERROR, `extract failed in the page: ${d.split("\n")[0]}`);
}

// readPage reads the current main-frame document once it is past
// "loading" (waiting at most what the budget leaves less READ_RESERVE_MS)
// and shows some content (waiting at most CONTENT_WAIT_MS from start). A
// document replaced while it was read is read again. Returns {page,
// loaderId}; page.hasContent false means the page stayed empty.
async function readPage(ctx, selector, start) {
  const loadStop = start + Math.max(0, ctx.budget.inner() - READ_RESERVE_MS);
  const contentStop = Math.min(start + CONTENT_WAIT_MS, loadStop);
  for (;;) {
    const { frameTree } = await ctx.send("Page.getFrameTree");
    const loaderId = frameTree.frame.loaderId;
    const now = Date.now();
    const probe = await evalPage(ctx, selector, false);
    if (probe && probe.found) {
      const loading = probe.readyState === "loading" && now < loadStop;
      const waiting = !probe.hasContent && now < contentStop;
      if (loading || waiting) {
        await ctx.sleep(POLL_MS);
        continue;
      }
    }
    const page = probe && probe.found && probe.hasContent ? probe : await evalPage(ctx, selector, true);
    // The uid cache is tied to the document read here: one that committed
    // meanwhile is read again while the budget lasts.
    const after = await ctx.send("Page.getFrameTree");
    if (after.frameTree.frame.loaderId !== loaderId && Date.now() < loadStop) continue;
    return { page, frameTree: after.frameTree, loaderId: after.frameTree.frame.loaderId };
  }
}

async function evalPage(ctx, selector, final) {
  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: buildPageScript(selector, { final }),
    returnByValue: true,
  });
  if (exceptionDetails) throw pageError(selector, exceptionDetails);
  return result.value;
}

// maxElementsOf is the action's maxElements, or MAX_ELEMENTS.
export function maxElementsOf(action) {
  const m = action.maxElements;
  return Number.isInteger(m) && m >= 1 ? Math.min(m, MAX_ELEMENTS_LIMIT) : MAX_ELEMENTS;
}

export async function extract(ctx, action) {
  const selector = action.selector;
  const { page, frameTree, loaderId } = await readPage(ctx, selector, Date.now());
  if (!page || !page.found) throw notFound(`no element matches selector ${JSON.stringify(selector)}`);

  let scope = null;
  if (selector !== undefined) {
    scope = await subtreeIds(ctx, selector);
    if (!scope) throw notFound(`no element matches selector ${JSON.stringify(selector)}`);
  }
  const picked = await axElements(ctx, frameTree, scope, maxElementsOf(action));
  const uids = new Map();
  const elements = picked.map((el, i) => {
    const uid = `e${i}`;
    uids.set(uid, el.backendNodeId);
    const out = { uid, role: el.role };
    if (el.name !== undefined) out.name = el.name;
    if (el.value !== undefined) out.value = el.value;
    out.visible = el.visible;
    return out;
  });
  ctx.storeUids(uids, loaderId);

  const captchaFrame = (page.frameSrcs || []).some((src) => isCaptchaFrameSrc(src));
  const res = {
    text: page.text,
    markdown: page.markdown,
    elements,
    elementsTotal: picked.total,
    url: page.url,
    title: page.title,
    captchaFrame,
  };
  if (!page.hasContent) res.empty = true;
  const obstacle = detectObstacle({ url: page.url, title: page.title, markdown: page.markdown, elements, captchaFrame });
  if (obstacle) res.obstacle = obstacle;
  return res;
}

export const executors = Object.freeze({ extract });
