// The early recorder (docs/extension.md#the-recorder): a content script
// the worker registers while a recording runs (recorder/early.js), which
// Chrome runs at document_start in the top frame of every page, before
// the page's own scripts and before the page can take any input. It is
// how a tab that a recorded click opens misses none of the person's
// input: chrome.debugger cannot hold a new tab until the worker has put
// the recorder proper (page/recorder.js, over CDP) into it (an
// extension's Target.setAutoAttach reaches iframes and workers, never a
// new tab), so a person, or a busy machine, can act there first. This
// recorder keeps what it saw, in its own isolated world, and the worker
// takes it (take(since)) once the recorder proper listens: the messages
// of the inputs from before then become steps, the rest the recorder
// proper has.
//
// It is passive: it never hides an input from the page. It gives up
// after LIFE_MS, or MAX_KEPT messages, in a page nobody took it from (a
// page of the recorded tab itself, which the recorder proper had from
// its start, or a tab no recording follows); what it kept never leaves
// the page unless the worker takes it.

import { listen, recorderState, roleNow } from "./recorder.js";

const LIFE_MS = 60000;
const MAX_KEPT = 500;

export function installEarly() {
  if (globalThis.__buaRecorder) return;
  const kept = [];
  const st = recorderState(
    (json, at) => {
      if (kept.length < MAX_KEPT) kept.push({ at, json });
    },
    { passive: true },
  );
  const unlisten = listen(st);
  const stop = () => {
    if (st.stopped) return;
    st.flush();
    st.release();
    st.stopped = true;
    unlisten();
  };
  const timer = setTimeout(stop, LIFE_MS);
  globalThis.__buaRecorder = {
    el: (id) => st.els.get(id) || null,
    role: (id) => (st.els.has(id) ? roleNow(st.els.get(id)) : null),
    stop,
    // take stops listening and gives the messages of the inputs that
    // happened before since (the recorder proper's since), in order.
    take(since) {
      clearTimeout(timer);
      stop();
      return kept.filter((m) => m.at < since).map((m) => m.json);
    },
  };
}

installEarly();
