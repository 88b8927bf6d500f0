package obstacle

import (
	"regexp"
	"strings"
	"sync"
)

// Every pattern here has a twin in extension/src/lib/obstacle.js, written as
// String.raw`…` with the same text. They stay inside the subset where RE2 and
// JavaScript (no flags) agree: no \s, no ".", no lookaround, no inline
// flags. Inputs are ASCII-lowercased first, so no pattern needs the i flag,
// and word edges are spelled [^a-z0-9] rather than \b wherever a phrase may
// begin or end with punctuation.

// patternSources records the literal of every pattern so TestPatternParity
// can find each one in the JS twin.
var patternSources []string

func lit(src string) string { patternSources = append(patternSources, src); return src }

// lazyRegexp compiles on first use. Every bua command links this package,
// and compiling its patterns at start-up cost each command about 2 ms,
// while only extract and `bua obstacle` ever run them.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// allPatterns lets TestPatternsCompile compile each one, so a bad pattern
// still fails in CI rather than on a user's first extract.
var allPatterns []*lazyRegexp

func lazy(src string) *lazyRegexp {
	l := &lazyRegexp{src: src}
	allPatterns = append(allPatterns, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool            { return l.get().MatchString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }
func (l *lazyRegexp) Split(s string, n int) []string       { return l.get().Split(s, n) }

// raw compiles src as written.
func raw(src string) *lazyRegexp { return lazy(lit(src)) }

// whole matches a title segment or heading line that is nothing but core,
// give or take punctuation: "403 Forbidden" is a verdict, "How to fix 403
// Forbidden" is an article.
func whole(core string) *lazyRegexp {
	return lazy(`^[^a-z0-9]*(?:` + lit(core) + `)[^a-z0-9]*$`)
}

// free matches core anywhere, bounded by non-alphanumerics.
func free(core string) *lazyRegexp {
	return lazy(`(?:^|[^a-z0-9])(?:` + lit(core) + `)(?:[^a-z0-9]|$)`)
}

// rule is one labelled pattern. The regexp runs only when one of needles
// occurs in the text; every needle list is a necessary condition for its
// pattern, so the prefilter changes cost, never the answer.
type rule struct {
	label   string
	needles []string
	re      *lazyRegexp
}

func (r rule) match(s string) bool {
	for _, n := range r.needles {
		if strings.Contains(s, n) {
			return r.re == nil || r.re.MatchString(s)
		}
	}
	return false
}

// captchaURLRules are unambiguous: a top-level URL on a challenge path is the
// challenge, whatever the page says.
var captchaURLRules = []rule{
	{"/cdn-cgi/challenge-platform", []string{"/cdn-cgi/challenge-platform"}, nil},
	{"__cf_chl_", []string{"__cf_chl_"}, nil},
	{"challenges.cloudflare.com", []string{"challenges.cloudflare.com"}, raw(`^[a-z][a-z0-9+.-]*://challenges\.cloudflare\.com(?:[:/?#]|$)`)},
	{"recaptcha.net", []string{"recaptcha.net"}, raw(`^[a-z][a-z0-9+.-]*://(?:[a-z0-9-]+\.)*recaptcha\.net(?:[:/?#]|$)`)},
	{"captcha-delivery.com", []string{"captcha-delivery.com"}, raw(`^[a-z][a-z0-9+.-]*://(?:[a-z0-9-]+\.)*captcha-delivery\.com(?:[:/?#]|$)`)},
	{"google.com/sorry", []string{"/sorry/"}, raw(`^[a-z][a-z0-9+.-]*://(?:www\.|ipv4\.|ipv6\.)?google\.[a-z.]+/sorry/`)},
	{"/recaptcha", []string{"/recaptcha"}, raw(`/recaptcha(?:[/?#.]|$)`)},
	{"/hcaptcha", []string{"/hcaptcha"}, raw(`/hcaptcha(?:[/?#.]|$)`)},
	{"/turnstile", []string{"/turnstile"}, raw(`/turnstile(?:[/?#.]|$)`)},
	{"/captcha", []string{"/captcha"}, raw(`/captcha(?:[/?#.]|$)`)},
}

// captchaBoilerplate is challenge-interstitial text no article writes in
// passing, so it counts anywhere in the scanned markdown, even on a long
// page (interstitials rendered inside a site's chrome carry its text).
var captchaBoilerplate = []rule{
	{"checking your browser", []string{"browser before"}, free(`checking your browser before accessing`)},
	{"checking your browser", []string{"connection is secure"}, free(`checking if the site connection is secure`)},
	{"verify you are human", []string{"verify you are human by"}, free(`verify you are human by completing the action below`)},
	{"verify you are human", []string{"your connection before proceeding"}, free(`needs to review the security of your connection before proceeding`)},
	{"press and hold", []string{"hold to confirm"}, free(`press (?:&|and) hold to confirm you are (?:a )?human`)},
	{"unusual traffic", []string{"unusual traffic from"}, free(`our systems have detected unusual traffic from your computer network`)},
}

// captchaPhraseCores are CAPTCHA prompts. They count as a whole title
// segment or headline, or anywhere on a short page. A bare "captcha" is not
// among them: "protected by reCAPTCHA" sits under many ordinary login forms.
var captchaPhraseCores = []phraseCore{
	{"verify you are human", []string{"human"}, `(?:please )?verify(?:ing)? (?:that )?you(?: are|['’]re) (?:a )?human(?: by completing the action below)?`},
	{"i'm not a robot", []string{"not a robot"}, `i(?:['’]m| am) not a robot`},
	{"are you a robot", []string{"are you a "}, `are you a (?:robot|human)`},
	{"complete the captcha", []string{"the captcha", "the security check"}, `(?:please )?(?:complete|solve|pass) the (?:captcha|security check)(?: below| to continue)?`},
	{"checking your browser", []string{"checking your browser", "checking if the site"}, `checking (?:your browser|if the site connection is secure)(?: before accessing[^\n]*)?`},
	{"human verification", []string{"human verification"}, `human verification`},
	{"press and hold", []string{"press & hold", "press and hold"}, `press (?:&|and) hold(?: to confirm you are (?:a )?human)?`},
	{"unusual traffic", []string{"unusual traffic"}, `our systems have detected unusual traffic(?: from your computer network)?`},
}

var captchaWhole, captchaFree = compileCores(captchaPhraseCores)

// deniedWholeCores match a title segment or headline that is the refusal
// itself. A bare code is enough there ("403"); prose needs more (see
// deniedFreeCores).
var deniedWholeCores = []phraseCore{
	{"403", []string{"403"}, `(?:(?:http|error|status)(?: code)?:? ?)?403(?: ?(?:[-:–—] ?)?(?:error|forbidden|access denied|access forbidden))?`},
	{"429", []string{"429"}, `(?:(?:http|error|status)(?: code)?:? ?)?429(?: ?(?:[-:–—] ?)?(?:error|too many requests|rate limited))?`},
	{"forbidden", []string{"forbidden"}, `(?:access )?forbidden`},
	{"access denied", []string{"denied"}, `access (?:is |has been )?denied|access to this (?:page|site|resource) (?:has been|is) denied|permission denied`},
	{"too many requests", []string{"too many requests"}, `too many requests`},
	{"rate limit", []string{"rate limit"}, `rate limit(?:ed| exceeded| reached)|you (?:have been|are being|['’]ve been) rate limited`},
	{"blocked", []string{"blocked"}, `(?:sorry,? )?you(?: have|['’]ve) been blocked|you (?:are|were) blocked|(?:request|access) (?:has been |was )?blocked|blocked`},
}

// deniedFreeCores match anywhere on a short page. They are the whole-line
// phrases minus the bare words ("403", "forbidden", "blocked") that short
// pages also use for other things ("Order #403", "blocked dates").
var deniedFreeCores = []phraseCore{
	{"403", []string{"403"}, `403 forbidden|(?:http|error|status)(?: code)?:? ?403|403 error`},
	{"429", []string{"429"}, `429 too many requests|(?:http|error|status)(?: code)?:? ?429|429 error`},
	{"forbidden", []string{"forbidden"}, `access forbidden`},
	{"access denied", []string{"denied"}, `access (?:is |has been )?denied|access to this (?:page|site|resource) (?:has been|is) denied|permission denied`},
	{"access denied", []string{"permission to access"}, `you (?:don['’]t|do not) have permission to access`},
	{"too many requests", []string{"too many requests"}, `too many requests`},
	{"rate limit", []string{"rate limit"}, `rate limit(?:ed| exceeded| reached)|you (?:have been|are being|['’]ve been) rate limited|exceeded (?:the|your) rate limit`},
	{"blocked", []string{"blocked"}, `(?:sorry,? )?you(?: have|['’]ve) been blocked|you (?:are|were) blocked|(?:request|access) (?:has been |was )?blocked`},
}

var deniedWhole, _ = compileCores(deniedWholeCores)
var _, deniedFree = compileCores(deniedFreeCores)

// deniedURLRules name error pages, not documents about errors: "/403.html"
// and "/errors/429" fire, "/status/403" (MDN) and "/posts/403" do not.
var deniedURLRules = []rule{
	{"403", []string{"403"}, raw(`/(?:errors?/)?403\.(?:html?|php|aspx?)(?:[?#]|$)|/errors?/403(?:[/?#]|$)`)},
	{"429", []string{"429"}, raw(`/(?:errors?/)?429\.(?:html?|php|aspx?)(?:[?#]|$)|/errors?/429(?:[/?#]|$)`)},
	{"access denied", []string{"denied"}, raw(`/access[-_]?denied(?:\.html?)?(?:[?#]|$)`)},
	{"forbidden", []string{"forbidden"}, raw(`/forbidden(?:\.html?)?(?:[?#]|$)`)},
}

// phraseCore is a labelled phrase compiled both as whole and free.
type phraseCore struct {
	label   string
	needles []string
	core    string
}

func compileCores(cores []phraseCore) (whole_, free_ []rule) {
	for _, c := range cores {
		whole_ = append(whole_, rule{c.label, c.needles, whole(c.core)})
		free_ = append(free_, rule{c.label, c.needles, free(c.core)})
	}
	return whole_, free_
}

// Auth URL: the first capture is reported, so "auth_url:/login" or
// "auth_url:accounts.". Alternation order matters where one key prefixes
// another; RE2 and JS both take the first alternative that matches.
var (
	authHostRe = raw(`^[a-z][a-z0-9+.-]*://(accounts|account|login|auth|signin|sso|id|idp)\.`)
	authPathRe = raw(`/(account/login|accounts/login|users/sign_in|user/login|login|log-in|log_in|logon|signin|sign-in|sign_in|signup|sign-up|sign_up|auth|authenticate|authorize|oauth|oauth2|session|sessions|sso|saml)(?:[/?#.]|$)`)
)

// authTitle matches a title segment that starts with a sign-in phrase,
// allowing one word before it ("GitHub login"); "How to log in to Gmail"
// is an article, not a sign-in page.
var authTitle = raw(`^[^a-z0-9]*(?:[a-z0-9.]+ )?(?:sign[ -]?in|log[ -]?in|logon|log on|sign on|sign[ -]?up|create (?:an |your |a new )?account)(?:[^a-z0-9]|$)`)

// Element rules match accessible names (lowercased). Names are whole-label
// matches so long link texts in content ("How to reset your password in
// Windows") are not taken for form controls.
var (
	passwordName = rule{"password_field", []string{"pass", "pwd"}, raw(`\b(?:password|passcode|pwd)\b`)}
	oauthName    = rule{"oauth_button", []string{" with ", " using ", " via "}, raw(`^[^a-z0-9]*(?:continue|sign[ -]?in|log[ -]?in|sign[ -]?up|register|connect) (?:with|using|via) (?:your )?(?:google|github|microsoft|apple|facebook|twitter|x|linkedin|gitlab|bitbucket|slack|discord|amazon|okta|sso|saml)(?:[^a-z0-9]|$)`)}
	signInName   = rule{"sign_in_button", []string{"sign", "log"}, raw(`^[^a-z0-9]*(?:sign[ -]?in|log[ -]?in|logon|log on)(?: to [a-z0-9 .-]{1,40})?[^a-z0-9]*$`)}
	forgotName   = rule{"forgot_password_link", []string{"forgot", "reset", "trouble", "can"}, raw(`^[^a-z0-9]*(?:i )?(?:forgot(?:ten)?(?: your| my| the)? (?:password|passcode|pwd|username or password|email or password|login details)|reset (?:your |my )?password|trouble (?:signing|logging) in|can['’]?t (?:sign|log) in)[^a-z0-9]*$`)}
	signUpName   = rule{"sign_up_link", []string{"sign", "regist", "account", "join"}, raw(`^[^a-z0-9]*(?:new to [a-z0-9 .-]{1,30}\?? |new here\?? |(?:don['’]?t|do not) have an account\?? )?(?:sign[ -]?up|register|create (?:an |a new |your |a free )?account|join)(?: (?:now|here|for free|free|today))?[^a-z0-9]*$`)}
)

// segmentSep splits "Sign in – Acme" or "Access denied | example.com" into
// the verdict and the site name. A colon is not a separator: "403
// Forbidden: what it means" is an article title. The JS twin splits with
// this pattern; Go splits by hand in splitSegments, which
// TestSplitSegments holds to it.
var segmentSep = raw(`[ \t]+[|·–—-][ \t]+`)

// lower lowercases ASCII only and turns NBSP into a space. Full Unicode
// lowercasing differs between Go and JS (İ, final sigma) and can change
// lengths; every pattern is ASCII, so ASCII folding loses nothing.
func lower(s string) string {
	if !needsLower(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUpper(c):
			c = toLower(c)
		case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
			// NBSP is C2 A0 in UTF-8. Byte-wise is safe: 0xC2 is only
			// ever a lead byte, and ASCII never occurs inside a
			// multi-byte sequence.
			c = ' '
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

// needsLower reports whether lower would change s.
func needsLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) || s[i] == 0xC2 {
			return true
		}
	}
	return false
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// toLower lowercases an ASCII letter; other bytes come back as they are.
func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// authLeads are the words every anchored control-name rule (oauthName,
// signInName, forgotName, signUpName) can begin with, after leading
// punctuation. A name starting otherwise cannot match any of them, which
// spares most links on a page the lowercasing and four pattern checks.
var authLeads = []string{"continue", "connect", "sign", "log", "register", "forgot", "reset", "trouble", "can", "new", "do", "create", "join"}

// leadsByFirst indexes authLeads by first letter.
var leadsByFirst = func() (t [256][]string) {
	for _, p := range authLeads {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// mayBeAuthControl reports whether name (not yet lowercased) could match an
// anchored control-name rule once lowercased. The JS twin does without it:
// it is a necessary condition, so it changes cost, never the answer.
func mayBeAuthControl(name string) bool {
	i := 0
	for i < len(name) && !isAlnum(name[i]) {
		i++
	}
	lead := name[i:]
	if len(lead) == 0 {
		return false
	}
	first := toLower(lead[0])
	if first == 'i' && len(lead) >= 2 && (lead[1] == ' ' || lead[1] == 0xC2) {
		return true // "i forgot…", NBSP allowed as lower would make it a space
	}
	for _, p := range leadsByFirst[first] {
		if hasPrefixFold(lead, p) {
			return true
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix after ASCII-lowercasing s; p is
// lowercase ASCII.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if toLower(s[j]) != p[j] {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// cut returns the first n code points of s. Code points, not bytes or
// UTF-16 units, so the JS twin cuts at the same place.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 { // a code point starts here
			if k == n {
				return s[:i]
			}
			k++
		}
	}
	return s
}

// countUpTo counts code points in s, up to limit: callers only compare the
// count with thresholds no greater than limit.
func countUpTo(s string, limit int) int {
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i]&0xC0 != 0x80 { // a code point starts here
			k++
			if k >= limit {
				break
			}
		}
	}
	return k
}

// segments splits each line into its separator-delimited parts.
func segments(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l == "" {
			continue
		}
		out = splitSegments(out, l)
	}
	return out
}

// splitSegments appends to out the parts of l between matches of
// segmentSep, as segmentSep.Split(l, -1) (and JS's l.split) would, without
// the regexp machinery: titles are split on every call. A match is a run of
// spaces or tabs, one separator, and another such run; since a separator
// is never a space, a run that fails to start a match cannot contain the
// start of one either.
func splitSegments(out []string, l string) []string {
	start := 0
	for i := 0; i < len(l); {
		if l[i] != ' ' && l[i] != '\t' {
			i++
			continue
		}
		j := i
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		k := j + separatorLen(l[j:])
		if k == j || k >= len(l) || (l[k] != ' ' && l[k] != '\t') {
			i = j
			continue
		}
		for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			k++
		}
		out = append(out, l[start:i])
		start, i = k, k
	}
	return append(out, l[start:])
}

// separatorLen is the byte length of the segmentSep separator that s starts
// with, or 0.
func separatorLen(s string) int {
	for _, sep := range []string{"|", "-", "·", "–", "—"} {
		if strings.HasPrefix(s, sep) {
			return len(sep)
		}
	}
	return 0
}

// headlines returns the H1 lines of md plus its first heading line of any
// level: where an error page states its error. Lower headings are left out
// because documentation lists error codes as H2/H3 ("## 429 Too Many
// Requests").
func headlines(md string) []string {
	var out []string
	first := true
	for len(md) > 0 {
		line := md
		if i := strings.IndexByte(md, '\n'); i >= 0 {
			line, md = md[:i], md[i+1:]
		} else {
			md = ""
		}
		level := headingLevel(line)
		if level == 0 {
			continue
		}
		if first || level == 1 {
			out = append(out, line)
		}
		first = false
	}
	return out
}

// headingLevel returns 1..6 for an ATX heading line (up to three leading
// spaces, 1-6 '#', then a space, a tab or the end), else 0.
func headingLevel(line string) int {
	i := 0
	for i < 3 && i < len(line) && line[i] == ' ' {
		i++
	}
	n := 0
	for i < len(line) && line[i] == '#' {
		i++
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if i < len(line) && line[i] != ' ' && line[i] != '\t' {
		return 0
	}
	return n
}
