package obstacle

import (
	"strconv"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Thresholds, in Unicode code points of the markdown as given (before the
// ScanChars cut), so Go and JS agree on pages with non-ASCII text.
const (
	// ScanChars is how much of the markdown is scanned for phrases and
	// headlines; the rest is never read.
	ScanChars = 4096
	// ShortPageChars: markdown shorter than this is a "short page", where
	// free-text phrases count and a single auth signal yields a low verdict.
	// 399 is short, 400 is not.
	ShortPageChars = 400
	// ContentPageChars: markdown this long or longer is a page with
	// content to use; only captcha frames, captcha URLs, challenge
	// boilerplate and L3 fire there.
	ContentPageChars = 2000
)

// Input is everything the classifier looks at, gathered during extract
// (protocol v4 §Obstacle detection). URL is location.href, Title is
// document.title, Markdown is extract's markdown (only the first ScanChars
// code points are scanned), Elements extract's element list, CaptchaFrame whether
// a known CAPTCHA iframe is present.
type Input struct {
	URL          string             `json:"url"`
	Title        string             `json:"title"`
	Markdown     string             `json:"markdown"`
	Elements     []protocol.Element `json:"elements"`
	CaptchaFrame bool               `json:"captchaFrame"`
}

// Verdict is Detect's answer with its reasons. Layer is "L1".."L4", or ""
// when nothing fired. Signals lists every signal seen across all layers, in
// a fixed order (captcha, access-denied, auth), each once, such as
// "captcha_frame", "captcha_url:/captcha", "denied_title:403",
// "password_field", "auth_url:/login", "auth_title".
type Verdict struct {
	Obstacle *protocol.Obstacle `json:"obstacle"`
	Layer    string             `json:"layer"`
	Signals  []string           `json:"signals"`
}

// Detect classifies a page, per protocol v4 §Obstacle detection: nil when
// nothing blocks the agent, else the obstacle. It is Explain(in).Obstacle.
func Detect(in Input) *protocol.Obstacle { return Explain(in).Obstacle }

// Explain classifies a page and says why: which layer fired and every
// signal seen.
func Explain(in Input) Verdict {
	url := lower(in.URL)
	title := lower(in.Title)
	mdLen := countUpTo(in.Markdown, ContentPageChars)
	short := mdLen < ShortPageChars
	sparse := mdLen < ContentPageChars
	md := lower(cut(in.Markdown, ScanChars))

	// Every layer gathers its signals even when an earlier one will decide,
	// so Explain shows all that was seen; precedence is applied at the end.
	var sig signalList
	titleSegs := segments([]string{title})

	// L1: captcha.
	if in.CaptchaFrame {
		sig.add("captcha_frame")
	}
	for _, r := range captchaURLRules {
		if r.match(url) {
			sig.add("captcha_url:" + r.label)
		}
	}
	for _, r := range captchaBoilerplate {
		if r.match(md) {
			sig.add("captcha_phrase:" + r.label)
		}
	}
	var heads []string
	if sparse {
		heads = segments(headlines(md))
		sig.addAny("captcha_title:", captchaWhole, titleSegs)
		sig.addAny("captcha_heading:", captchaWhole, heads)
	}
	if short {
		sig.addAny("captcha_phrase:", captchaFree, []string{md})
	}
	captchaEnd := len(sig.list)

	// L2: access denied.
	if sparse {
		for _, r := range deniedURLRules {
			if r.match(url) {
				sig.add("denied_url:" + r.label)
			}
		}
		sig.addAny("denied_title:", deniedWhole, titleSegs)
		sig.addAny("denied_heading:", deniedWhole, heads)
	}
	if short {
		sig.addAny("denied_phrase:", deniedFree, []string{md})
	}
	deniedEnd := len(sig.list)

	// L3/L4: auth.
	var pw, signIn, signUp, forgot, oauth bool
	for _, el := range in.Elements {
		if el.Visible != nil && !*el.Visible {
			continue
		}
		switch lower(el.Role) {
		case "textbox", "searchbox":
			pw = pw || passwordName.match(lower(el.Name))
		case "button":
			if !mayBeAuthControl(el.Name) {
				continue
			}
			switch name := lower(el.Name); {
			case oauthName.match(name):
				oauth = true
			case signInName.match(name):
				signIn = true
			case forgotName.match(name):
				forgot = true
			}
		case "link":
			if !mayBeAuthControl(el.Name) {
				continue
			}
			// A "Log in" link is navigation to a sign-in page, not one:
			// it is no signal at all.
			switch name := lower(el.Name); {
			case oauthName.match(name):
				oauth = true
			case forgotName.match(name):
				forgot = true
			case signUpName.match(name):
				signUp = true
			}
		}
	}
	authURL := ""
	if m := authHostRe.FindStringSubmatch(url); m != nil {
		authURL = "auth_url:" + m[1] + "."
	} else if m := authPathRe.FindStringSubmatch(url); m != nil {
		authURL = "auth_url:/" + m[1]
	}
	authTitled := false
	for _, s := range titleSegs {
		if authTitle.MatchString(s) {
			authTitled = true
			break
		}
	}
	authStart := len(sig.list)
	sig.addIf(pw, "password_field")
	sig.addIf(signIn, "sign_in_button")
	sig.addIf(signUp, "sign_up_link")
	sig.addIf(forgot, "forgot_password_link")
	sig.addIf(oauth, "oauth_button")
	sig.addIf(authURL != "", authURL)
	sig.addIf(authTitled, "auth_title")
	auth := sig.list[authStart:]

	v := Verdict{Signals: sig.list}
	switch {
	case captchaEnd > 0:
		v.Layer = "L1"
		v.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleCaptcha, Confidence: protocol.ConfidenceHigh, Message: "CAPTCHA challenge; a human must solve it (" + sig.list[0] + ")"}
	case deniedEnd > captchaEnd:
		v.Layer = "L2"
		v.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAccessDenied, Confidence: protocol.ConfidenceHigh, Message: "Access denied, blocked or rate limited by the site (" + sig.list[captchaEnd] + ")"}
	case pw && (authURL != "" || authTitled):
		why := authURL
		if why == "" {
			why = "auth_title"
		}
		v.Layer = "L3"
		v.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.ConfidenceHigh, Message: "Login wall: a password field on a sign-in page (" + why + ")"}
	case !sparse:
		// A content page: one that lets a reader in is no wall, whatever
		// its header offers; L3 already caught real sign-in pages.
	case len(auth) >= 2 && (short || len(auth) > btoi(signIn)+btoi(signUp)):
		// Between short and content pages a sign-in button plus a sign-up
		// link is site chrome; one signal from the page itself is needed.
		v.Layer = "L4"
		v.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.ConfidenceHigh, Message: "Login wall: " + strconv.Itoa(len(auth)) + " auth signals (" + strings.Join(auth, ", ") + ")"}
	case len(auth) == 1 && short:
		v.Layer = "L4"
		v.Obstacle = &protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.ConfidenceLow, Message: "Possible login wall: one auth signal on a short page (" + auth[0] + ")"}
	}
	return v
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// signalList keeps signals in first-seen order, each once.
type signalList struct{ list []string }

func (s *signalList) add(x string) {
	for _, y := range s.list {
		if y == x {
			return
		}
	}
	s.list = append(s.list, x)
}

func (s *signalList) addIf(ok bool, x string) {
	if ok {
		s.add(x)
	}
}

// addAny adds prefix+label for each rule, in rule order, that matches any
// of texts.
func (s *signalList) addAny(prefix string, rules []rule, texts []string) {
	for _, r := range rules {
		for _, t := range texts {
			if r.match(t) {
				s.add(prefix + r.label)
				break
			}
		}
	}
}

// FormatText renders v for humans, as `bua obstacle` prints it:
//
//	auth_wall (high) — Login wall: ...
//	layer: L3
//	signals: password_field, auth_url:/login
//
// or "no obstacle", with "none" for an empty layer or signal list.
func FormatText(v Verdict) string {
	var b strings.Builder
	if o := v.Obstacle; o != nil {
		b.WriteString(string(o.Type) + " (" + string(o.Confidence) + ") — " + o.Message + "\n")
	} else {
		b.WriteString("no obstacle\n")
	}
	layer := v.Layer
	if layer == "" {
		layer = "none"
	}
	b.WriteString("layer: " + layer + "\n")
	signals := "none"
	if len(v.Signals) > 0 {
		signals = strings.Join(v.Signals, ", ")
	}
	b.WriteString("signals: " + signals + "\n")
	return b.String()
}
