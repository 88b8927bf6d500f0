// Obstacle detection, docs/protocol.md#obstacles. A pure module (no
// DOM, no chrome.*) that extract calls on what it gathered in the page.
//
// Its patterns, needles, labels, thresholds and verdicts are data,
// generated from extension/schema/obstacle.rules.json into
// generated/obstacle-rules.js; bua obstacle runs the same data in Go
// (pkg/obstacle, rules_gen.go), with the same steps as here, and both are
// held to the shared vectors in testdata/obstacle/*.json.
//
// Lengths are Unicode code points of the markdown as given: JS string
// length counts UTF-16 units and Go's counts bytes, so neither is used.
import { AUTH, CONTENT_PAGE_CHARS, RULES, SCAN_CHARS, SHORT_PAGE_CHARS, SIGNALS, TITLE_SEPARATOR, VERDICTS } from "../generated/obstacle-rules.js";

export { CONTENT_PAGE_CHARS, SCAN_CHARS, SHORT_PAGE_CHARS };

// A rule's regexp runs only when one of its needles occurs; each needle list
// is a necessary condition for the pattern, so it saves time, never changes
// the answer.
const compile = (r) => Object.freeze({ label: r.label, needles: r.needles, re: r.pattern === null ? null : new RegExp(r.pattern) });
function match(r, s) {
  for (const n of r.needles) {
    if (s.includes(n)) return r.re === null || r.re.test(s);
  }
  return false;
}

const GROUPS = SIGNALS.map((g) => ({ ...g, rules: RULES[g.rules].map(compile) }));
const authHost = new RegExp(AUTH.host.pattern);
const authPath = new RegExp(AUTH.path.pattern);
const authTitle = new RegExp(AUTH.title.pattern);
const passwordName = compile(AUTH.password);
const oauthName = compile(AUTH.oauth);
const signInName = compile(AUTH.signIn);
const forgotName = compile(AUTH.forgot);
const signUpName = compile(AUTH.signUp);
const segmentSep = new RegExp(TITLE_SEPARATOR);

/** ASCII-only lowercasing plus NBSP → space, exactly as Go's. */
export function lower(s) {
  return s.replace(/[A-Z\u00a0]/g, (c) => (c === '\u00a0' ? ' ' : String.fromCharCode(c.charCodeAt(0) + 32)));
}

// Length in UTF-16 units of the code point starting at i.
function cpLen(s, i) {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** The first n code points of s. */
export function cut(s, n) {
  if (s.length <= n) return s;
  let k = 0;
  for (let i = 0; i < s.length; i += cpLen(s, i)) {
    if (k === n) return s.slice(0, i);
    k++;
  }
  return s;
}

/** Code points in s, counting stops at limit. */
export function countUpTo(s, limit) {
  let k = 0;
  for (let i = 0; i < s.length; i += cpLen(s, i)) {
    k++;
    if (k >= limit) break;
  }
  return k;
}

function segments(lines) {
  const out = [];
  for (const l of lines) {
    if (l === '') continue;
    out.push(...l.split(segmentSep));
  }
  return out;
}

// H1 lines plus the first heading of any level: where an error page states
// its error (documentation lists codes as H2/H3).
function headlines(md) {
  const out = [];
  let first = true;
  for (const line of md === '' ? [] : md.split('\n')) {
    const level = headingLevel(line);
    if (level === 0) continue;
    if (first || level === 1) out.push(line);
    first = false;
  }
  return out;
}

function headingLevel(line) {
  let i = 0;
  while (i < 3 && i < line.length && line[i] === ' ') i++;
  let n = 0;
  while (i < line.length && line[i] === '#') {
    i++;
    n++;
  }
  if (n === 0 || n > 6) return 0;
  if (i < line.length && line[i] !== ' ' && line[i] !== '\t') return 0;
  return n;
}

class SignalList {
  constructor() {
    this.list = [];
  }
  add(x) {
    if (!this.list.includes(x)) this.list.push(x);
  }
  addIf(ok, x) {
    if (ok) this.add(x);
  }
  addAny(prefix, rules, texts) {
    for (const r of rules) {
      if (texts.some((t) => match(r, t))) this.add(prefix + r.label);
    }
  }
}

const str = (v) => (typeof v === 'string' ? v : '');

// authElements reads the auth signals of the visible elements: a
// password field, and sign-in, sign-up, forgot-password and OAuth
// buttons or links.
function authElements(elements) {
  let pw = false, signIn = false, signUp = false, forgot = false, oauth = false;
  for (const el of Array.isArray(elements) ? elements : []) {
    if (!el || el.visible === false) continue;
    const name = lower(str(el.name));
    switch (lower(str(el.role))) {
      case 'textbox':
      case 'searchbox':
        pw = pw || match(passwordName, name);
        break;
      case 'button':
        if (match(oauthName, name)) oauth = true;
        else if (match(signInName, name)) signIn = true;
        else if (match(forgotName, name)) forgot = true;
        break;
      case 'link':
        // A "Log in" link leads to a sign-in page; it is not one.
        if (match(oauthName, name)) oauth = true;
        else if (match(forgotName, name)) forgot = true;
        else if (match(signUpName, name)) signUp = true;
        break;
    }
  }
  return { pw, signIn, signUp, forgot, oauth };
}

/**
 * Classify a page and say why.
 * @param {{url?: string, title?: string, markdown?: string,
 *   elements?: Array<{uid: string, role: string, name?: string, value?: string, visible?: boolean}>,
 *   captchaFrame?: boolean}} input gathered during extract
 * @returns {{obstacle: null | {type: string, confidence: string, message: string},
 *   layer: string, signals: string[]}} layer is "L1".."L4" or ""
 */
export function explainObstacle(input) {
  const markdown = str(input.markdown);
  const mdLen = countUpTo(markdown, CONTENT_PAGE_CHARS);
  const short = mdLen < SHORT_PAGE_CHARS;
  const sparse = mdLen < CONTENT_PAGE_CHARS;
  const url = lower(str(input.url));
  const md = lower(cut(markdown, SCAN_CHARS));
  const titleSegs = segments([lower(str(input.title))]);
  let heads = null;
  const texts = { url: () => [url], markdown: () => [md], title: () => titleSegs, headlines: () => (heads ??= segments(headlines(md))) };
  const admits = { always: true, sparse, short };

  // Every layer gathers its signals even when an earlier one will decide,
  // so the signals show all that was seen; precedence is applied at the end.
  const sig = new SignalList();
  if (input.captchaFrame === true) sig.add('captcha_frame');
  const ends = { captcha: sig.list.length, denied: 0 };
  for (const g of GROUPS) {
    if (admits[g.when]) sig.addAny(g.prefix, g.rules, texts[g.on]());
    ends[g.layer] = sig.list.length;
  }
  const captchaEnd = ends.captcha;
  const deniedEnd = ends.denied;

  // L3/L4: auth.
  const { pw, signIn, signUp, forgot, oauth } = authElements(input.elements);
  let authURL = '';
  let m = authHost.exec(url);
  if (m) authURL = 'auth_url:' + m[1] + '.';
  else if ((m = authPath.exec(url))) authURL = 'auth_url:/' + m[1];
  const authTitled = titleSegs.some((s) => authTitle.test(s));
  const authStart = sig.list.length;
  sig.addIf(pw, 'password_field');
  sig.addIf(signIn, 'sign_in_button');
  sig.addIf(signUp, 'sign_up_link');
  sig.addIf(forgot, 'forgot_password_link');
  sig.addIf(oauth, 'oauth_button');
  sig.addIf(authURL !== '', authURL);
  sig.addIf(authTitled, 'auth_title');
  const auth = sig.list.slice(authStart);

  const v = { obstacle: null, layer: '', signals: sig.list };
  const because = (verdict, why, count) => ({
    type: verdict.type,
    confidence: verdict.confidence,
    message: verdict.message.replace('{count}', String(count)) + ' (' + why + ')',
  });
  if (captchaEnd > 0) {
    v.layer = 'L1';
    v.obstacle = because(VERDICTS.L1, sig.list[0]);
  } else if (deniedEnd > captchaEnd) {
    v.layer = 'L2';
    v.obstacle = because(VERDICTS.L2, sig.list[captchaEnd]);
  } else if (pw && (authURL !== '' || authTitled)) {
    v.layer = 'L3';
    v.obstacle = because(VERDICTS.L3, authURL || 'auth_title');
  } else if (!sparse) {
    // A content page lets a reader in, whatever its header offers.
  } else if (auth.length >= 2 && (short || auth.length > Number(signIn) + Number(signUp))) {
    // Above a short page, a sign-in button plus a sign-up link is site
    // chrome; one signal from the page itself is needed.
    v.layer = 'L4';
    v.obstacle = because(VERDICTS.L4, auth.join(', '), auth.length);
  } else if (auth.length === 1 && short) {
    v.layer = 'L4';
    v.obstacle = because(VERDICTS.L4low, auth[0]);
  }
  return v;
}

/**
 * The wire verdict for extract's "obstacle": null, or
 * {type: "auth_wall"|"captcha"|"access_denied", confidence: "low"|"high", message}.
 */
export function detectObstacle(input) {
  return explainObstacle(input).obstacle;
}
