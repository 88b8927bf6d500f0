// The handoff action (a pure addition to protocol v4, feature "handoff"):
// bring a tab to the person when its page needs a human, and take it back
// after. The daemon sends `requested` when extract saw an obstacle under the
// handoff policy, then `resolved` once no obstacle is seen, or `abandoned`
// when the caller gave up. Tab scope: it runs in the tab's queue, after the
// blocklist check, like every per-tab action.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { EVENTS } from "../generated/protocol.js";

function hostOf(url) {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

// createHandoffService({api, windows, registry, emit, now}): api is
// chrome-api.js's object, windows the window manager, registry the handoff
// registry. run(tabId, action) -> {windowId, moved}.
export function createHandoffService({ api, windows, registry, emit, now = Date.now }) {
  // bringToPerson shows tabId where the person looks: out of the minimized
  // BUA window into their last focused normal window, or, in a window of
  // its own, that window focused (and restored if minimized).
  async function bringToPerson(tab) {
    const buaId = await windows.buaWindowId();
    let windowId = tab.windowId;
    let moved = false;
    if (buaId != null && tab.windowId === buaId) {
      const target = await windows.personWindow();
      if (target) {
        await api.tabs.move(tab.id, { windowId: target.id, index: -1 });
        windowId = target.id;
        moved = true;
      }
    }
    await api.tabs.update(tab.id, { active: true });
    await windows.show(windowId);
    return { windowId, moved };
  }

  async function request(tabId, action) {
    const tab = await api.tabs.get(tabId);
    const domain = hostOf(tab.url);
    const had = registry.get(tabId);
    if (had) {
      // Idempotent: already in front of the person.
      return { windowId: tab.windowId, moved: Boolean(had.restore && had.restore.moved) };
    }
    const from = { windowId: tab.windowId, index: Number.isInteger(tab.index) ? tab.index : -1 };
    const shown = await bringToPerson(tab);
    registry.request(tabId, {
      domain,
      obstacleType: action.obstacleType || "",
      message: action.message || "",
      restore: { ...from, moved: shown.moved },
    });
    emit({ type: EVENTS.HANDOFF_REQUESTED, tabId, domain, obstacleType: action.obstacleType || "", message: action.message || "" });
    return shown;
  }

  async function release(tabId, outcome) {
    const entry = registry.resolve(tabId);
    const tab = await api.tabs.get(tabId);
    if (!entry) return { windowId: tab.windowId, moved: false }; // idempotent
    let windowId = tab.windowId;
    let moved = false;
    const r = entry.restore;
    if (r && r.moved) {
      // Back into the BUA window it came from; a new one when it was the
      // window's last tab, which Chrome closed as the tab left.
      windowId = await windows.takeBack(tabId, r.index);
      moved = true;
    }
    emit({ type: EVENTS.HANDOFF_RESOLVED, tabId, domain: entry.domain, outcome, waitedMs: Math.max(0, now() - entry.since) });
    return { windowId, moved };
  }

  return {
    async run(tabId, action) {
      if (action.state === "requested") return request(tabId, action);
      if (action.state === "resolved" || action.state === "abandoned") return release(tabId, action.state);
      throw new BridgeError(ErrorCodes.INVALID_ACTION, `handoff state ${JSON.stringify(action.state)} is not requested, resolved or abandoned`);
    },
  };
}

// ctx.handoff is the worker's service (background.js), the handoff
// capability (sessions/capabilities.js).
export const executors = {
  handoff(ctx, action) {
    if (!ctx.handoff) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, "this worker has no handoff service");
    return ctx.handoff.run(ctx.tabId, action);
  },
};
