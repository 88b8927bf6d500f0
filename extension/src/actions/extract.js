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

export const MAX_ELEMENTS = 200;

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
export function buildPageScript(selector) {
  return `(() => {
  const domToTree = ${domToTree.toString()};
  const toMarkdown = ${toMarkdown.toString()};
  const capText = ${capText.toString()};
  const selector = ${JSON.stringify(selector === undefined ? null : selector)};
  const root = selector === null ? (document.body || document.documentElement) : document.querySelector(selector);
  if (!root) return { found: false };
  const raw = String(root.innerText !== undefined ? root.innerText : root.textContent || "");
  const text = capText(raw, ${TEXT_MAX_CHARS});
  const markdown = root ? toMarkdown(domToTree(root), { maxLength: ${MARKDOWN_MAX_CHARS}, pageUrl: location.href }) : "";
  const frameSrcs = [];
  for (const f of document.querySelectorAll("iframe[src]")) {
    if (frameSrcs.length >= 100) break;
    const cs = getComputedStyle(f);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    frameSrcs.push(String(f.src));
  }
  return { found: true, text, markdown, url: location.href, title: document.title, frameSrcs };
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
// with a DOM node, at most MAX_ELEMENTS, optionally only those whose
// backend node is in `scope`. Duplicates (the same DOM node reported by two
// trees) keep their first place.
export function pickElements(ordered, scope) {
  const picked = [];
  const dom = new Set();
  for (const n of ordered) {
    if (picked.length >= MAX_ELEMENTS) break;
    if (n.ignored) continue;
    const role = n.role && n.role.value;
    if (!INTERACTIVE_ROLES.has(role)) continue;
    const id = n.backendDOMNodeId;
    if (id === undefined || dom.has(id)) continue;
    if (scope && !scope.has(id)) continue;
    dom.add(id);
    const el = { role, backendNodeId: id };
    const name = axString(n.name);
    if (name) el.name = name.slice(0, 300);
    const value = axString(n.value);
    if (value) el.value = value.slice(0, 300);
    picked.push(el);
  }
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

async function axElements(ctx, frameTree, scope) {
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
  const picked = pickElements(orderAXNodes(nodes, frameTrees), scope);
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

export async function extract(ctx, action) {
  const selector = action.selector;
  // The uid cache is tied to the document read here, before anything else.
  const { frameTree } = await ctx.send("Page.getFrameTree");
  const loaderId = frameTree.frame.loaderId;

  const { result, exceptionDetails } = await ctx.send("Runtime.evaluate", {
    expression: buildPageScript(selector),
    returnByValue: true,
  });
  if (exceptionDetails) {
    const d = (exceptionDetails.exception && exceptionDetails.exception.description) || exceptionDetails.text || "";
    if (selector !== undefined && /SyntaxError|not a valid selector/i.test(d)) {
      throw invalid(`invalid CSS selector ${JSON.stringify(selector)}: ${d.split("\n")[0]}`);
    }
    throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `extract failed in the page: ${d.split("\n")[0]}`);
  }
  const page = result.value;
  if (!page || !page.found) throw notFound(`no element matches selector ${JSON.stringify(selector)}`);

  let scope = null;
  if (selector !== undefined) {
    scope = await subtreeIds(ctx, selector);
    if (!scope) throw notFound(`no element matches selector ${JSON.stringify(selector)}`);
  }
  const picked = await axElements(ctx, frameTree, scope);
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
    url: page.url,
    title: page.title,
    captchaFrame,
  };
  const obstacle = detectObstacle({ url: page.url, title: page.title, markdown: page.markdown, elements, captchaFrame });
  if (obstacle) res.obstacle = obstacle;
  return res;
}

export const executors = Object.freeze({ extract });
