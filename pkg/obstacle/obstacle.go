package obstacle

import (
	"strconv"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Input is everything the classifier looks at, gathered during extract
// (docs/protocol.md#obstacles). URL is location.href, Title is
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

// Detect classifies a page, per docs/protocol.md#obstacles: nil when
// nothing blocks the agent, else the obstacle. It is Explain(in).Obstacle.
func Detect(in Input) *protocol.Obstacle { return Explain(in).Obstacle }

// The layers, the texts a signal group reads, and when it reads them
// (obstacle.rules.json's signals).
type (
	layer int
	text  int
	gate  int
)

const (
	layerCaptcha layer = iota
	layerDenied
	layerCount
)

const (
	onURL text = iota
	onMarkdown
	onTitle
	onHeadlines
)

const (
	whenAlways gate = iota
	whenSparse      // under ContentPageChars
	whenShort       // under ShortPageChars
)

// signalGroup is one group of signals: rules run on one text, when the
// page's size admits them, each match adding prefix+label.
type signalGroup struct {
	layer  layer
	prefix string
	on     text
	when   gate
	rules  []rule
}

// page is Input as the signal groups read it: lowercased, the markdown cut
// to ScanChars, the title split into segments, the headlines read when a
// group first needs them.
type page struct {
	url, md       []string // one text each
	title         []string
	heads         []string
	headsRead     bool
	short, sparse bool
}

func (p *page) admits(g gate) bool {
	return g == whenAlways || g == whenSparse && p.sparse || g == whenShort && p.short
}

func (p *page) texts(t text) []string {
	switch t {
	case onURL:
		return p.url
	case onMarkdown:
		return p.md
	case onTitle:
		return p.title
	}
	if !p.headsRead {
		p.heads, p.headsRead = segments(headlines(p.md[0])), true
	}
	return p.heads
}

// Explain classifies a page and says why: which layer fired and every
// signal seen.
func Explain(in Input) Verdict {
	mdLen := countUpTo(in.Markdown, ContentPageChars)
	url := lower(in.URL)
	p := &page{
		url:    []string{url},
		md:     []string{lower(cut(in.Markdown, ScanChars))},
		title:  segments([]string{lower(in.Title)}),
		short:  mdLen < ShortPageChars,
		sparse: mdLen < ContentPageChars,
	}

	// Every layer gathers its signals even when an earlier one will decide,
	// so Explain shows all that was seen; precedence is applied at the end.
	var sig signalList
	if in.CaptchaFrame {
		sig.add("captcha_frame")
	}
	var ends [layerCount]int // the signals' count after each layer's
	ends[layerCaptcha] = len(sig.list)
	for _, g := range signalGroups {
		if p.admits(g.when) {
			sig.addAny(g.prefix, g.rules, p.texts(g.on))
		}
		ends[g.layer] = len(sig.list)
	}
	captchaEnd, deniedEnd := ends[layerCaptcha], ends[layerDenied]

	// L3/L4: auth.
	ctl := readAuthControls(in.Elements)
	authURL := authURLSignal(url)
	authTitled := false
	for _, s := range p.title {
		if authTitle.MatchString(s) {
			authTitled = true
			break
		}
	}
	authStart := len(sig.list)
	sig.addIf(ctl.pw, "password_field")
	sig.addIf(ctl.signIn, "sign_in_button")
	sig.addIf(ctl.signUp, "sign_up_link")
	sig.addIf(ctl.forgot, "forgot_password_link")
	sig.addIf(ctl.oauth, "oauth_button")
	sig.addIf(authURL != "", authURL)
	sig.addIf(authTitled, "auth_title")
	auth := sig.list[authStart:]

	v := Verdict{Signals: sig.list}
	switch {
	case captchaEnd > 0:
		v.Layer, v.Obstacle = "L1", because(verdictL1, sig.list[0])
	case deniedEnd > captchaEnd:
		v.Layer, v.Obstacle = "L2", because(verdictL2, sig.list[captchaEnd])
	case ctl.pw && (authURL != "" || authTitled):
		why := authURL
		if why == "" {
			why = "auth_title"
		}
		v.Layer, v.Obstacle = "L3", because(verdictL3, why)
	case !p.sparse:
		// A content page: one that lets a reader in is no wall, whatever
		// its header offers; L3 already caught real sign-in pages.
	case len(auth) >= 2 && (p.short || len(auth) > btoi(ctl.signIn)+btoi(ctl.signUp)):
		// Between short and content pages a sign-in button plus a sign-up
		// link is site chrome; one signal from the page itself is needed.
		l4 := verdictL4
		l4.Message = strings.Replace(l4.Message, "{count}", strconv.Itoa(len(auth)), 1)
		v.Layer, v.Obstacle = "L4", because(l4, strings.Join(auth, ", "))
	case len(auth) == 1 && p.short:
		v.Layer, v.Obstacle = "L4", because(verdictL4low, auth[0])
	}
	return v
}

// authControls are the auth signals among a page's visible elements: a
// password field, and sign-in, sign-up, forgot-password and OAuth
// controls.
type authControls struct{ pw, signIn, signUp, forgot, oauth bool }

// readAuthControls reads elements' auth signals (L3/L4).
func readAuthControls(elements []protocol.Element) authControls {
	var c authControls
	for _, el := range elements {
		if el.Visible != nil && !*el.Visible {
			continue
		}
		switch lower(el.Role) {
		case "textbox", "searchbox":
			c.pw = c.pw || authPassword.match(lower(el.Name))
		case "button":
			if !mayBeAuthControl(el.Name) {
				continue
			}
			switch name := lower(el.Name); {
			case authOauth.match(name):
				c.oauth = true
			case authSignIn.match(name):
				c.signIn = true
			case authForgot.match(name):
				c.forgot = true
			}
		case "link":
			if !mayBeAuthControl(el.Name) {
				continue
			}
			// A "Log in" link is navigation to a sign-in page, not one:
			// it is no signal at all.
			switch name := lower(el.Name); {
			case authOauth.match(name):
				c.oauth = true
			case authForgot.match(name):
				c.forgot = true
			case authSignUp.match(name):
				c.signUp = true
			}
		}
	}
	return c
}

// authURLSignal is the auth_url signal of a lowercased URL, naming the
// host or path that matched, or "".
func authURLSignal(url string) string {
	if m := authHost.FindStringSubmatch(url); m != nil {
		return "auth_url:" + m[1] + "."
	}
	if m := authPath.FindStringSubmatch(url); m != nil {
		return "auth_url:/" + m[1]
	}
	return ""
}

// because is the verdict with the deciding signals after its message.
func because(o protocol.Obstacle, why string) *protocol.Obstacle {
	o.Message += " (" + why + ")"
	return &o
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
