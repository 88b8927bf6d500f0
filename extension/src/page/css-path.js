// The CSS path locator (locator.js): short, from stable tokens, never an
// nth-child chain.

import { TEST_ID_ATTRS, cssString, isGeneratedId, isStableClass } from "./locator-rules.js";

// cssPath is the shortest CSS path it finds that matches target alone,
// as {selector, count, nth} (count(selector) gives the last two): from
// target's own tokens, then an ancestor's (up to four levels up, below
// doc's root) before them, then two ancestors'; failing that, target's
// best token with nth. null when no token matches it.
export function cssPath(target, doc, count) {
  const mine = tokensOf(target);
  for (const t of mine) {
    const c = count(t);
    if (c.count === 1) return { selector: t, ...c };
  }
  const ancestors = [];
  for (let a = target.parentElement; a && ancestors.length < 4 && a !== doc.documentElement; a = a.parentElement) ancestors.push(a);
  const best = underOne(ancestors, mine, count);
  if (!best.length) best.push(...underTwo(ancestors, mine, count));
  if (best.length) return best.sort((a, b) => a.selector.length - b.selector.length)[0];
  // Nothing unique: the element's own best token, with nth.
  for (const t of mine) {
    const c = count(t);
    if (c.count > 0) return { selector: t, ...c };
  }
  return null;
}

// underOne are the unique paths of one ancestor's token before one of
// the element's (its parent's as a child combinator).
function underOne(ancestors, mine, count) {
  const best = [];
  ancestors.forEach((a, depth) => {
    for (const ta of tokensOf(a).slice(0, 4)) {
      for (const t of mine.slice(0, 6)) {
        const sel = `${ta}${depth === 0 ? " > " : " "}${t}`;
        const c = count(sel);
        if (c.count === 1) best.push({ selector: sel, ...c });
      }
    }
  });
  return best;
}

// underTwo are the unique paths of two ancestors' tokens before one of the
// element's, from the first pair of ancestors that gives any.
function underTwo(ancestors, mine, count) {
  const best = [];
  for (let i = 0; i < ancestors.length && !best.length; i++) {
    for (let j = i + 1; j < ancestors.length && !best.length; j++) {
      for (const t2 of tokensOf(ancestors[j]).slice(0, 2)) {
        for (const t1 of tokensOf(ancestors[i]).slice(0, 2)) {
          for (const t of mine.slice(0, 3)) {
            const sel = `${t2} ${t1} ${t}`;
            const c = count(sel);
            if (c.count === 1) best.push({ selector: sel, ...c });
          }
        }
      }
    }
  }
  return best;
}

// tokensOf are e's selector tokens, best first: a person's id, test ids, a
// form control's name, short labelling attributes, an input's type, a
// short href, stable classes, the tag.
function tokensOf(e) {
  const t = e.localName;
  const list = [];
  if (e.id && !isGeneratedId(e.id)) list.push("#" + CSS.escape(e.id));
  for (const a of TEST_ID_ATTRS) if (e.getAttribute(a)) list.push(`[${a}=${cssString(e.getAttribute(a))}]`);
  if (e.getAttribute("name") && /^(input|select|textarea|button|form|iframe|fieldset|output|object)$/.test(t)) {
    list.push(`${t}[name=${cssString(e.getAttribute("name"))}]`);
  }
  for (const a of ["aria-label", "placeholder", "title", "alt", "role"]) {
    const v = e.getAttribute(a);
    if (v && v.length <= 40) list.push(`${t}[${a}=${cssString(v)}]`);
  }
  if (t === "input" && e.getAttribute("type")) list.push(`input[type=${cssString(e.getAttribute("type"))}]`);
  if (t === "a" && e.getAttribute("href") && e.getAttribute("href").length <= 60) list.push(`a[href=${cssString(e.getAttribute("href"))}]`);
  const classes = Array.from(e.classList).filter(isStableClass).slice(0, 3);
  for (const c of classes) list.push(`${t}.${CSS.escape(c)}`);
  if (classes.length > 1) list.push(`${t}.${classes.slice(0, 2).map((c) => CSS.escape(c)).join(".")}`);
  list.push(t);
  return list;
}
