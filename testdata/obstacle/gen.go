//go:build ignore

// gen writes the shared obstacle-detection vectors (NNN_name.json) that both
// pkg/obstacle (Go) and extension/src/read/obstacle.js (JS) must satisfy.
// Expectations are written here by hand — this program does not import the
// classifier, so the vectors stay an independent statement of the spec.
// It exists to build long markdown at exact lengths; the JSON it writes is
// what is committed and read by the tests.
//
//	go run testdata/obstacle/gen.go   (from the repository root)
package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

type element struct {
	UID     string `json:"uid"`
	Role    string `json:"role"`
	Name    string `json:"name,omitempty"`
	Value   string `json:"value,omitempty"`
	Visible *bool  `json:"visible,omitempty"`
}

type input struct {
	URL          string    `json:"url"`
	Title        string    `json:"title"`
	Markdown     string    `json:"markdown"`
	Elements     []element `json:"elements"`
	CaptchaFrame bool      `json:"captchaFrame"`
}

type want struct {
	Type       string `json:"type"`
	Confidence string `json:"confidence"`
	Message    string `json:"message"`
}

type vector struct {
	Name  string `json:"name"`
	Input input  `json:"input"`
	Want  *want  `json:"want"`
	Layer string `json:"layer"`
}

type expect struct {
	want  *want
	layer string
}

func l1(sig string) expect {
	return expect{&want{"captcha", "high", "CAPTCHA challenge; a human must solve it (" + sig + ")"}, "L1"}
}
func l2(sig string) expect {
	return expect{&want{"access_denied", "high", "Access denied, blocked or rate limited by the site (" + sig + ")"}, "L2"}
}
func l3(sig string) expect {
	return expect{&want{"auth_wall", "high", "Login wall: a password field on a sign-in page (" + sig + ")"}, "L3"}
}
func l4h(sigs ...string) expect {
	return expect{&want{"auth_wall", "high", fmt.Sprintf("Login wall: %d auth signals (%s)", len(sigs), strings.Join(sigs, ", "))}, "L4"}
}
func l4l(sig string) expect {
	return expect{&want{"auth_wall", "low", "Possible login wall: one auth signal on a short page (" + sig + ")"}, "L4"}
}

var none = expect{nil, ""}

const fillerText = "The valley road winds past old farms and quiet orchards toward the lake, where boats rest in the shallow bay. "

// fill returns n code points of neutral prose.
func fill(n int) string {
	if n < 0 {
		panic("negative fill")
	}
	s := strings.Repeat(fillerText, n/len(fillerText)+1)
	return s[:n] // filler is ASCII
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// padTo appends neutral prose to s until it is n code points long.
func padTo(s string, n int) string { return s + fill(n-runes(s)) }

func el(role, name string) element { return element{Role: role, Name: name} }
func hidden(role, name string) element {
	f := false
	return element{Role: role, Name: name, Visible: &f}
}
func visible(role, name string) element {
	t := true
	return element{Role: role, Name: name, Visible: &t}
}

var vectors []vector

func add(name string, in input, e expect) {
	for i := range in.Elements {
		in.Elements[i].UID = fmt.Sprintf("e%d", i+1)
	}
	if in.Elements == nil {
		in.Elements = []element{}
	}
	vectors = append(vectors, vector{name, in, e.want, e.layer})
}

func els(e ...element) []element { return e }

// A long ordinary page: nav-free article markdown the extract would give.
var article = "# Harbour festival returns after three years\n\n" + fill(2600)

func main() {
	root := "testdata/obstacle"
	if _, err := os.Stat(root); err != nil {
		fmt.Fprintln(os.Stderr, "run from the repository root: go run testdata/obstacle/gen.go")
		os.Exit(1)
	}
	build()
	pages(filepath.Join("testdata", "sites", "obstacles"))
	edges()
	old, _ := filepath.Glob(filepath.Join(root, "[0-9][0-9][0-9]_*.json"))
	for _, f := range old {
		os.Remove(f)
	}
	for i, v := range vectors {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		name := fmt.Sprintf("%03d_%s.json", i+1, v.Name)
		if err := os.WriteFile(filepath.Join(root, name), []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
	}
	fmt.Printf("wrote %d vectors\n", len(vectors))
}

// build adds every vector, in the order they are numbered.
func build() {
	captchaVectors()
	deniedVectors()
	passwordVectors()
	signalVectors()
	contentTrapVectors()
}

// captchaVectors adds the CAPTCHA vectors (L1), and the cut at
// ScanChars.
func captchaVectors() {
	// ---- L1 captcha --------------------------------------------------
	add("captcha_frame_short_page", input{URL: "https://shop.example.com/products", Title: "Shop", Markdown: "# Products\n\nLoading…", CaptchaFrame: true}, l1("captcha_frame"))
	add("captcha_frame_long_page", input{URL: "https://news.example.com/story", Title: "Story", Markdown: article, CaptchaFrame: true}, l1("captcha_frame"))
	add("captcha_url_cdn_cgi", input{URL: "https://example.com/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8e1f", Title: "example.com", Markdown: "example.com"}, l1("captcha_url:/cdn-cgi/challenge-platform"))
	add("captcha_url_cf_chl_param", input{URL: "https://example.com/pricing?__cf_chl_rt_tk=Abc.123", Title: "Pricing", Markdown: padTo("# Pricing\n\n", 3000)}, l1("captcha_url:__cf_chl_"))
	add("captcha_url_challenges_host", input{URL: "https://challenges.cloudflare.com/turnstile/v0/api.js", Title: "", Markdown: ""}, l1("captcha_url:challenges.cloudflare.com"))
	add("captcha_url_recaptcha_path", input{URL: "https://www.google.com/recaptcha/api2/anchor?k=6Le", Title: "reCAPTCHA", Markdown: ""}, l1("captcha_url:/recaptcha"))
	add("captcha_url_recaptcha_net", input{URL: "https://www.recaptcha.net/recaptcha/api/fallback?k=6Le", Title: "", Markdown: ""}, l1("captcha_url:recaptcha.net"))
	add("captcha_url_hcaptcha", input{URL: "https://forum.example.com/hcaptcha?return=/thread/9", Title: "Forum", Markdown: "Hold on."}, l1("captcha_url:/hcaptcha"))
	add("captcha_url_turnstile", input{URL: "https://example.com/turnstile/verify", Title: "Example", Markdown: ""}, l1("captcha_url:/turnstile"))
	add("captcha_url_captcha_path", input{URL: "https://EXAMPLE.com/Captcha?next=/account", Title: "Example", Markdown: "Type the characters you see."}, l1("captcha_url:/captcha"))
	add("captcha_url_datadome", input{URL: "https://geo.captcha-delivery.com/captcha/?initialCid=AHrl", Title: "", Markdown: ""}, l1("captcha_url:captcha-delivery.com"))
	add("captcha_url_google_sorry", input{URL: "https://www.google.com/sorry/index?continue=https://www.google.com/search%3Fq%3Dx", Title: "https://www.google.com/search?q=x", Markdown: "Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot."}, l1("captcha_url:google.com/sorry"))
	add("captcha_boilerplate_cloudflare_turnstile", input{URL: "https://www.example.com/", Title: "Just a moment...", Markdown: "# www.example.com\n\n## Verify you are human by completing the action below.\n\nwww.example.com needs to review the security of your connection before proceeding.\n\nRay ID: 8e1f2a3b4c5d6e7f\n\nPerformance & security by Cloudflare"}, l1("captcha_phrase:verify you are human"))
	add("captcha_boilerplate_checking_browser", input{URL: "https://www.example.com/", Title: "Just a moment...", Markdown: "Checking your browser before accessing www.example.com.\n\nThis process is automatic. Your browser will redirect to your requested content shortly.\n\nPlease allow up to 5 seconds…\n\nDDoS protection by Cloudflare"}, l1("captcha_phrase:checking your browser"))
	add("captcha_boilerplate_connection_secure", input{URL: "https://www.example.com/", Title: "", Markdown: "# www.example.com\n\nChecking if the site connection is secure"}, l1("captcha_phrase:checking your browser"))
	add("captcha_boilerplate_press_and_hold", input{URL: "https://www.example.com/product/1", Title: "Access to this page has been denied", Markdown: "Press & Hold to confirm you are a human (and not a bot).\n\nReference ID 1a2b3c"}, l1("captcha_phrase:press and hold"))
	add("captcha_phrase_not_a_robot_short", input{URL: "https://tickets.example.com/queue", Title: "Tickets", Markdown: "Before you continue\n\nPlease tick the box: I'm not a robot\n\nContinue"}, l1("captcha_phrase:i'm not a robot"))
	add("captcha_phrase_not_a_robot_curly_apostrophe", input{URL: "https://tickets.example.com/queue", Title: "Tickets", Markdown: "I’m not a robot"}, l1("captcha_phrase:i'm not a robot"))
	add("captcha_phrase_complete_captcha_short", input{URL: "https://example.com/checkout", Title: "Checkout", Markdown: "# Checkout\n\nPlease complete the CAPTCHA to continue."}, l1("captcha_phrase:complete the captcha"))
	add("captcha_phrase_security_check_short", input{URL: "https://example.com/", Title: "Attention Required! | Cloudflare", Markdown: "# One more step\n\n## Please complete the security check to access example.com\n\nWhy do I have to complete a CAPTCHA?"}, l1("captcha_phrase:complete the captcha"))
	add("captcha_title_human_verification_medium", input{URL: "https://example.com/", Title: "Human Verification", Markdown: padTo("", 900)}, l1("captcha_title:human verification"))
	add("captcha_heading_are_you_a_robot_medium", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("# Are you a robot?\n\n", 1000)}, l1("captcha_heading:are you a robot"))
	add("captcha_boilerplate_long_page", input{URL: "https://www.example.com/blog", Title: "Blog", Markdown: "Checking your browser before accessing www.example.com.\n\n" + fill(3000)}, l1("captcha_phrase:checking your browser"))
	add("captcha_boilerplate_ends_at_char_4096", input{URL: "https://www.example.com/blog", Title: "Blog", Markdown: fill(4096-runes(" checking your browser before accessing")) + " checking your browser before accessing" + fill(500)}, l1("captcha_phrase:checking your browser"))
	add("cut_captcha_boilerplate_after_4096", input{URL: "https://www.example.com/blog", Title: "Blog", Markdown: fill(4100) + " Checking your browser before accessing www.example.com."}, none)
	add("cut_captcha_boilerplate_straddles_4096", input{URL: "https://www.example.com/blog", Title: "Blog", Markdown: fill(4080) + " checking your browser before accessing www.example.com." + fill(100)}, none)
	add("trap_captcha_prose_on_long_page", input{URL: "https://blog.example.com/bots", Title: "Why the web keeps asking if you are a robot", Markdown: padTo("# Why the web keeps asking if you are a robot\n\nSites ask you to verify you are human, tick an I'm not a robot box, or complete the captcha. ", 2500)}, none)
	add("trap_captcha_prose_on_medium_page", input{URL: "https://blog.example.com/bots", Title: "Notes", Markdown: padTo("Yesterday a form asked me to complete the captcha three times. ", 800)}, none)
	add("trap_captcha_blog_title_not_whole", input{URL: "https://blog.example.com/captchas", Title: "How CAPTCHAs work: are you a robot? | Blog", Markdown: padTo("# How CAPTCHAs work\n\n", 900)}, none)
	add("trap_recaptcha_badge_on_login_is_not_captcha", input{URL: "https://example.com/login", Title: "Example", Markdown: "# Log in\n\nThis site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.", Elements: els(el("textbox", "Email"), el("textbox", "Password"), el("button", "Log in"))}, l3("auth_url:/login"))
	add("captcha_beats_login", input{URL: "https://example.com/login", Title: "Sign in", Markdown: "# Sign in", Elements: els(el("textbox", "Password"), el("button", "Sign in")), CaptchaFrame: true}, l1("captcha_frame"))
}

// deniedVectors adds the access-denied vectors (L2).
func deniedVectors() {
	// ---- L2 access denied ---------------------------------------------
	add("denied_title_403_nginx", input{URL: "https://example.com/admin/", Title: "403 Forbidden", Markdown: "# 403 Forbidden\n\n---\n\nnginx/1.18.0"}, l2("denied_title:403"))
	add("denied_heading_403_no_title", input{URL: "https://example.com/admin/", Title: "", Markdown: "# 403 Forbidden\n\nnginx"}, l2("denied_heading:403"))
	add("denied_heading_access_denied_medium", input{URL: "https://store.example.com/cart", Title: "Example Store", Markdown: padTo("# Access denied\n\n", 900)}, l2("denied_heading:access denied"))
	add("denied_title_429", input{URL: "https://api.example.com/v1/items", Title: "429 Too Many Requests", Markdown: "# Too Many Requests\n\nYou have sent too many requests in a given amount of time."}, l2("denied_title:429"))
	add("denied_phrase_rate_limit_short", input{URL: "https://api.example.com/v1/items", Title: "Example API", Markdown: "Rate limit exceeded. Try again in 60 seconds."}, l2("denied_phrase:rate limit"))
	add("denied_phrase_too_many_requests_short", input{URL: "https://example.com/search?q=x", Title: "Example", Markdown: "Whoa there! You have made too many requests. Please wait a moment."}, l2("denied_phrase:too many requests"))
	add("denied_cloudflare_1020", input{URL: "https://www.example.com/", Title: "Access denied | www.example.com used Cloudflare to restrict access", Markdown: "# Access denied Error code 1020\n\n## What happened?\n\nThe owner of this website (www.example.com) has banned your access based on your browser's signature (8e1f2a3b-ua48).\n\nRay ID: 8e1f2a3b\n\nTimestamp: 2026-11-22 10:00:00 UTC"}, l2("denied_title:access denied"))
	add("denied_cloudflare_sorry_blocked", input{URL: "https://www.example.com/", Title: "Attention Required! | Cloudflare", Markdown: "# Sorry, you have been blocked\n\n## You are unable to access example.com\n\nThis website is using a security service to protect itself from online attacks."}, l2("denied_heading:blocked"))
	add("denied_url_errors_403_html", input{URL: "https://example.com/errors/403.html", Title: "Oops", Markdown: "Something went wrong."}, l2("denied_url:403"))
	add("denied_url_access_denied", input{URL: "https://example.com/access-denied?from=/reports", Title: "Example", Markdown: "Sorry."}, l2("denied_url:access denied"))
	add("denied_phrase_apache_permission", input{URL: "https://example.com/private/", Title: "", Markdown: "Forbidden\n\nYou don't have permission to access this resource.\n\nApache/2.4.41 (Ubuntu) Server at example.com Port 80"}, l2("denied_phrase:access denied"))
	add("denied_phrase_at_399_chars", input{URL: "https://example.com/x", Title: "Example", Markdown: padTo("Sorry, access denied for your account region. ", 399)}, l2("denied_phrase:access denied"))
	add("denied_phrase_at_400_chars_is_not_short", input{URL: "https://example.com/x", Title: "Example", Markdown: padTo("Sorry, access denied for your account region. ", 400)}, none)
	add("denied_title_at_1999_chars", input{URL: "https://example.com/x", Title: "403 Forbidden", Markdown: padTo("", 1999)}, l2("denied_title:403"))
	add("denied_title_at_2000_chars_is_content", input{URL: "https://example.com/x", Title: "403 Forbidden", Markdown: padTo("", 2000)}, none)
	add("denied_first_heading_h2", input{URL: "https://example.com/x", Title: "Example", Markdown: padTo("## Access denied\n\n", 700)}, l2("denied_heading:access denied"))
	add("trap_denied_second_h2_not_headline", input{URL: "https://example.com/x", Title: "Example", Markdown: padTo("# Welcome\n\n## Access denied\n\n", 700)}, none)
	add("denied_title_nbsp", input{URL: "https://example.com/x", Title: "403\u00a0Forbidden", Markdown: "nginx"}, l2("denied_title:403"))
	add("denied_title_uppercase", input{URL: "https://example.com/x", Title: "ACCESS DENIED", Markdown: padTo("", 600)}, l2("denied_title:access denied"))
	add("denied_title_error_dash_code", input{URL: "https://example.com/x", Title: "Error 403 - Forbidden", Markdown: padTo("", 600)}, l2("denied_title:403"))
	add("denied_beats_login", input{URL: "https://example.com/login", Title: "403 Forbidden", Markdown: "# 403 Forbidden", Elements: els(el("textbox", "Password"), el("button", "Sign in"))}, l2("denied_title:403"))
	add("trap_mdn_403_reference", input{URL: "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/403", Title: "403 Forbidden - HTTP | MDN", Markdown: padTo("# 403 Forbidden\n\nThe HTTP 403 Forbidden client error response status code indicates that the server understood the request but refused to process it. ", 3000)}, none)
	add("trap_blog_403_how_to_fix", input{URL: "https://devblog.example.com/fix-403-forbidden", Title: "How to Fix a 403 Forbidden Error (2026 guide) | DevBlog", Markdown: padTo("# How to Fix a 403 Forbidden Error\n\n## What is a 403 error?\n\nA 403 Forbidden means access is denied. ", 1200)}, none)
	add("trap_title_colon_article", input{URL: "https://devblog.example.com/403", Title: "403 Forbidden: what it means and how to fix it", Markdown: padTo("", 1000)}, none)
	add("trap_news_article_blocked_403_prose", input{URL: "https://news.example.com/2026/11/bridge", Title: "Council approves bridge – The Daily Ledger", Markdown: padTo("# Council approves bridge\n\nThe plan was blocked twice. Item 403 on the agenda passed; access was denied to boats. Too many requests for comment went unanswered. ", 2400)}, none)
	add("trap_short_page_bare_403", input{URL: "https://shop.example.com/orders/403", Title: "Order confirmed", Markdown: "# Thanks!\n\nOrder #403 is confirmed. Blocked dates: none."}, none)
	add("trap_api_docs_error_headings", input{URL: "https://docs.example.com/api/errors", Title: "API errors – Example Docs", Markdown: padTo("# API errors\n\n## 403 Forbidden\n\nYour key lacks the scope.\n\n## 429 Too Many Requests\n\nSlow down.\n\n", 1500)}, none)
	add("trap_url_status_403", input{URL: "https://developer.example.com/docs/status/403", Title: "Status codes", Markdown: padTo("", 700)}, none)
	add("trap_docs_rate_limit_heading", input{URL: "https://docs.example.com/rate-limit", Title: "Rate limits – Example Docs", Markdown: padTo("# Rate limit\n\nEach key may send 100 calls a minute. ", 1200)}, none)
}

// passwordVectors adds the vectors of a password field on a sign-in
// URL or title (L3).
func passwordVectors() {
	// ---- L3 password + auth URL/title -----------------------------------
	pw := el("textbox", "Password")
	add("l3_login_url", input{URL: "https://example.com/login", Title: "Example", Markdown: "# Welcome", Elements: els(el("textbox", "Email"), pw)}, l3("auth_url:/login"))
	add("l3_auth_title_long_page", input{URL: "https://example.com/x", Title: "Sign in – Acme", Markdown: padTo("# Terms\n\n", 3000), Elements: els(pw)}, l3("auth_title"))
	add("l3_accounts_host", input{URL: "https://accounts.example.com/v3/signin/identifier?flowName=x", Title: "Example", Markdown: "", Elements: els(pw)}, l3("auth_url:accounts."))
	add("l3_searchbox_passcode_sso", input{URL: "https://corp.example.com/sso/start", Title: "Corp", Markdown: "", Elements: els(el("searchbox", "Passcode"))}, l3("auth_url:/sso"))
	add("l3_pwd_account_login", input{URL: "https://example.com/account/login?r=1", Title: "", Markdown: "", Elements: els(el("textbox", "pwd"))}, l3("auth_url:/account/login"))
	add("l3_material_password_sign_in_path", input{URL: "https://app.example.com/sign-in", Title: "App", Markdown: "Welcome back", Elements: els(el("textbox", "Email address"), el("textbox", "Password"), el("button", "Next"))}, l3("auth_url:/sign-in"))
	add("l3_radix_enter_password_users_sign_in", input{URL: "https://example.com/users/sign_in", Title: "Example", Markdown: "", Elements: els(el("textbox", "Enter your password"))}, l3("auth_url:/users/sign_in"))
	add("l3_headless_ui_password_star_title", input{URL: "https://example.com/", Title: "Log in | Example", Markdown: padTo("", 2500), Elements: els(el("textbox", "Password *"))}, l3("auth_title"))
	add("l3_session_path", input{URL: "https://github.example.com/session", Title: "Example", Markdown: "", Elements: els(pw)}, l3("auth_url:/session"))
	add("l3_sign_in_underscore_path", input{URL: "https://example.com/sign_in", Title: "", Markdown: "", Elements: els(pw)}, l3("auth_url:/sign_in"))
	add("l3_login_html_path", input{URL: "http://127.0.0.1:8080/portal/login.html", Title: "Portal", Markdown: "", Elements: els(pw)}, l3("auth_url:/login"))
	add("l3_uppercase_role_and_name", input{URL: "https://example.com/LOGIN", Title: "", Markdown: "", Elements: els(el("TextBox", "PASSWORD"))}, l3("auth_url:/login"))
	add("l3_hidden_password_ignored", input{URL: "https://example.com/login", Title: "Example", Markdown: "Welcome", Elements: els(hidden("textbox", "Password"))}, l4l("auth_url:/login"))
	add("l3_visible_true_counts", input{URL: "https://example.com/login", Title: "Example", Markdown: "Welcome", Elements: els(visible("textbox", "Password"))}, l3("auth_url:/login"))
}

// signalVectors adds the vectors of auth signals counted (L4).
func signalVectors() {
	// ---- L4 signal counting ------------------------------------------
	add("l4_design_system_password_and_create_account", input{URL: "http://127.0.0.1:8080/app/", Title: "Welcome back", Markdown: "# Welcome back\n\nEnter your details to continue.", Elements: els(el("textbox", "Email"), el("textbox", "Password"), el("button", "Continue"), el("link", "Create account"))}, l4h("password_field", "sign_up_link"))
	add("l4_oauth_only_short", input{URL: "https://example.com/start", Title: "Example", Markdown: "# Example", Elements: els(el("button", "Continue with Google"))}, l4l("oauth_button"))
	add("l4_two_oauth_buttons_are_one_type", input{URL: "https://example.com/start", Title: "Example", Markdown: "# Example", Elements: els(el("button", "Continue with Google"), el("button", "Continue with GitHub"), el("link", "Sign in with Apple"))}, l4l("oauth_button"))
	add("l4_password_only_short", input{URL: "https://example.com/unlock", Title: "Example", Markdown: "Enter the passphrase.", Elements: els(el("textbox", "Password"))}, l4l("password_field"))
	add("l4_sign_in_button_only_short", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(el("button", "Sign in"))}, l4l("sign_in_button"))
	add("l4_sign_up_link_only_short", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(el("link", "Sign up"))}, l4l("sign_up_link"))
	add("l4_forgot_link_only_short", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(el("link", "Forgot your password?"))}, l4l("forgot_password_link"))
	add("l4_auth_url_only_short", input{URL: "https://example.com/auth?next=/", Title: "Example", Markdown: "Loading…"}, l4l("auth_url:/auth"))
	add("l4_auth_title_only_short", input{URL: "https://example.com/", Title: "Login", Markdown: "Loading…"}, l4l("auth_title"))
	add("l4_button_and_link_short", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(el("button", "Log in"), el("link", "Sign up"))}, l4h("sign_in_button", "sign_up_link"))
	add("trap_l4_nav_pair_on_medium_page", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("# Example\n\n", 800), Elements: els(el("button", "Log in"), el("link", "Sign up"))}, none)
	add("l4_medium_page_with_forgot_link", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("# Example\n\n", 800), Elements: els(el("button", "Sign in"), el("link", "Forgot password?"))}, l4h("sign_in_button", "forgot_password_link"))
	add("l4_one_signal_at_399_chars", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("", 399), Elements: els(el("button", "Continue with Microsoft"))}, l4l("oauth_button"))
	add("l4_one_signal_at_400_chars", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("", 400), Elements: els(el("button", "Continue with Microsoft"))}, none)
	add("l4_two_signals_at_1999_chars", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("", 1999), Elements: els(el("textbox", "Password"), el("button", "Log in"))}, l4h("password_field", "sign_in_button"))
	add("l4_two_signals_at_2000_chars", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("", 2000), Elements: els(el("textbox", "Password"), el("button", "Log in"))}, none)
	add("l4_emoji_399_code_points", input{URL: "https://example.com/", Title: "Example", Markdown: padTo(strings.Repeat("😀", 20), 399), Elements: els(el("button", "Sign in"))}, l4l("sign_in_button"))
	add("l4_emoji_400_code_points", input{URL: "https://example.com/", Title: "Example", Markdown: padTo(strings.Repeat("😀", 20), 400), Elements: els(el("button", "Sign in"))}, none)
	add("l4_sign_in_with_google_is_oauth_not_button", input{URL: "https://example.com/", Title: "Example", Markdown: "", Elements: els(el("button", "Sign in with Google"))}, l4l("oauth_button"))
	add("l4_all_seven_types", input{URL: "https://example.com/auth/start", Title: "Sign in - Example", Markdown: "x", Elements: els(el("button", "Sign in"), el("link", "Create an account"), el("link", "Forgot password?"), el("button", "Continue with Apple"))}, l4h("sign_in_button", "sign_up_link", "forgot_password_link", "oauth_button", "auth_url:/auth", "auth_title"))
	add("l4_forgot_as_button_with_password", input{URL: "https://example.com/", Title: "Example", Markdown: "", Elements: els(el("textbox", "Password"), el("button", "Forgot password?"))}, l4h("password_field", "forgot_password_link"))
	add("l4_dont_have_account_link", input{URL: "https://example.com/", Title: "Example", Markdown: "", Elements: els(el("link", "Don't have an account? Sign up"), el("button", "Log in"))}, l4h("sign_in_button", "sign_up_link"))
	add("l4_sign_in_to_brand_button_with_oauth", input{URL: "https://example.com/", Title: "Example", Markdown: padTo("", 900), Elements: els(el("button", "Sign in to Acme"), el("button", "Continue with Facebook"))}, l4h("sign_in_button", "oauth_button"))
	add("l4_nbsp_in_button_name", input{URL: "https://example.com/", Title: "Example", Markdown: "", Elements: els(el("button", "Log\u00a0in"))}, l4l("sign_in_button"))
	add("trap_login_link_is_not_a_signal", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(el("link", "Log in"))}, none)
	add("trap_hidden_sign_in_button", input{URL: "https://example.com/", Title: "Example", Markdown: "# Example", Elements: els(hidden("button", "Sign in"))}, none)
	add("trap_empty_input", input{}, none)
}

// contentTrapVectors adds the content pages that must not read as
// walls.
func contentTrapVectors() {
	// ---- false-positive traps on content pages ------------------------------
	add("trap_news_page_sign_in_link", input{URL: "https://news.example.com/world/harbour", Title: "Harbour festival returns – Example News", Markdown: article, Elements: els(el("link", "Home"), el("link", "World"), el("link", "Sign in"), el("button", "Subscribe"))}, none)
	add("trap_long_page_header_login_button_and_signup", input{URL: "https://saas.example.com/blog/release-notes", Title: "Release notes – Example", Markdown: article, Elements: els(el("button", "Log in"), el("link", "Sign up"), el("link", "Docs"))}, none)
	add("trap_long_page_with_sidebar_login_form", input{URL: "https://forum.example.com/thread/42", Title: "Thread 42 – Forum", Markdown: article, Elements: els(el("textbox", "Username"), el("textbox", "Password"), el("button", "Log in"), el("link", "Forgot password?"))}, none)
	add("trap_search_results_about_passwords", input{URL: "https://find.example.com/search?q=password+manager", Title: "Results for \"password manager\" – FindIt", Markdown: padTo("# Results for \"password manager\"\n\nBest password managers. Choosing a strong master password. Password reuse is risky. ", 1100), Elements: els(element{Role: "searchbox", Name: "Search", Value: "password manager"}, el("link", "How to reset your password in Windows 11"), el("link", "Forgot password? Try these fixes"))}, none)
	add("trap_searchbox_search_passwords_short", input{URL: "https://vault.example.com/items", Title: "Vault", Markdown: "# Items", Elements: els(el("searchbox", "Search passwords"))}, none)
	add("trap_title_the_register", input{URL: "https://www.theregister.example/2026/11/22/story", Title: "The Register: Biting the hand that feeds IT", Markdown: padTo("", 900)}, none)
	add("trap_title_how_to_log_in_medium", input{URL: "https://help.example.com/gmail", Title: "How to log in to Gmail - Help Center", Markdown: padTo("# How to log in to Gmail\n\n", 800), Elements: els(el("button", "Sign in"), el("link", "Create account"))}, none)
	add("trap_conference_session_long", input{URL: "https://conf.example.com/session/17", Title: "Session 17: Rust in production", Markdown: article, Elements: els(el("button", "Log in"))}, none)
}

// ---- fixture pages ----------------------------------------------------

var (
	reBody    = regexp.MustCompile(`(?is)<body[^>]*>(.*)</body>`)
	reTitle   = regexp.MustCompile(`(?is)<title>(.*?)</title>`)
	reDrop    = regexp.MustCompile(`(?is)<(nav|footer|aside|script|style|iframe|form)\b[^>]*>.*?</(?:nav|footer|aside|script|style|iframe|form)>|<!--.*?-->`)
	reHeading = regexp.MustCompile(`(?is)<h([1-6])[^>]*>(.*?)</h[1-6]>`)
	reLi      = regexp.MustCompile(`(?i)<li[^>]*>`)
	reBlock   = regexp.MustCompile(`(?i)</?(p|div|ul|ol|main|article|center|hr|br|button)\b[^>]*>`)
	reTag     = regexp.MustCompile(`<[^>]+>`)
	reSpaces  = regexp.MustCompile(`[ \t]+`)
	reBlank   = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
)

// markdownOf approximates extract's markdown: nav, footer and aside are
// dropped (as the real extract does), headings become ATX lines. Form
// controls are left out; a button's text is kept as the extract's text walk
// would.
func markdownOf(page string) (title, md string) {
	if m := reTitle.FindStringSubmatch(page); m != nil {
		title = html.UnescapeString(strings.TrimSpace(m[1]))
	}
	body := reBody.FindStringSubmatch(page)[1]
	body = reDrop.ReplaceAllStringFunc(body, func(s string) string {
		if strings.HasPrefix(strings.ToLower(s), "<form") {
			return "\n\n" + reTag.ReplaceAllString(regexp.MustCompile(`(?is)<(label|input)[^>]*>.*?</label>|<input[^>]*>`).ReplaceAllString(s, ""), " ") + "\n\n"
		}
		return "\n"
	})
	body = reHeading.ReplaceAllStringFunc(body, func(s string) string {
		m := reHeading.FindStringSubmatch(s)
		return "\n\n" + strings.Repeat("#", int(m[1][0]-'0')) + " " + strings.TrimSpace(reTag.ReplaceAllString(m[2], "")) + "\n\n"
	})
	body = reLi.ReplaceAllString(body, "\n- ")
	body = reBlock.ReplaceAllString(body, "\n\n")
	body = reTag.ReplaceAllString(body, "")
	body = html.UnescapeString(body)
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(reSpaces.ReplaceAllString(l, " "))
	}
	md = reBlank.ReplaceAllString(strings.Join(lines, "\n"), "\n\n")
	return title, strings.TrimSpace(md)
}

type page struct {
	file     string
	elements []element
	frame    bool
	expected expect
}

func pages(dir string) {
	list := []page{
		{"login.html", els(el("textbox", "Email"), el("textbox", "Password"), el("button", "Sign in"), el("link", "Forgot password?")), false, l3("auth_url:/login")},
		{"login-design-system.html", els(el("textbox", "Email"), el("textbox", "Password"), el("button", "Continue"), el("link", "Create account")), false, l4h("password_field", "sign_up_link")},
		{"challenge.html", els(), true, l1("captcha_frame")},
		{"403.html", els(), false, l2("denied_url:403")},
		{"429.html", els(), false, l2("denied_url:429")},
		{"oauth-only.html", els(el("button", "Continue with Google")), false, l4l("oauth_button")},
		{"article.html", els(el("link", "The Daily Ledger"), el("link", "News"), el("link", "Sport"), el("link", "Log in"), el("link", "Privacy"), el("link", "Terms")), false, none},
		{"blog-403.html", els(el("link", "Dev Notes"), el("link", "Archive"), el("link", "Sign in")), false, none},
		{"search.html", els(element{Role: "searchbox", Name: "Search", Value: "password manager"}, el("button", "Search"),
			el("link", "Best password managers of 2026, tested and compared"), el("link", "How a password manager stores your data"),
			el("link", "Choosing a strong master password"), el("link", "Password manager browser extensions compared"),
			el("link", "Should you use the password manager built into your browser?")), false, none},
	}
	expected := map[string]any{}
	for _, p := range list {
		raw, err := os.ReadFile(filepath.Join(dir, p.file))
		if err != nil {
			panic(err)
		}
		title, md := markdownOf(string(raw))
		name := "page_" + strings.TrimSuffix(p.file, ".html")
		add(name, input{URL: "http://127.0.0.1:8080/obstacles/" + p.file, Title: title, Markdown: md, Elements: p.elements, CaptchaFrame: p.frame}, p.expected)
		if p.expected.want == nil {
			expected[p.file] = nil
		} else {
			expected[p.file] = map[string]string{"type": p.expected.want.Type, "confidence": p.expected.want.Confidence}
		}
		fmt.Printf("%-26s %5d chars  %q\n", p.file, runes(md), title)
	}
	b, _ := json.MarshalIndent(expected, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}

// edges are the vectors for branches the others leave untaken, so both
// twins are held to every branch (docs/architecture.md#the-obstacle-classifier-in-go-and-in-javascript):
// control names that start with symbols, or are nothing else; "I forgot"
// with a space or a no-break space; a markdown longer than the scan in
// bytes and UTF-16 units but not in code points; headings indented, or
// with no space after the hashes.
func edges() {
	cart := input{URL: "https://shop.example.com/cart", Title: "Cart", Markdown: "Your cart is empty."}
	with := func(in input, e ...element) input { in.Elements = e; return in }
	add("edge_control_name_after_symbols", with(cart, el("button", "→ Sign in")), l4l("sign_in_button"))
	add("edge_control_name_only_symbols", with(cart, el("button", "→"), el("link", "…")), none)
	add("edge_i_forgot_space", with(cart, el("link", "I forgot my password")), l4l("forgot_password_link"))
	add("edge_i_forgot_nbsp", with(cart, el("link", "I\u00a0forgot my password")), l4l("forgot_password_link"))
	add("edge_scan_fits_in_code_points", input{URL: "https://www.example.com/", Title: "", Markdown: "Checking your browser before accessing www.example.com.\n\n" + strings.Repeat("\U0001F600", 3000)}, l1("captcha_phrase:checking your browser"))
	add("edge_heading_indented", input{URL: "https://store.example.com/cart", Title: "Example Store", Markdown: padTo("   # Access denied\n\n", 900)}, l2("denied_heading:access denied"))
	add("edge_heading_without_space_is_text", input{URL: "https://store.example.com/cart", Title: "Example Store", Markdown: padTo("#Access denied\n\n", 900)}, none)
}
