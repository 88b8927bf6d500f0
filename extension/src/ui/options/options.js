// The options page (docs/extension.md#layering, UI layer):
// connection (daemon URL, token or one-time code, Save, Test), the
// blocklist, the audit log with a filter, and Reset. It gets a
// UiService, a document and confirm(); it never touches chrome.*
// (main.js hands it the runtime service).

import { DEFAULT_URL } from "../../transport/pairing.js";
import { connectionText, createOptionsActions, historyRows } from "./options-view.js";

// mountOptions renders the page and keeps it live. Returns a promise of
// the unsubscribe function, once the config has loaded.
export async function mountOptions(doc, service, { confirm }) {
  const page = pageOf(doc, service, confirm);
  wire(page);
  await loadConfig(page);
  await refreshHistory(page);
  let lastSessions = "";
  return service.subscribeState((state) => {
    renderConnection(page, state.connection);
    renderBlocklist(page, state.blocklist);
    // A session that ended is a new line of history.
    const key = state.sessions.map((s) => s.tabId).join(",");
    if (key !== lastSessions) {
      lastSessions = key;
      refreshHistory(page);
    }
  });
}

// pageOf is what every part of the page works with: the document, $ (an
// element by id), the service and its actions, say (the status line),
// url (the daemon URL typed, or the default) and the history read last.
function pageOf(doc, service, confirm) {
  const $ = (id) => doc.getElementById(id);
  return {
    doc,
    $,
    service,
    actions: createOptionsActions(service, { confirm }),
    history: [],
    say({ ok, message }) {
      $("msg").textContent = message;
      $("msg").classList.toggle("bad", !ok);
    },
    url: () => $("url").value.trim() || DEFAULT_URL,
  };
}

// wire adds the page's controls' listeners.
function wire(page) {
  const { $, actions, say, url } = page;
  $("claim").addEventListener("click", async () => {
    say({ ok: true, message: "pairing…" });
    const r = await actions.claim(url(), $("code").value);
    if (r.ok) $("code").value = "";
    say(r);
  });
  $("save").addEventListener("click", async () => say(await actions.save(url(), $("token").value)));
  $("test").addEventListener("click", async () => {
    say({ ok: true, message: "testing the connection…" });
    say(await actions.test());
  });
  $("block-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const r = await actions.addBlocked($("block-domain").value);
    say(r);
    if (r.ok) {
      $("block-domain").value = "";
      renderBlocklist(page, r.blocklist);
    }
  });
  $("history-filter").addEventListener("input", () => renderHistory(page));
  $("reset").addEventListener("click", async () => {
    const r = await actions.reset();
    say(r);
    await loadConfig(page).catch(() => {});
    await refreshHistory(page);
  });
}

function renderConnection({ $ }, c) {
  const t = connectionText(c);
  $("state").textContent = t.label;
  $("state").dataset.state = t.state;
  $("reason").textContent = t.reason;
  $("fix").textContent = t.fix;
}

function renderBlocklist(page, list) {
  const { doc, $, actions, say } = page;
  $("blocklist-empty").hidden = list.length > 0;
  $("blocklist").replaceChildren(
    ...list.map((d) => {
      const li = doc.createElement("li");
      li.dataset.domain = d;
      const name = doc.createElement("span");
      name.textContent = d;
      const rm = doc.createElement("button");
      rm.type = "button";
      rm.className = "remove";
      rm.textContent = "Remove";
      rm.setAttribute("aria-label", `Remove ${d} from the blocklist`);
      rm.addEventListener("click", async () => {
        const r = await actions.removeBlocked(d);
        say(r);
        if (r.blocklist) renderBlocklist(page, r.blocklist);
      });
      li.append(name, rm);
      return li;
    }),
  );
}

function renderHistory({ doc, $, history }) {
  const rows = historyRows(history, $("history-filter").value);
  $("history-count").textContent = `${rows.length} of ${history.length} sessions`;
  $("history").tBodies[0].replaceChildren(
    ...rows.map((r) => {
      const tr = doc.createElement("tr");
      tr.dataset.domain = r.domain;
      tr.dataset.reason = r.reason;
      for (const [text, cls] of [[r.domain], [String(r.tabId), "n"], [r.started], [r.ended], [String(r.actionCount), "n"], [r.reasonLabel]]) {
        const td = doc.createElement("td");
        td.textContent = text;
        if (cls) td.className = cls;
        tr.append(td);
      }
      return tr;
    }),
  );
}

async function refreshHistory(page) {
  try {
    page.history = await page.service.getHistory();
    renderHistory(page);
  } catch (e) {
    page.say({ ok: false, message: e.message });
  }
}

async function loadConfig({ $, service }) {
  const cfg = await service.getConfig();
  $("managed").hidden = !cfg.managed;
  for (const id of ["pair", "manual"]) $(id).disabled = cfg.managed;
  $("url").value = cfg.url || DEFAULT_URL;
  $("token").value = cfg.token || "";
}
