// Ends every session when the person is away (docs/extension.md#session-lifecycle:
// "chrome.idle + screen-lock guard", system_idle after 30 min, screen_locked
// at once). Its own module so node tests drive it with a fake chrome.idle;
// background.js adds the onStateChanged listener at top level and hands
// each state to onState.

import { END_REASONS } from "../generated/protocol.js";

// IDLE_DETECTION_S is chrome.idle's detection interval: "idle" after 30
// minutes without input (docs/extension.md#session-lifecycle: system_idle after 30 min).
export const IDLE_DETECTION_S = 30 * 60;

// createIdleGuard wires the guard. deps:
//   idle: {setDetectionInterval(s)} (chrome-api.js's idle)
//   endAll: (reason) => Promise<number> | number — ends every session with
//     reason and detaches (the local service's endAll)
//   isManaged: () => boolean — a managed browser has nobody at its
//     keyboard, so idle and lock never end its sessions (long CI runs).
export function createIdleGuard({ idle, endAll, isManaged }) {
  return {
    // start sets the detection interval; call once the pairing is known.
    start() {
      if (!isManaged()) idle.setDetectionInterval(IDLE_DETECTION_S);
    },
    // onState is chrome.idle.onStateChanged's listener: "locked" ends the
    // sessions with screen_locked, "idle" with system_idle, "active" does
    // nothing (sessions start again on the next action). Returns how many
    // sessions ended.
    async onState(state) {
      if (isManaged()) return 0;
      if (state === "locked") return endAll(END_REASONS.SCREEN_LOCKED);
      if (state === "idle") return endAll(END_REASONS.SYSTEM_IDLE);
      return 0;
    },
  };
}
