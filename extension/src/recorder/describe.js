// A recorded element as describe gives it (result.describe): the locators
// the page side worked out when the person acted (page/recorder.js's see,
// through page/locator.js's generateLocators), and a role locator: the
// one from Chromium's accessibility tree, looked up at once with
// describe's own roleLocator, so a {role, name, nth} the flow writer
// picks resolves in a replay to this very element; or, when the page
// changed before that lookup (a submit that navigated, a button that
// renamed itself as it was clicked), the one the page side took as the
// pointer went down (page/role-locator.js).

import { CdpError } from "../core/cdp.js";
import { orderLocators } from "../target/locator.js";
import { NO_LOCATOR_ROLES, roleLocator, targetName } from "../actions/describe.js";
import { normalizeName } from "../target/role-target.js";
import { ROLES } from "../generated/protocol.js";

const TARGET_ROLES = new Set(ROLES);
// The schema's longest accessible name.
const NAME_MAX = 1024;

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

// pressedRole is the page side's role locator (see.role) as a target
// takes it, or null when it is none a target can name.
export function pressedRole(loc) {
  if (!loc || typeof loc !== "object" || !TARGET_ROLES.has(loc.role) || NO_LOCATOR_ROLES.has(loc.role) || !(loc.count >= 1)) return null;
  const name = normalizeName(loc.name || "");
  if (name.length > NAME_MAX) return null;
  const out = { by: "role", role: loc.role };
  if (name) out.name = targetName(name);
  out.count = loc.count;
  if (loc.count > 1 && Number.isInteger(loc.nth)) out.nth = loc.nth;
  return out;
}

// sameName says whether two role locators name the same role and name.
function sameName(a, b) {
  return Boolean(a && b) && a.role === b.role && (a.name || "") === (b.name || "");
}

// chooseRole picks the step's role locator: the accessibility tree's
// (ax), when it names what the person pressed (pressed, the page side's
// at pointerdown) or the element is still as it was then (unchanged: the
// page side's rules and Chromium's tree differ on it); else pressed. A
// tree lookup that came too late (the page navigated, or renamed the
// element as it was clicked) would name what the page became.
export function chooseRole(ax, pressed, unchanged) {
  if (!pressed) return ax;
  if (ax && (sameName(ax, pressed) || unchanged)) return ax;
  return pressed;
}

// describeSeen describes the element the recorder's world (contextId, on
// session sid: null for the tab's own) holds as id, which it saw as see
// ({loc, role, hidden}). A page that has moved on since gives the page
// side's locators alone, its role locator among them.
export async function describeSeen(session, sid, contextId, id, see) {
  const send = (method, params) => session.send(method, params, sid || undefined);
  const objectGroup = `bua-record-${++groups}`;
  const pressed = pressedRole(see.role);
  let role = null;
  let unchanged = false;
  try {
    // Hidden now, not when pressed: a click that opened a tab in front
    // hid its page since, and a hidden page never answers the partial
    // tree the lookup asks a shown one for.
    const [{ result }, shown] = await Promise.all([
      send("Runtime.evaluate", { expression: `globalThis.__buaRecorder ? globalThis.__buaRecorder.el(${Number(id)}) : null`, contextId, objectGroup }),
      send("Runtime.evaluate", { expression: `document.visibilityState`, contextId, returnByValue: true }),
    ]);
    if (result && result.objectId) {
      const { node } = await send("DOM.describeNode", { objectId: result.objectId });
      const target = { session: sid || null, objectId: result.objectId, backendNodeId: node.backendNodeId };
      const hidden = !(shown.result && shown.result.value === "visible");
      role = await roleLocator(ctxOf(session), target, { inFrame: see.loc.frame !== undefined, hidden });
    }
    if (role && pressed && !sameName(role, pressed)) {
      // After the lookup: the tree's answer is the element's as it was
      // pressed only if the page side still names it the same now.
      const now = await send("Runtime.evaluate", {
        expression: `globalThis.__buaRecorder && globalThis.__buaRecorder.role ? globalThis.__buaRecorder.role(${Number(id)}) : null`,
        contextId,
        returnByValue: true,
      });
      unchanged = sameName(pressedRole(now.result && now.result.value), pressed);
    }
  } catch (e) {
    // The page went on (a navigation, a frame gone): no role locator.
    if (!(e instanceof CdpError) && !(e && e.code)) throw e;
  } finally {
    send("Runtime.releaseObjectGroup", { objectGroup }).catch(() => {});
  }
  return targetOf(see.loc, chooseRole(role, pressed, unchanged));
}

// DESCRIBE_MS bounds the wait for an element's description.
const DESCRIBE_MS = 3000;

// describeWithin describes the element of a see message (describeSeen),
// or, when the page cannot tell within DESCRIBE_MS (a lookup Chromium
// defers: the page was hidden after it was asked) or fails, by what the
// page side took: a step's description must never hold up the steps
// after it.
export function describeWithin(session, sid, contextId, see, timers = globalThis) {
  let timer = null;
  const late = new Promise((resolve) => (timer = timers.setTimeout(resolve, DESCRIBE_MS)));
  return Promise.race([describeSeen(session, sid, contextId, see.id, see), late])
    .catch(() => null)
    .then((d) => {
      timers.clearTimeout(timer);
      return d || targetOf(see.loc, pressedRole(see.role));
    });
}
