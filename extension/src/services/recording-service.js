// The recordings' part of the worker's UiService
// (services/ui-service.js, services/ui-service-local.js): the
// live recordings in the state the popup shows, its Stop, and the two
// checks it adds (docs/record.md#checks-as-you-go).

import { SERVICE_ERRORS, ServiceError } from "./ui-service.js";

// NO_RECORDER stands in for the recorder where there is none: nothing is
// recorded.
export const NO_RECORDER = Object.freeze({ list: () => [], subscribe: () => () => {} });

// recordingsState is the state's recordings: each live one, with the title
// of the tab its last step was on.
export async function recordingsState(recorder, titleOf) {
  const live = recorder.list();
  const titles = await Promise.all(live.map((r) => titleOf(r.lastTab)));
  return live.map((r, i) => ({ tabId: r.tabId, tabs: r.tabs, lastTab: r.lastTab, title: titles[i] || r.title || "", steps: r.steps, startedAt: r.startedAt }));
}

// recordingMethods are the UiService methods over recorder.
export function recordingMethods(recorder) {
  const live = (tabId) => {
    if (!recorder.list().some((r) => r.tabId === tabId)) {
      throw new ServiceError(SERVICE_ERRORS.NOT_FOUND, `no recording runs on tab ${tabId}: it has ended already`);
    }
  };
  return {
    async stopRecording(tabId) {
      live(tabId);
      const r = await recorder.stop(tabId, "user_stopped");
      return { steps: r.steps };
    },
    async assertPage({ tabId, what }) {
      live(tabId);
      return recorder.assertPage(tabId, what);
    },
  };
}
