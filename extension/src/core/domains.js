// Pure domain helpers shared by the worker (blocklist checks) and the UI
// (validating what a person types into the options page). No chrome.*.

// normalizeDomain lower-cases and strips scheme, port, path, a leading
// "*." and trailing dot, so "https://Example.com:8080/x" blocks example.com.
export function normalizeDomain(d) {
  let s = String(d || "").trim().toLowerCase();
  if (!s) return "";
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/[/?#].*$/, "").replace(/^\*\./, "");
  if (!s.startsWith("[")) s = s.replace(/:\d+$/, "");
  return s.replace(/\.$/, "");
}

// hostOf returns the lower-case host of an http(s) URL, or "" for
// about:blank and other schemes.
export function hostOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname.toLowerCase() : "";
  } catch {
    return "";
  }
}

// blockedBy returns the blocklist entry that host falls under (equal, or a
// subdomain: "a.example.com" is under "example.com", "badexample.com" is
// not), or null.
export function blockedBy(host, blocklist) {
  const h = normalizeDomain(host);
  if (!h) return null;
  for (const entry of blocklist) {
    if (h === entry || h.endsWith("." + entry)) return entry;
  }
  return null;
}

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOST_RE = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const IPV6_RE = /^\[[0-9a-f:.]+\]$/;

// validateDomain turns what a person typed as a blocklist entry into the
// entry: {ok: true, domain} (normalised as normalizeDomain does, an
// international name in its punycode form, as hosts are compared) or
// {ok: false, message} saying what is wrong and what to type instead.
export function validateDomain(text) {
  const raw = String(text || "").trim();
  let d = normalizeDomain(raw);
  if (!d) return { ok: false, message: "type a domain such as example.com" };
  if (!IPV6_RE.test(d)) {
    try {
      d = new URL(`http://${d}`).hostname;
    } catch {
      return { ok: false, message: `"${raw}" is not a domain: type a name such as example.com` };
    }
  }
  if (!HOST_RE.test(d) && !IPV6_RE.test(d)) {
    return { ok: false, message: `"${raw}" is not a domain: type a name such as example.com (letters, digits, dots and dashes)` };
  }
  return { ok: true, domain: d };
}
