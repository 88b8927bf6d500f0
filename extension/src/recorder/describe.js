// A recorded element as describe gives it (result.describe): the locators
// the page side worked out when the person acted (page/recorder.js's see,
// through page/locator.js's generateLocators), and the role locator from
// Chromium's accessibility tree, looked up at once, while the element is
// still on the page, with describe's own roleLocator so a {role, name,
// nth} the flow writer picks resolves in a replay to this very element.

import { CdpError } from "../lib/cdp.js";
import { orderLocators } from "../lib/locator.js";
import { roleLocator } from "../actions/describe.js";

let groups = 0;

// ctxOf is the slice of an action's ctx that roleLocator uses, over a
// debugger session of the tab (the controller's session(tabId)).
export function ctxOf(session) {
  return {
    send: (method, params) => session.send(method, params),
    sendTo: (sid, method, params) => session.send(method, params, sid || undefined),
    frames: () => [...(session.frames || new Map()).values()],
  };
}

// targetOf is result.describe for an element the page side saw (see.loc,
// generateLocators' answer) with role, its role locator or null.
export function targetOf(loc, role) {
  const out = { tag: String(loc.tag || "") };
  for (const k of ["inputType", "autocomplete", "label", "frame"]) if (loc[k] !== undefined) out[k] = loc[k];
  out.locators = orderLocators(role ? [role, ...(loc.locators || [])] : loc.locators || []);
  return out;
}

// describeSeen describes the element the recorder's world (contextId, on
// session sid: null for the tab's own) holds as id, which it saw as see
// ({loc, hidden}). A page that has moved on since gives the page side's
// locators alone.
export async function describeSeen(session, sid, contextId, id, see) {
  const send = (method, params) => session.send(method, params, sid || undefined);
  const objectGroup = `bua-record-${++groups}`;
  let role = null;
  try {
    const { result } = await send("Runtime.evaluate", {
      expression: `globalThis.__buaRecorder ? globalThis.__buaRecorder.el(${Number(id)}) : null`,
      contextId,
      objectGroup,
    });
    if (result && result.objectId) {
      const { node } = await send("DOM.describeNode", { objectId: result.objectId });
      const target = { session: sid || null, objectId: result.objectId, backendNodeId: node.backendNodeId };
      role = await roleLocator(ctxOf(session), target, { inFrame: see.loc.frame !== undefined, hidden: Boolean(see.hidden) });
    }
  } catch (e) {
    // The page went on (a navigation, a frame gone): no role locator.
    if (!(e instanceof CdpError) && !(e && e.code)) throw e;
  } finally {
    send("Runtime.releaseObjectGroup", { objectGroup }).catch(() => {});
  }
  return targetOf(see.loc, role);
}
