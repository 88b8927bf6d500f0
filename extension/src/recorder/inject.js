// Putting the recorder's page side (page/recorder.js) into a tab, and
// taking it out (docs/extension.md#the-recorder). For the tab's own debugger
// session and each out-of-process iframe's child session:
//   - Runtime.addBinding with executionContextName WORLD: the binding the
//     recorder reports through exists in the recorder's world only, so
//     the page cannot call it (and cannot forge a step);
//   - Page.addScriptToEvaluateOnNewDocument with worldName WORLD: the
//     recorder in an isolated world of every new document of every frame,
//     before the page's own scripts, so its capture-phase listeners come
//     first;
//   - for the documents already there, Page.createIsolatedWorld in each
//     frame and the recorder evaluated in it.
// Why CDP rather than chrome.scripting content scripts (both run in an
// isolated world the page cannot reach): the worker already holds the tab
// through chrome.debugger, and the element a step names is then one
// Runtime.evaluate away in the recorder's own world, for describe's role
// lookup through the accessibility tree (recorder/describe.js), where a
// content script's element has no handle the debugger can use. It also
// needs no new permission, and reaches out-of-process iframes through the
// child sessions the controller already attaches.

import { RECORDER } from "../generated/page.js";

// WORLD is the isolated world the recorder runs in; BINDING its binding.
export const WORLD = "bua-recorder";
export const BINDING = "__buaRecord";

// SOURCE is the script run in the recorder's world of every frame, now
// and on each new document: the page side's installRecorder (generated
// page.js's RECORDER, a function declaration) called with the binding.
export const SOURCE = `(${RECORDER})(${JSON.stringify(BINDING)});`;
// SINCE is SOURCE, answering when the world's recorder began listening.
const SINCE = `${SOURCE}\nglobalThis.__buaRecorder ? globalThis.__buaRecorder.since : null;`;

// frameIds lists the ids of the frames in a Page.getFrameTree tree.
export function frameIds(tree) {
  const out = [];
  const walk = (t) => {
    if (!t || !t.frame) return;
    out.push(t.frame.id);
    for (const c of t.childFrames || []) walk(c);
  };
  walk(tree);
  return out;
}

// injectSession puts the recorder into the documents of one debugger
// session of the tab (sid null: the tab's own; else an out-of-process
// iframe's), now and from now on. It returns {identifier, since}: the
// identifier Page.removeScriptToEvaluateOnNewDocument takes, and since,
// when the recorder in the session's top document began listening (its
// performance.now(); null when that document went away meanwhile).
export async function injectSession(session, sid) {
  const send = (method, params) => session.send(method, params, sid || undefined);
  // A child session has no domain enabled (the controller enables the
  // tab's own): without Runtime, its binding calls and its worlds'
  // contexts would go unreported.
  if (sid) await send("Runtime.enable");
  await send("Runtime.addBinding", { name: BINDING, executionContextName: WORLD });
  const { identifier } = await send("Page.addScriptToEvaluateOnNewDocument", { source: SOURCE, worldName: WORLD });
  const { frameTree } = await send("Page.getFrameTree");
  const since = await Promise.all(
    frameIds(frameTree).map(async (frameId) => {
      try {
        const { executionContextId } = await send("Page.createIsolatedWorld", { frameId, worldName: WORLD });
        const { result } = await send("Runtime.evaluate", { expression: SINCE, contextId: executionContextId, returnByValue: true });
        return result && typeof result.value === "number" ? result.value : null;
      } catch {
        // A frame of another process (its own session injects it), or one
        // that went away meanwhile.
        return null;
      }
    }),
  );
  return { identifier, since: since[0] === undefined ? null : since[0] };
}

// removeSession takes the recorder out of one session: no new document
// gets it, its binding reports nothing more, and the recorders already
// running (contextIds, the worlds they run in) stop listening. Best
// effort: a session that is gone has nothing left to remove.
export async function removeSession(session, sid, identifier, contextIds) {
  const send = (method, params) => session.send(method, params, sid || undefined).catch(() => {});
  const stop = "globalThis.__buaRecorder && globalThis.__buaRecorder.stop()";
  await Promise.all([
    identifier ? send("Page.removeScriptToEvaluateOnNewDocument", { identifier }) : null,
    ...contextIds.map((contextId) => send("Runtime.evaluate", { expression: stop, contextId })),
  ]);
  await send("Runtime.removeBinding", { name: BINDING });
  if (sid) await send("Runtime.disable");
}
