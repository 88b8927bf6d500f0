// Page signals that extract gathers for obstacle detection
// (docs/protocol.md#obstacles) and that need the page itself — kept pure here so
// node --test can check them without a DOM.

/**
 * Regex sources (applied to the lowercased iframe src) for the hosts that
 * serve CAPTCHA widgets: Cloudflare challenges and Turnstile, hCaptcha,
 * reCAPTCHA (google.com and recaptcha.net), DataDome, Arkose.
 */
export const CAPTCHA_FRAME_PATTERNS = [
  String.raw`^https?://challenges\.cloudflare\.com/`,
  String.raw`^https?://[^/?#]+/cdn-cgi/challenge-platform/`,
  String.raw`^https?://(?:[a-z0-9-]+\.)*hcaptcha\.com/`,
  String.raw`^https?://(?:www\.)?google\.com/recaptcha/`,
  String.raw`^https?://(?:[a-z0-9-]+\.)*recaptcha\.net/`,
  String.raw`^https?://(?:[a-z0-9-]+\.)*captcha-delivery\.com/`,
  String.raw`^https?://(?:[a-z0-9-]+\.)*(?:arkoselabs|funcaptcha)\.com/`,
];

// Invisible widgets (reCAPTCHA v3 / invisible v2, hCaptcha invisible) sit
// on countless ordinary login forms and ask nothing of a human until they
// escalate; counting them would call every such form a CAPTCHA.
const INVISIBLE = [/[?&#]size=invisible(?:[&#]|$)/, /checkbox-invisible/];

const frameRes = CAPTCHA_FRAME_PATTERNS.map((src) => new RegExp(src));

/**
 * Whether an iframe src belongs to a known CAPTCHA provider. extract sets
 * captchaFrame when any iframe in the page (that is rendered, which only
 * the page can tell) satisfies this.
 * @param {string} src iframe src attribute or resolved URL
 * @returns {boolean}
 */
export function isCaptchaFrameSrc(src) {
  if (typeof src !== 'string' || src === '') return false;
  const s = src.trim().toLowerCase();
  if (INVISIBLE.some((re) => re.test(s))) return false;
  return frameRes.some((re) => re.test(s));
}
