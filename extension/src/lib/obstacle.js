// Obstacle detection, protocol v4 §Obstacle detection: the JS twin of
// pkg/obstacle (Go). A pure module — no DOM, no chrome.* — so extract can
// call it in the page and node --test can prove it against the shared
// vectors in testdata/obstacle/*.json, which the Go suite runs too.
//
// Every pattern is a String.raw template with exactly the text of its Go
// twin (pkg/obstacle/signals.go; TestPatternParity checks). They stay in the
// subset where RE2 and JS without flags agree: no \s, no ".", no lookaround,
// no flags. Inputs are ASCII-lowercased first, and word edges are spelled
// [^a-z0-9] where a phrase may start or end with punctuation.
//
// Lengths are Unicode code points of the markdown as given: JS string
// length counts UTF-16 units and Go's counts bytes, so neither is used.

/** Markdown scanned, in code points; the rest is never read. */
export const SCAN_CHARS = 4096;
/** Markdown shorter than this is a short page (399 is, 400 is not). */
export const SHORT_PAGE_CHARS = 400;
/** Markdown this long or longer is a content page (see the Go docs). */
export const CONTENT_PAGE_CHARS = 2000;

const raw = (src) => new RegExp(src);
const whole = (core) => new RegExp('^[^a-z0-9]*(?:' + core + ')[^a-z0-9]*$');
const free = (core) => new RegExp('(?:^|[^a-z0-9])(?:' + core + ')(?:[^a-z0-9]|$)');

// A rule's regexp runs only when one of its needles occurs; each needle list
// is a necessary condition for the pattern, so it saves time, never changes
// the answer.
const rule = (label, needles, re) => ({ label, needles, re });
function match(r, s) {
  for (const n of r.needles) {
    if (s.includes(n)) return r.re === null || r.re.test(s);
  }
  return false;
}

const captchaURLRules = [
  rule('/cdn-cgi/challenge-platform', ['/cdn-cgi/challenge-platform'], null),
  rule('__cf_chl_', ['__cf_chl_'], null),
  rule('challenges.cloudflare.com', ['challenges.cloudflare.com'], raw(String.raw`^[a-z][a-z0-9+.-]*://challenges\.cloudflare\.com(?:[:/?#]|$)`)),
  rule('recaptcha.net', ['recaptcha.net'], raw(String.raw`^[a-z][a-z0-9+.-]*://(?:[a-z0-9-]+\.)*recaptcha\.net(?:[:/?#]|$)`)),
  rule('captcha-delivery.com', ['captcha-delivery.com'], raw(String.raw`^[a-z][a-z0-9+.-]*://(?:[a-z0-9-]+\.)*captcha-delivery\.com(?:[:/?#]|$)`)),
  rule('google.com/sorry', ['/sorry/'], raw(String.raw`^[a-z][a-z0-9+.-]*://(?:www\.|ipv4\.|ipv6\.)?google\.[a-z.]+/sorry/`)),
  rule('/recaptcha', ['/recaptcha'], raw(String.raw`/recaptcha(?:[/?#.]|$)`)),
  rule('/hcaptcha', ['/hcaptcha'], raw(String.raw`/hcaptcha(?:[/?#.]|$)`)),
  rule('/turnstile', ['/turnstile'], raw(String.raw`/turnstile(?:[/?#.]|$)`)),
  rule('/captcha', ['/captcha'], raw(String.raw`/captcha(?:[/?#.]|$)`)),
];

// Interstitial boilerplate no article writes in passing: counts anywhere in
// the scanned markdown, even on a long page.
const captchaBoilerplate = [
  rule('checking your browser', ['browser before'], free(String.raw`checking your browser before accessing`)),
  rule('checking your browser', ['connection is secure'], free(String.raw`checking if the site connection is secure`)),
  rule('verify you are human', ['verify you are human by'], free(String.raw`verify you are human by completing the action below`)),
  rule('verify you are human', ['your connection before proceeding'], free(String.raw`needs to review the security of your connection before proceeding`)),
  rule('press and hold', ['hold to confirm'], free(String.raw`press (?:&|and) hold to confirm you are (?:a )?human`)),
  rule('unusual traffic', ['unusual traffic from'], free(String.raw`our systems have detected unusual traffic from your computer network`)),
];

const captchaPhraseCores = [
  ['verify you are human', ['human'], String.raw`(?:please )?verify(?:ing)? (?:that )?you(?: are|['’]re) (?:a )?human(?: by completing the action below)?`],
  ["i'm not a robot", ['not a robot'], String.raw`i(?:['’]m| am) not a robot`],
  ['are you a robot', ['are you a '], String.raw`are you a (?:robot|human)`],
  ['complete the captcha', ['the captcha', 'the security check'], String.raw`(?:please )?(?:complete|solve|pass) the (?:captcha|security check)(?: below| to continue)?`],
  ['checking your browser', ['checking your browser', 'checking if the site'], String.raw`checking (?:your browser|if the site connection is secure)(?: before accessing[^\n]*)?`],
  ['human verification', ['human verification'], String.raw`human verification`],
  ['press and hold', ['press & hold', 'press and hold'], String.raw`press (?:&|and) hold(?: to confirm you are (?:a )?human)?`],
  ['unusual traffic', ['unusual traffic'], String.raw`our systems have detected unusual traffic(?: from your computer network)?`],
];

const deniedWholeCores = [
  ['403', ['403'], String.raw`(?:(?:http|error|status)(?: code)?:? ?)?403(?: ?(?:[-:–—] ?)?(?:error|forbidden|access denied|access forbidden))?`],
  ['429', ['429'], String.raw`(?:(?:http|error|status)(?: code)?:? ?)?429(?: ?(?:[-:–—] ?)?(?:error|too many requests|rate limited))?`],
  ['forbidden', ['forbidden'], String.raw`(?:access )?forbidden`],
  ['access denied', ['denied'], String.raw`access (?:is |has been )?denied|access to this (?:page|site|resource) (?:has been|is) denied|permission denied`],
  ['too many requests', ['too many requests'], String.raw`too many requests`],
  ['rate limit', ['rate limit'], String.raw`rate limit(?:ed| exceeded| reached)|you (?:have been|are being|['’]ve been) rate limited`],
  ['blocked', ['blocked'], String.raw`(?:sorry,? )?you(?: have|['’]ve) been blocked|you (?:are|were) blocked|(?:request|access) (?:has been |was )?blocked|blocked`],
];

const deniedFreeCores = [
  ['403', ['403'], String.raw`403 forbidden|(?:http|error|status)(?: code)?:? ?403|403 error`],
  ['429', ['429'], String.raw`429 too many requests|(?:http|error|status)(?: code)?:? ?429|429 error`],
  ['forbidden', ['forbidden'], String.raw`access forbidden`],
  ['access denied', ['denied'], String.raw`access (?:is |has been )?denied|access to this (?:page|site|resource) (?:has been|is) denied|permission denied`],
  ['access denied', ['permission to access'], String.raw`you (?:don['’]t|do not) have permission to access`],
  ['too many requests', ['too many requests'], String.raw`too many requests`],
  ['rate limit', ['rate limit'], String.raw`rate limit(?:ed| exceeded| reached)|you (?:have been|are being|['’]ve been) rate limited|exceeded (?:the|your) rate limit`],
  ['blocked', ['blocked'], String.raw`(?:sorry,? )?you(?: have|['’]ve) been blocked|you (?:are|were) blocked|(?:request|access) (?:has been |was )?blocked`],
];

const captchaWhole = captchaPhraseCores.map(([l, n, c]) => rule(l, n, whole(c)));
const captchaFree = captchaPhraseCores.map(([l, n, c]) => rule(l, n, free(c)));
const deniedWhole = deniedWholeCores.map(([l, n, c]) => rule(l, n, whole(c)));
const deniedFree = deniedFreeCores.map(([l, n, c]) => rule(l, n, free(c)));

const deniedURLRules = [
  rule('403', ['403'], raw(String.raw`/(?:errors?/)?403\.(?:html?|php|aspx?)(?:[?#]|$)|/errors?/403(?:[/?#]|$)`)),
  rule('429', ['429'], raw(String.raw`/(?:errors?/)?429\.(?:html?|php|aspx?)(?:[?#]|$)|/errors?/429(?:[/?#]|$)`)),
  rule('access denied', ['denied'], raw(String.raw`/access[-_]?denied(?:\.html?)?(?:[?#]|$)`)),
  rule('forbidden', ['forbidden'], raw(String.raw`/forbidden(?:\.html?)?(?:[?#]|$)`)),
];

const authHostRe = raw(String.raw`^[a-z][a-z0-9+.-]*://(accounts|account|login|auth|signin|sso|id|idp)\.`);
const authPathRe = raw(String.raw`/(account/login|accounts/login|users/sign_in|user/login|login|log-in|log_in|logon|signin|sign-in|sign_in|signup|sign-up|sign_up|auth|authenticate|authorize|oauth|oauth2|session|sessions|sso|saml)(?:[/?#.]|$)`);
const authTitle = raw(String.raw`^[^a-z0-9]*(?:[a-z0-9.]+ )?(?:sign[ -]?in|log[ -]?in|logon|log on|sign on|sign[ -]?up|create (?:an |your |a new )?account)(?:[^a-z0-9]|$)`);

const passwordName = rule('password_field', ['pass', 'pwd'], raw(String.raw`\b(?:password|passcode|pwd)\b`));
const oauthName = rule('oauth_button', [' with ', ' using ', ' via '], raw(String.raw`^[^a-z0-9]*(?:continue|sign[ -]?in|log[ -]?in|sign[ -]?up|register|connect) (?:with|using|via) (?:your )?(?:google|github|microsoft|apple|facebook|twitter|x|linkedin|gitlab|bitbucket|slack|discord|amazon|okta|sso|saml)(?:[^a-z0-9]|$)`));
const signInName = rule('sign_in_button', ['sign', 'log'], raw(String.raw`^[^a-z0-9]*(?:sign[ -]?in|log[ -]?in|logon|log on)(?: to [a-z0-9 .-]{1,40})?[^a-z0-9]*$`));
const forgotName = rule('forgot_password_link', ['forgot', 'reset', 'trouble', 'can'], raw(String.raw`^[^a-z0-9]*(?:i )?(?:forgot(?:ten)?(?: your| my| the)? (?:password|passcode|pwd|username or password|email or password|login details)|reset (?:your |my )?password|trouble (?:signing|logging) in|can['’]?t (?:sign|log) in)[^a-z0-9]*$`));
const signUpName = rule('sign_up_link', ['sign', 'regist', 'account', 'join'], raw(String.raw`^[^a-z0-9]*(?:new to [a-z0-9 .-]{1,30}\?? |new here\?? |(?:don['’]?t|do not) have an account\?? )?(?:sign[ -]?up|register|create (?:an |a new |your |a free )?account|join)(?: (?:now|here|for free|free|today))?[^a-z0-9]*$`));

const segmentSep = raw(String.raw`[ \t]+[|·–—-][ \t]+`);

/** ASCII-only lowercasing plus NBSP → space, exactly as the Go twin. */
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
  const url = lower(str(input.url));
  const title = lower(str(input.title));
  const markdown = str(input.markdown);
  const mdLen = countUpTo(markdown, CONTENT_PAGE_CHARS);
  const short = mdLen < SHORT_PAGE_CHARS;
  const sparse = mdLen < CONTENT_PAGE_CHARS;
  const md = lower(cut(markdown, SCAN_CHARS));

  const sig = new SignalList();
  const titleSegs = segments([title]);

  // L1: captcha.
  if (input.captchaFrame === true) sig.add('captcha_frame');
  for (const r of captchaURLRules) if (match(r, url)) sig.add('captcha_url:' + r.label);
  for (const r of captchaBoilerplate) if (match(r, md)) sig.add('captcha_phrase:' + r.label);
  let heads = [];
  if (sparse) {
    heads = segments(headlines(md));
    sig.addAny('captcha_title:', captchaWhole, titleSegs);
    sig.addAny('captcha_heading:', captchaWhole, heads);
  }
  if (short) sig.addAny('captcha_phrase:', captchaFree, [md]);
  const captchaEnd = sig.list.length;

  // L2: access denied.
  if (sparse) {
    for (const r of deniedURLRules) if (match(r, url)) sig.add('denied_url:' + r.label);
    sig.addAny('denied_title:', deniedWhole, titleSegs);
    sig.addAny('denied_heading:', deniedWhole, heads);
  }
  if (short) sig.addAny('denied_phrase:', deniedFree, [md]);
  const deniedEnd = sig.list.length;

  // L3/L4: auth.
  const { pw, signIn, signUp, forgot, oauth } = authElements(input.elements);
  let authURL = '';
  let m = authHostRe.exec(url);
  if (m) authURL = 'auth_url:' + m[1] + '.';
  else if ((m = authPathRe.exec(url))) authURL = 'auth_url:/' + m[1];
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
  const ob = (type, confidence, message) => ({ type, confidence, message });
  if (captchaEnd > 0) {
    v.layer = 'L1';
    v.obstacle = ob('captcha', 'high', 'CAPTCHA challenge; a human must solve it (' + sig.list[0] + ')');
  } else if (deniedEnd > captchaEnd) {
    v.layer = 'L2';
    v.obstacle = ob('access_denied', 'high', 'Access denied, blocked or rate limited by the site (' + sig.list[captchaEnd] + ')');
  } else if (pw && (authURL !== '' || authTitled)) {
    v.layer = 'L3';
    v.obstacle = ob('auth_wall', 'high', 'Login wall: a password field on a sign-in page (' + (authURL || 'auth_title') + ')');
  } else if (!sparse) {
    // A content page lets a reader in, whatever its header offers.
  } else if (auth.length >= 2 && (short || auth.length > Number(signIn) + Number(signUp))) {
    // Above a short page, a sign-in button plus a sign-up link is site
    // chrome; one signal from the page itself is needed.
    v.layer = 'L4';
    v.obstacle = ob('auth_wall', 'high', 'Login wall: ' + auth.length + ' auth signals (' + auth.join(', ') + ')');
  } else if (auth.length === 1 && short) {
    v.layer = 'L4';
    v.obstacle = ob('auth_wall', 'low', 'Possible login wall: one auth signal on a short page (' + auth[0] + ')');
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
