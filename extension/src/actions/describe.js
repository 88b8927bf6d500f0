// describe (feature describe): readable locators for one element, best
// first, each with how many elements it matches in the element's frame
// now. The page side is page/locator.js (label, test id, id, CSS path,
// text); the role locator comes from Chromium's accessibility tree and is
// counted with the role target's own lookup (target/role-target.js
// queryRole), so a {role, name, nth} it returns resolves, in a click, to
// this very element.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { CdpError, sessionSend } from "../core/cdp.js";
import { orderLocators } from "../target/locator.js";
import { DESCRIBE } from "../generated/page.js";
import { normalizeName, queryRole } from "../target/role-target.js";
import { ROLES } from "../generated/protocol.js";
import { GROUP, locate } from "../target/locate.js";

// Roles a locator never uses: they name no kind of element a person sees.
export const NO_LOCATOR_ROLES = new Set(["generic", "none", "presentation"]);
const TARGET_ROLES = new Set(ROLES);
// The schema's longest accessible name.
const NAME_MAX = 1024;

// targetName is how name goes in a role target: as it is, unless it reads
// as /pattern/flags, which a target would take for a pattern; then as the
// pattern that matches exactly it.
export function targetName(name) {
  if (!/^\/(.*)\/([a-z]*)$/s.test(name)) return name;
  return `/^${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$/`;
}

// axNode is the element's accessibility node: Accessibility.getPartialAXTree,
// or on a hidden page (which defers that query, as it does queryAXTree)
// the frame's whole tree, filtered.
async function axNode(send, backendNodeId, hidden, frameId) {
  if (!hidden) {
    const { nodes } = await send("Accessibility.getPartialAXTree", { backendNodeId, fetchRelatives: false });
    return (nodes || []).find((n) => n.backendDOMNodeId === backendNodeId) || null;
  }
  const { nodes } = await send("Accessibility.getFullAXTree", frameId ? { frameId } : {});
  return (nodes || []).find((n) => n.backendDOMNodeId === backendNodeId) || null;
}

// roleLocator is {by: "role", role, name?, count, nth?} for the element, or
// null when its role is none a target takes, or the role target with its
// name does not find it.
export async function roleLocator(ctx, target, page) {
  const send = sessionSend(ctx, target.session);
  let scope = null;
  let frameId;
  if (page.inFrame) {
    const { result } = await send("Runtime.callFunctionOn", {
      objectId: target.objectId,
      functionDeclaration: "function () { return this.ownerDocument.documentElement; }",
      objectGroup: GROUP,
    });
    if (!result || !result.objectId) return null;
    scope = { session: target.session, objectId: result.objectId };
    if (page.hidden) frameId = (await send("DOM.describeNode", { objectId: result.objectId })).node.frameId;
  }
  const node = await axNode(send, target.backendNodeId, page.hidden, frameId);
  if (!node || node.ignored || !node.role) return null;
  const role = String(node.role.value);
  if (!TARGET_ROLES.has(role) || NO_LOCATOR_ROLES.has(role)) return null;
  const name = normalizeName(node.name && typeof node.name.value === "string" ? node.name.value : "");
  if (name.length > NAME_MAX) return null;
  const want = { role };
  if (name) want.name = targetName(name);
  const matches = await queryRole(ctx, want, scope);
  const at = matches.findIndex((m) => m.backendNodeId === target.backendNodeId);
  if (at < 0) return null;
  const loc = { by: "role", role };
  if (name) loc.name = want.name;
  loc.count = matches.length;
  if (matches.length > 1) loc.nth = at;
  return loc;
}

export async function describe(ctx, action) {
  const { target } = await locate(ctx, action);
  const send = sessionSend(ctx, target.session);
  const r = await send("Runtime.callFunctionOn", {
    objectId: target.objectId,
    functionDeclaration: DESCRIBE,
    returnByValue: true,
  });
  if (r.exceptionDetails || !r.result || !r.result.value) {
    const d = r.exceptionDetails ? r.exceptionDetails.text : "no value";
    throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `describe failed in the page: ${d}`);
  }
  const page = r.result.value;
  let role = null;
  try {
    role = await roleLocator(ctx, target, page);
  } catch (e) {
    // A page whose tree cannot be read still has its other locators.
    if (!(e instanceof CdpError)) throw e;
  }
  const out = { tag: page.tag };
  for (const k of ["inputType", "autocomplete", "label", "frame"]) if (page[k] !== undefined) out[k] = page[k];
  out.locators = orderLocators(role ? [role, ...page.locators] : page.locators);
  return out;
}

export const executors = Object.freeze({ describe });
