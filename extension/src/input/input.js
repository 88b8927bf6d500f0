// Mouse and Keyboard: trusted input through CDP's Input domain (events
// reach the page with isTrusted = true), as Playwright's input.ts keeps
// them apart from locating. A mouse event goes where input/actionability.js
// aimed it: a point in the tab's viewport, or in an out-of-process
// iframe's own viewport and session. Nothing here finds or checks an
// element.

import { invalid, sessionSend } from "../core/cdp.js";
import { keyEvents } from "./keys.js";

// BUTTON_BITS is Input.dispatchMouseEvent's `buttons` bit for each of
// click's buttons.
const BUTTON_BITS = Object.freeze({ left: 1, right: 2, middle: 4, back: 8, forward: 16 });

// mouse returns the mouse for ctx (its send, sendTo, sleep and budget, and
// managed()): move and click at an aim {x, y, to} (to: {session, x, y}
// for an out-of-process iframe's own session and point).
export function mouse(ctx) {
  // event sends one mouse event at the aim's point.
  const event = (at, type, extra) => {
    const { x, y } = at.to || at;
    return sessionSend(ctx, at.to ? at.to.session : null)("Input.dispatchMouseEvent", { type, x, y, button: "none", buttons: 0, modifiers: 0, ...extra });
  };
  return {
    async move(at) {
      await event(at, "mouseMoved");
    },
    // click sends a move, then clickCount presses and releases of button
    // (the schema's action.click button and clickCount, feature
    // click_options), counting up as a person's double click reaches
    // Chromium: the page sees click (detail 1), click (detail 2), then
    // dblclick. They go back to back without waiting between them: a
    // debugger session runs its commands in order, so the page still sees
    // move, press, release, and the click costs one round trip instead of
    // three.
    async click(at, { button = "left", clickCount = 1 } = {}) {
      const sent = [event(at, "mouseMoved")];
      for (let n = 1; n <= clickCount; n++) {
        sent.push(
          event(at, "mousePressed", { button, buttons: BUTTON_BITS[button], clickCount: n }),
          event(at, "mouseReleased", { button, buttons: 0, clickCount: n }),
        );
      }
      await Promise.all(sent);
    },
    drawFrame: () => drawFrame(ctx),
  };
}

// drawFrame makes a hidden page (a tab of the minimized BUA window) draw
// one compositor frame before a mouse event: Chrome routes mouse input by
// the hit-test data of the page's last frame, and drops it when the page
// has drawn none (a tab that became active while its window was
// minimized), while the action would report ok. A 1×1 capture draws one
// frame (about 20-40 ms, measured in e2e/person); a capture that stalls
// (see capture.js) is not waited for past DRAW_FRAME_MS.
// A managed (headless) browser needs none of this: its pages take mouse
// input without a frame drawn first (e2e TestClickBackgroundTab), and a
// capture there can stall for the whole DRAW_FRAME_MS.
const DRAW_FRAME_MS = 1000;
async function drawFrame(ctx) {
  if (ctx.managed && ctx.managed()) return;
  const shot = ctx.send("Page.captureScreenshot", { format: "jpeg", quality: 1, clip: { x: 0, y: 0, width: 1, height: 1, scale: 1 } });
  await Promise.race([shot.catch(() => {}), ctx.sleep(Math.min(DRAW_FRAME_MS, Math.max(0, ctx.budget.inner())))]);
}

// keyboard returns the keyboard for ctx (its send and sendTo). Key events
// and text go to the tab's session, which delivers them to the focused
// frame, as a person's keyboard does.
export function keyboard(ctx) {
  const send = async (events, { together = false } = {}) => {
    if (together) {
      await Promise.all(events.map((ev) => ctx.send("Input.dispatchKeyEvent", ev)));
      return;
    }
    for (const ev of events) await ctx.send("Input.dispatchKeyEvent", ev);
  };
  return {
    // eventsFor is the named key's Input.dispatchKeyEvent params
    // (input/keys.js); an unknown name is invalid_action.
    eventsFor: keyEventsOf,
    // send sends key events, each after the one before it answered;
    // together sends them back to back instead (type clear's Delete).
    send,
    // press sends the named key's events (eventsFor, then send).
    press: (key, opts) => send(keyEventsOf(key), opts),
    // insertText inserts text like a paste: Unicode goes through unchanged
    // and no per-character key events are synthesised.
    async insertText(text) {
      await ctx.send("Input.insertText", { text });
    },
  };
}

function keyEventsOf(key) {
  try {
    return keyEvents(key);
  } catch (e) {
    if (e instanceof RangeError) throw invalid(e.message);
    throw e;
  }
}
