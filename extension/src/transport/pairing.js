// Where the worker connects and with which token (docs/extension.md
// §Pairing). A managed browser's pairing.json, written by the daemon beside
// manifest.json, wins over anything the user stored.

export const DEFAULT_URL = "ws://127.0.0.1:48123/ws/browser";
const CODE_RE = /^[A-Z0-9]{4}-?[A-Z0-9]{4}$/;

// loadPairing returns {kind: "managed"|"user"|"default", managed, url, token,
// blocklist}. api is chrome-api.js's object.
export async function loadPairing(api) {
  const managed = await readManagedFile(api);
  if (managed) return managed;
  const { bridge_config: cfg } = await api.storage.get("bridge_config");
  if (cfg && typeof cfg.url === "string" && cfg.url) {
    return { kind: "user", managed: false, url: cfg.url, token: String(cfg.token || ""), blocklist: [] };
  }
  return { kind: "default", managed: false, url: DEFAULT_URL, token: "", blocklist: [] };
}

async function readManagedFile(api) {
  let res;
  try {
    res = await api.fetch(api.runtime.getURL("pairing.json"));
  } catch {
    return null; // a missing packaged file rejects the fetch: not managed
  }
  if (!res.ok) return null;
  let p;
  try {
    p = await res.json();
  } catch {
    return null;
  }
  if (!p || typeof p.url !== "string" || !p.url) return null;
  return {
    kind: "managed",
    managed: true,
    url: p.url,
    token: String(p.token || ""),
    blocklist: Array.isArray(p.blocklist) ? p.blocklist.filter((d) => typeof d === "string") : [],
  };
}

// claimURL derives the daemon's HTTP claim endpoint from its WebSocket URL:
// ws://127.0.0.1:PORT/ws/browser -> http://127.0.0.1:PORT/pair/claim.
export function claimURL(wsURL) {
  const u = new URL(wsURL || DEFAULT_URL);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = "/pair/claim";
  u.search = "";
  u.hash = "";
  return u.toString();
}

// normalizeCode upper-cases a typed code and restores its dash, so "abcd2345"
// and "ABCD-2345" claim the same code; null when it cannot be a code.
export function normalizeCode(code) {
  const c = String(code || "").trim().toUpperCase().replace(/\s+/g, "");
  if (!CODE_RE.test(c)) return null;
  return c.includes("-") ? c : `${c.slice(0, 4)}-${c.slice(4)}`;
}

// claimCode trades a one-time pairing code for a token and stores it as
// bridge_config. Returns {ok:true, url} or {ok:false, message}.
export async function claimCode(api, wsURL, rawCode) {
  const code = normalizeCode(rawCode);
  if (!code) return { ok: false, message: "a pairing code looks like ABCD-2345 (from `bua pair --code`)" };
  let res;
  try {
    res = await api.fetch(claimURL(wsURL), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
    });
  } catch (e) {
    return { ok: false, message: `cannot reach the bua daemon at ${claimURL(wsURL)}: is \`bua serve\` running? (${e.message})` };
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    // fall through with body null
  }
  if (!res.ok) {
    const msg = body && body.error && body.error.message ? body.error.message : `HTTP ${res.status}`;
    return { ok: false, message: `pairing refused: ${msg}` };
  }
  if (!body || typeof body.token !== "string" || !body.token) {
    return { ok: false, message: "the daemon answered without a token" };
  }
  const url = typeof body.url === "string" && body.url ? body.url : wsURL;
  await api.storage.set({ bridge_config: { url, token: body.token } });
  return { ok: true, url };
}
