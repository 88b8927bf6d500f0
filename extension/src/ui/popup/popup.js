// The popup, the activity monitor (docs/extension.md#layering, UI
// layer): connection state with its reason and fix, the live sessions
// each with a Stop button, Stop all, and the handoffs waiting for the
// person. It gets a UiService and a document; it never touches
// chrome.* (main.js hands it the runtime service).

import { createPopupActions, popupView } from "./popup-view.js";

// mountPopup renders the service's state into doc and keeps it live.
// Returns the unsubscribe function.
export function mountPopup(doc, service) {
  const $ = (id) => doc.getElementById(id);
  const actions = createPopupActions(service);
  const say = ({ ok, message }) => {
    $("msg").textContent = message;
    $("msg").classList.toggle("bad", !ok);
  };

  function el(tag, props = {}, ...children) {
    const e = doc.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "dataset") Object.assign(e.dataset, v);
      else if (k in e) e[k] = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  }

  function render(state) {
    const vm = popupView(state);
    $("state").textContent = vm.connection.label;
    $("state").dataset.state = vm.connection.state;
    $("reason").textContent = vm.connection.reason;
    $("fix").textContent = vm.connection.fix;

    $("needs-you").hidden = vm.needsYou.length === 0;
    $("handoffs").replaceChildren(
      ...vm.needsYou.map((h) =>
        el(
          "li",
          { dataset: { tabId: String(h.tabId) } },
          el("span", { className: "text", title: h.message }, h.text),
          " ",
          el("button", { type: "button", className: "show", "aria-label": h.showLabel, onclick: async () => say(await actions.show(h.tabId)) }, "Show tab"),
        ),
      ),
    );

    $("recording").hidden = vm.recordings.length === 0;
    $("recordings").replaceChildren(...vm.recordings.map((r) => recordingItem(el, r, actions, say)));

    $("empty").hidden = !vm.empty;
    $("sessions").replaceChildren(
      ...vm.sessions.map((s) =>
        el(
          "li",
          { dataset: { tabId: String(s.tabId) } },
          el("span", { className: "title", title: s.title }, s.title),
          el("button", { type: "button", className: "stop", "aria-label": s.stopLabel, onclick: async () => say(await actions.stop(s.tabId)) }, "Stop"),
          el("span", { className: "meta" }, `${s.domain} · ${s.actions} · since ${s.started}`),
        ),
      ),
    );
    $("stop-all").disabled = vm.stopAllDisabled;
  }

  $("stop-all").addEventListener("click", async () => say(await actions.stopAll()));
  render(null);
  return service.subscribeState(render);
}

// recordingItem is one recording in the popup: what it records, its steps,
// Stop, and the two checks it can add. el builds elements, say shows an
// action's outcome.
function recordingItem(el, r, actions, say) {
  const button = (className, label, text, fn) => el("button", { type: "button", className, "aria-label": label, onclick: async () => say(await fn(r.tabId)) }, text);
  return el(
    "li",
    { dataset: { tabId: String(r.tabId) } },
    el("span", { className: "text" }, r.text),
    button("stop-recording danger", r.stopLabel, "Stop", actions.stopRecording),
    el("span", { className: "meta" }, r.steps),
    el(
      "span",
      { className: "checks" },
      button("assert-url", "Add a check that the page is at this URL", "Assert URL", actions.assertUrl),
      " ",
      button("assert-title", "Add a check that the page has this title", "Assert title", actions.assertTitle),
    ),
  );
}
