// The early recorder's registration (page/recorder-early.js says why it
// exists): a content script Chrome runs at document_start in the top
// frame of every page, registered while at least one recording runs and
// unregistered when the last one ends, so the person's browsing costs
// nothing the rest of the time. Never persisted: a browser restarted
// without a recording has none.

// EARLY_ID is the registration's id; EARLY_FILE the bundled script.
export const EARLY_ID = "bua-recorder-early";
export const EARLY_FILE = "src/generated/recorder-early.js";

export class EarlyScript {
  // scripting is chrome.scripting, or undefined (no early
  // recorder: a new tab's first inputs may then go unrecorded).
  constructor(scripting) {
    this.scripting = scripting;
    this.queue = Promise.resolve();
  }

  // set registers the script (on) or unregisters it, after the calls
  // before it; it resolves once done, and never rejects (a refusal is
  // logged: the recording goes on without it).
  set(on) {
    this.queue = this.queue.then(() => this.apply(on)).catch((e) => console.warn("[bua] the early recorder's registration failed", e));
    return this.queue;
  }

  async apply(on) {
    const s = this.scripting;
    if (!s) return;
    const have = (await s.getRegisteredContentScripts({ ids: [EARLY_ID] })).length > 0;
    if (on && !have) {
      await s.registerContentScripts([
        { id: EARLY_ID, js: [EARLY_FILE], matches: ["<all_urls>"], runAt: "document_start", allFrames: false, persistAcrossSessions: false },
      ]);
    } else if (!on && have) {
      await s.unregisterContentScripts({ ids: [EARLY_ID] });
    }
  }
}

// isEarlyContext says whether context (a Runtime.executionContextCreated
// context) is the early recorder's world: the content script world of
// the extension extensionId (the only one it has).
export function isEarlyContext(context, extensionId) {
  return Boolean(extensionId && context && context.origin === `chrome-extension://${extensionId}` && context.auxData && context.auxData.type === "isolated");
}

// takeEarly takes from the early recorder in contextId (on session, the
// tab's debugger session) the messages of the inputs from before since,
// in order; none without either, or when the document went away.
export async function takeEarly(session, contextId, since) {
  if (contextId === null || contextId === undefined || since === null) return [];
  try {
    const { result } = await session.send("Runtime.evaluate", {
      expression: `globalThis.__buaRecorder && globalThis.__buaRecorder.take ? globalThis.__buaRecorder.take(${Number(since)}) : []`,
      contextId,
      returnByValue: true,
    });
    return result && Array.isArray(result.value) ? result.value.map(String) : [];
  } catch {
    return [];
  }
}
