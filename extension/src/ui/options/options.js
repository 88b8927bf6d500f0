// The options page (docs/extension.md#layering, UI layer):
// connection (daemon URL, token or one-time code, Save, Test), the
// blocklist, the audit log with a filter, and Reset. It gets a
// BridgeService, a document and confirm(); it never touches chrome.*
// (main.js hands it the runtime service).

import { DEFAULT_URL } from "../../pairing.js";
import { connectionText, createOptionsActions, historyRows } from "./options-view.js";

// mountOptions renders the page and keeps it live. Returns a promise of
// the unsubscribe function, once the config has loaded.
export async function mountOptions(doc, service, { confirm }) {
  const $ = (id) => doc.getElementById(id);
  const actions = createOptionsActions(service, { confirm });
  let history = [];
  const say = ({ ok, message }) => {
    $("msg").textContent = message;
    $("msg").classList.toggle("bad", !ok);
  };
  const url = () => $("url").value.trim() || DEFAULT_URL;

  function renderConnection(c) {
    const t = connectionText(c);
    $("state").textContent = t.label;
    $("state").dataset.state = t.state;
    $("reason").textContent = t.reason;
    $("fix").textContent = t.fix;
  }

  function renderBlocklist(list) {
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
          if (r.blocklist) renderBlocklist(r.blocklist);
        });
        li.append(name, rm);
        return li;
      }),
    );
  }

  function renderHistory() {
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

  async function refreshHistory() {
    try {
      history = await service.getHistory();
      renderHistory();
    } catch (e) {
      say({ ok: false, message: e.message });
    }
  }

  async function loadConfig() {
    const cfg = await service.getConfig();
    $("managed").hidden = !cfg.managed;
    for (const id of ["pair", "manual"]) $(id).disabled = cfg.managed;
    $("url").value = cfg.url || DEFAULT_URL;
    $("token").value = cfg.token || "";
  }

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
      renderBlocklist(r.blocklist);
    }
  });
  $("history-filter").addEventListener("input", renderHistory);
  $("reset").addEventListener("click", async () => {
    const r = await actions.reset();
    say(r);
    await loadConfig().catch(() => {});
    await refreshHistory();
  });

  await loadConfig();
  await refreshHistory();
  let lastSessions = "";
  return service.subscribeState((state) => {
    renderConnection(state.connection);
    renderBlocklist(state.blocklist);
    // A session that ended is a new line of history.
    const key = state.sessions.map((s) => s.tabId).join(",");
    if (key !== lastSessions) {
      lastSessions = key;
      refreshHistory();
    }
  });
}
