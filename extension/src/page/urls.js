// Link and image targets in the markdown (docs/extension.md "Markdown
// rules", URLs): tracking parameters dropped, the page's own origin
// written as paths, so the 30 KB budget goes to text, not URLs.

// Query parameters that only identify a campaign, a click or a referrer.
const TRACKING = /^(utm_.*|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|twclid|igshid|mc_cid|mc_eid|_hsenc|_hsmi|mkt_tok|ref|ref_src|ref_url|cmpid|ocid)$/i;

// pageOf is the page's URL (toMarkdown's opts.pageUrl) parsed, or null.
export function pageOf(pageUrl) {
  try {
    return pageUrl ? new URL(pageUrl) : null;
  } catch (e) {
    return null;
  }
}

// target is url as a Markdown link target: shortUrl's, with parentheses
// and whitespace percent-encoded so they never end the target
// (encodeURIComponent leaves parentheses as they are).
export function target(url, page) {
  return shortUrl(url, page).replace(/[()\s]/g, (c) => (c === "(" ? "%28" : c === ")" ? "%29" : encodeURIComponent(c)));
}

// shortUrl drops tracking parameters from an http(s) URL and writes a
// URL on the page's origin (page, a URL or null) as its path (or
// #fragment on the page itself). Other URLs, and ones URL cannot parse,
// are returned as they are.
export function shortUrl(raw, page) {
  let u;
  try {
    u = new URL(raw);
  } catch (e) {
    return raw;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return raw;
  const search = u.search ? keptQuery(u.search) : u.search;
  if (page && u.origin === page.origin) {
    if (u.hash && u.pathname === page.pathname && search === page.search) return u.hash;
    return u.pathname + search + u.hash;
  }
  const base = u.href.slice(0, u.href.length - u.search.length - u.hash.length);
  return base + search + u.hash;
}

// keptQuery is search ("?a=1&utm_source=x") without its tracking
// parameters, the others in their order and encoding; "" when none is left.
function keptQuery(search) {
  const kept = search.slice(1).split("&").filter((pair) => {
    if (!pair) return false;
    const key = pair.split("=")[0];
    let name;
    try {
      name = decodeURIComponent(key.replace(/\+/g, " "));
    } catch (e) {
      name = key;
    }
    return !TRACKING.test(name);
  });
  return kept.length ? "?" + kept.join("&") : "";
}
