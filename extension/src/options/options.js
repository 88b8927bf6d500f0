// Options page: pairing, connection state and blocklist. It reads and writes
// chrome.storage.local (the worker follows storage changes) and asks the
// worker for live state over runtime messages; it never opens sockets.

import { createChromeApi } from "../chrome-api.js";
import { claimCode, DEFAULT_URL, loadPairing } from "../pairing.js";
import { normalizeDomain } from "../session-manager.js";

const api = createChromeApi();
const $ = (id) => document.getElementById(id);

function say(text, bad = false) {
  $("msg").textContent = text;
  $("msg").style.color = bad ? "#b42318" : "";
}

function worker(op) {
  return chrome.runtime.sendMessage({ kind: "bua_options", op });
}

function showState(cs) {
  const s = cs || { state: "unknown" };
  $("state").textContent = s.state;
  $("state").dataset.state = s.state;
  const bits = [];
  if (s.reason) bits.push(s.reason);
  if (s.closeCode) bits.push(`(close ${s.closeCode})`);
  if (s.url) bits.push(s.url);
  $("reason").textContent = bits.join(" ");
}

async function load() {
  const pairing = await loadPairing(api);
  const got = await api.storage.get(["bridge_config", "blocklist", "connectionState"]);
  const managed = pairing.managed;
  $("managed").hidden = !managed;
  for (const id of ["pair", "manual"]) $(id).disabled = managed;
  $("url").value = (got.bridge_config && got.bridge_config.url) || (managed ? pairing.url : DEFAULT_URL);
  $("token").value = (got.bridge_config && got.bridge_config.token) || "";
  $("blocklist").value = (got.blocklist || []).join("\n");
  showState(got.connectionState);
}

$("claim").addEventListener("click", async () => {
  say("pairing…");
  const r = await claimCode(api, $("url").value.trim() || DEFAULT_URL, $("code").value);
  if (r.ok) {
    $("code").value = "";
    say(`paired with ${r.url}`);
    await load();
  } else {
    say(r.message, true);
  }
});

$("save").addEventListener("click", async () => {
  const url = $("url").value.trim() || DEFAULT_URL;
  try {
    const u = new URL(url);
    if (u.protocol !== "ws:" && u.protocol !== "wss:") throw new Error("use ws:// or wss://");
  } catch (e) {
    return say(`bad URL: ${e.message}`, true);
  }
  await api.storage.set({ bridge_config: { url, token: $("token").value.trim() } });
  say("saved; connecting…");
});

$("reconnect").addEventListener("click", async () => {
  await worker("reconnect");
  say("reconnecting…");
});

$("saveBlocklist").addEventListener("click", async () => {
  const list = [...new Set($("blocklist").value.split(/\s+/).map(normalizeDomain).filter(Boolean))];
  await api.storage.set({ blocklist: list });
  $("blocklist").value = list.join("\n");
  say(`blocklist saved (${list.length} domains)`);
});

$("stopAll").addEventListener("click", async () => {
  const r = await worker("stop_all");
  say(r && r.ok ? `stopped ${r.endedCount} session(s)` : `stop failed: ${r && r.message}`, !(r && r.ok));
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes.connectionState) showState(changes.connectionState.newValue);
});

load().catch((e) => say(String(e), true));
