// wait_for's probe in the page (actions/wait.js sends it as
// generated/page.js's WAIT_PROBE, every poll).

// probe: el is the target (or null when none matches), hasTarget whether
// the action named one, spec {state, text?, re?}. It answers {ok, seen}:
// whether the condition holds, and what it saw, for the timeout's
// message. Visible is Playwright's rule: a non-empty box and not
// visibility:hidden. Text is matched whitespace-collapsed: the shown text
// is innerText (which leaves out display:none and visibility:hidden), the
// attached text is textContent.
export function probe(el, hasTarget, spec) {
  const attached = Boolean(el && el.isConnected);
  const state = spec.state;
  if (spec.text === undefined) {
    const shown = visible(el);
    const seen = !attached ? "no element matches" : shown ? "it is visible" : "it is attached but hidden";
    const ok = state === "attached" ? attached : state === "detached" ? !attached : state === "visible" ? shown : !shown;
    return { ok, seen };
  }
  const re = spec.re ? new RegExp(spec.re.source, spec.re.flags) : null;
  const has = (s) => {
    const t = norm(s);
    if (!re) return t.includes(spec.text);
    re.lastIndex = 0;
    return re.test(t);
  };
  const root = hasTarget ? el : document.body || document.documentElement;
  const rooted = Boolean(root && root.isConnected);
  const inDom = rooted && has(root.textContent);
  const shown = rooted && (!hasTarget || visible(root)) && has(root.innerText);
  const seen = hasTarget && !rooted ? "the target is not in the page" : shown ? "it is shown" : inDom ? "it is in the DOM but not shown" : "it is not in the page";
  const ok = state === "attached" ? inDom : state === "detached" ? !inDom : state === "visible" ? shown : !shown;
  return { ok, seen };
}

function norm(s) {
  return String(s || "").replace(/\s+/g, " ").trim();
}

function visible(e) {
  if (!e || !e.isConnected || typeof e.getBoundingClientRect !== "function") return false;
  const r = e.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  return typeof e.checkVisibility === "function" ? e.checkVisibility({ visibilityProperty: true }) : getComputedStyle(e).visibility !== "hidden";
}
