package obstacle

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bua-dev/bua/pkg/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files")

const vectorDir = "../../testdata/obstacle"

type vector struct {
	Name  string             `json:"name"`
	Input Input              `json:"input"`
	Want  *protocol.Obstacle `json:"want"`
	Layer string             `json:"layer"`
}

func loadVectors(t testing.TB) map[string]vector {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 80 {
		t.Fatalf("found %d vectors in %s, want at least 80", len(files), vectorDir)
	}
	out := map[string]vector{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		var v vector
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = v
	}
	return out
}

// TestVectors runs the vectors the JS twin runs too; both must agree exactly.
func TestVectors(t *testing.T) {
	for file, v := range loadVectors(t) {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			got := Explain(v.Input)
			if !equal(got.Obstacle, v.Want) {
				t.Errorf("Detect = %s, want %s\nsignals: %v", show(got.Obstacle), show(v.Want), got.Signals)
			}
			if got.Layer != v.Layer {
				t.Errorf("layer = %q, want %q (signals %v)", got.Layer, v.Layer, got.Signals)
			}
			if d := Detect(v.Input); !equal(d, got.Obstacle) {
				t.Errorf("Detect = %s, Explain().Obstacle = %s", show(d), show(got.Obstacle))
			}
		})
	}
}

func equal(a, b *protocol.Obstacle) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func show(o *protocol.Obstacle) string {
	if o == nil {
		return "nil"
	}
	return fmt.Sprintf("%+v", *o)
}

// TestWireShape pins the JSON the extension and CLI exchange: exactly type,
// confidence, message.
func TestWireShape(t *testing.T) {
	b, err := json.Marshal(protocol.Obstacle{Type: protocol.ObstacleAuthWall, Confidence: protocol.ConfidenceLow, Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"type":"auth_wall","confidence":"low","message":"m"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCut(t *testing.T) {
	ascii := strings.Repeat("a", 5000)
	if got := cut(ascii, ScanChars); len(got) != ScanChars {
		t.Errorf("cut ASCII to %d bytes, want %d", len(got), ScanChars)
	}
	// Code points, not bytes: 4096 "é" are 8192 bytes and all survive.
	accents := strings.Repeat("é", 5000)
	if got := utf8.RuneCountInString(cut(accents, ScanChars)); got != ScanChars {
		t.Errorf("cut kept %d code points, want %d", got, ScanChars)
	}
	if got := cut("short", ScanChars); got != "short" {
		t.Errorf("cut(short) = %q", got)
	}
	if got := countUpTo(strings.Repeat("😀", 10), 400); got != 10 {
		t.Errorf("countUpTo(10 emoji) = %d, want 10", got)
	}
	if got := countUpTo(ascii, ContentPageChars); got != ContentPageChars {
		t.Errorf("countUpTo stops at the limit: got %d, want %d", got, ContentPageChars)
	}
}

// TestCutHidesMarker: a headline past the scanned prefix cannot fire, the
// same one inside it does. The page is padded with boilerplate to stay
// within reach of the boilerplate rule, which fires on pages of any length.
func TestCutHidesMarker(t *testing.T) {
	marker := "\nchecking your browser before accessing example.com\n"
	before := Input{Markdown: strings.Repeat("x", ScanChars-len(marker)) + marker + strings.Repeat("y", 100)}
	after := Input{Markdown: strings.Repeat("x", ScanChars) + marker}
	if o := Detect(before); o == nil || o.Type != protocol.ObstacleCaptcha {
		t.Errorf("marker inside the first %d chars: got %s, want captcha", ScanChars, show(o))
	}
	if o := Detect(after); o != nil {
		t.Errorf("marker after the first %d chars: got %s, want nil", ScanChars, show(o))
	}
}

func TestLowercase(t *testing.T) {
	if got := lower("Sign\u00a0IN – ÉTÉ İ"); got != "sign in – ÉtÉ İ" {
		t.Errorf("lower = %q: only ASCII folds, NBSP becomes a space", got)
	}
	s := "already lower"
	if got := lower(s); got != s {
		t.Errorf("lower(%q) = %q", s, got)
	}
	upper := Input{URL: "HTTPS://EXAMPLE.COM/LOGIN", Title: "EXAMPLE", Elements: []protocol.Element{{UID: "1", Role: "TEXTBOX", Name: "PASSWORD"}}}
	if v := Explain(upper); v.Layer != "L3" {
		t.Errorf("uppercase inputs: layer %q, signals %v; want L3", v.Layer, v.Signals)
	}
	// Non-ASCII case folding must not manufacture matches: the Kelvin sign
	// lowercases to "k" under Unicode rules, but not here (nor in JS's twin).
	if o := Detect(Input{Title: "ACCESS DENIED"}); o == nil || o.Type != protocol.ObstacleAccessDenied {
		t.Errorf("ACCESS DENIED title: got %s", show(o))
	}
}

// TestLowerEveryByte checks lower against the obvious per-byte rule for
// every byte value at every offset of a short string.
func TestLowerEveryByte(t *testing.T) {
	ref := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 32
			}
		}
		return string(b)
	}
	for c := 0; c < 256; c++ {
		if c == 0xC2 {
			continue // NBSP lead byte: the other path, covered by TestLowercase
		}
		for off := 0; off < 17; off++ {
			b := []byte("Q" + strings.Repeat("a", 17) + "Z")
			b[off+1] = byte(c)
			if got, want := lower(string(b)), ref(string(b)); got != want {
				t.Fatalf("lower(%q) = %q, want %q", b, got, want)
			}
		}
	}
}

// TestSplitSegments holds the hand-written splitter to titleSeparator,
// the pattern the JS twin splits with, over every short string built from
// the characters that matter.
func TestSplitSegments(t *testing.T) {
	alphabet := []string{" ", "\t", "|", "-", "·", "–", "—", "a", ":"}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		got := splitSegments(nil, prefix)
		want := regexp.MustCompile(titleSeparator).Split(prefix, -1)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("splitSegments(%q) = %q, regexp gives %q", prefix, got, want)
		}
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			walk(prefix+c, depth-1)
		}
	}
	walk("", 5)
}

func TestExplainSignals(t *testing.T) {
	v := Explain(Input{
		URL:      "https://example.com/login",
		Title:    "Sign in – Example",
		Markdown: "# Sign in",
		Elements: []protocol.Element{{UID: "1", Role: "textbox", Name: "Password"}, {UID: "2", Role: "button", Name: "Sign in"}},
	})
	want := []string{"password_field", "sign_in_button", "auth_url:/login", "auth_title"}
	if strings.Join(v.Signals, ",") != strings.Join(want, ",") || v.Layer != "L3" {
		t.Errorf("Explain = layer %q signals %v, want L3 %v", v.Layer, v.Signals, want)
	}
}

func TestParseInput(t *testing.T) {
	extract := `{"text":"Sign in","markdown":"# Sign in","elements":[{"uid":"e1","role":"textbox","name":"Password","visible":true}],"obstacle":null,"url":"https://example.com/login","title":"Sign in","captchaFrame":false,"tabId":7}`
	in, err := ParseInput([]byte(extract))
	if err != nil {
		t.Fatal(err)
	}
	if in.URL != "https://example.com/login" || len(in.Elements) != 1 || in.Elements[0].Visible == nil || !*in.Elements[0].Visible {
		t.Errorf("extract JSON parsed as %+v", in)
	}
	raw, err := ParseInput([]byte(`{"url":"https://x.test/","captchaFrame":true}`))
	if err != nil || !raw.CaptchaFrame {
		t.Errorf("raw inputs: %+v, %v", raw, err)
	}
	wrapped, err := ParseInput([]byte(`{"name":"v","input":{"url":"https://x.test/a"},"want":null}`))
	if err != nil || wrapped.URL != "https://x.test/a" {
		t.Errorf("wrapped input: %+v, %v", wrapped, err)
	}
	for _, bad := range []struct{ in, wantErr string }{
		{"", "empty input"},
		{"   \n", "empty input"},
		{"{", "not valid JSON"},
		{"[1,2]", "not an array"},
		{"null", "input is null"},
		{`{"foo":1}`, "none of url, title"},
		{`{"url":3}`, `field "url" is a JSON number but must be a string`},
		{`{"elements":{}}`, `field "elements" is a JSON object but must be an array`},
		{`{"result":{"url":[]}}`, `in "result"`},
	} {
		_, err := ParseInput([]byte(bad.in))
		if err == nil {
			t.Errorf("ParseInput(%q) succeeded, want error", bad.in)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, bad.wantErr) {
			t.Errorf("ParseInput(%q) = %q, want it to mention %q", bad.in, msg, bad.wantErr)
		}
		if !strings.Contains(msg, "bua extract --json") && !strings.Contains(msg, "fix the input") {
			t.Errorf("ParseInput(%q) = %q: the error must say what to do next", bad.in, msg)
		}
	}
}

// TestFormatText compares FormatText on a few verdicts with
// testdata/format.golden; go test -update rewrites it.
func TestFormatText(t *testing.T) {
	byName := map[string]vector{}
	for _, v := range loadVectors(t) {
		byName[v.Name] = v
	}
	var b strings.Builder
	for _, name := range []string{"captcha_frame_short_page", "denied_title_403_nginx", "l3_login_url", "l4_button_and_link_short", "l4_oauth_only_short", "page_article"} {
		v, ok := byName[name]
		if !ok {
			t.Fatalf("vector %s is gone; pick another for the golden file", name)
		}
		fmt.Fprintf(&b, "== %s\n%s", v.Name, FormatText(Explain(v.Input)))
	}
	golden := filepath.Join("testdata", "format.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("FormatText output differs from %s (go test -update to accept):\n%s", golden, b.String())
	}
}

func ExampleDetect() {
	o := Detect(Input{
		URL:   "https://example.com/login",
		Title: "Sign in – Example",
		Elements: []protocol.Element{
			{UID: "e1", Role: "textbox", Name: "Email"},
			{UID: "e2", Role: "textbox", Name: "Password"},
			{UID: "e3", Role: "button", Name: "Sign in"},
		},
	})
	fmt.Println(o.Type, o.Confidence)
	fmt.Println(o.Message)
	fmt.Println(Detect(Input{URL: "https://example.com/", Markdown: strings.Repeat("Plain article text. ", 200)}))
	// Output:
	// auth_wall high
	// Login wall: a password field on a sign-in page (auth_url:/login)
	// <nil>
}

// benchInput is a worst-ish ordinary page: 4K-char markdown with headings,
// 200 elements mostly links, none of it an obstacle, so every layer runs to
// the end.
func benchInput() Input {
	var md strings.Builder
	for md.Len() < ScanChars {
		md.WriteString("## Section heading\n\nThe valley Road winds past old farms and quiet orchards toward the lake.\n\n")
	}
	var els []protocol.Element
	for i := 0; i < 200; i++ {
		e := protocol.Element{UID: fmt.Sprintf("e%d", i)}
		switch i % 10 {
		case 0:
			e.Role, e.Name = "button", fmt.Sprintf("Share story %d", i)
		case 1:
			e.Role, e.Name = "textbox", "Search this site"
		default:
			e.Role, e.Name = "link", fmt.Sprintf("Related Article Number %d About Local Weather", i)
		}
		els = append(els, e)
	}
	return Input{URL: "https://news.example.com/world/2026/11/22/harbour-festival?utm_source=x", Title: "Harbour festival returns – Example News", Markdown: md.String()[:ScanChars], Elements: els}
}

func BenchmarkDetect(b *testing.B) {
	in := benchInput()
	if Detect(in) != nil {
		b.Fatal("benchmark page must not be an obstacle")
	}
	b.ReportAllocs()
	for b.Loop() {
		Detect(in)
	}
}

// BenchmarkDetectShort covers the short-page path, where free-text phrases
// are scanned too.
func BenchmarkDetectShort(b *testing.B) {
	in := benchInput()
	in.Markdown = in.Markdown[:399]
	b.ReportAllocs()
	for b.Loop() {
		Detect(in)
	}
}

// TestPatternsCompile compiles every lazily compiled pattern, so a bad one
// fails here rather than on a user's first extract.
func TestPatternsCompile(t *testing.T) {
	if len(allPatterns) < 20 {
		t.Fatalf("only %d patterns registered", len(allPatterns))
	}
	for _, p := range allPatterns {
		if p.get() == nil {
			t.Fatalf("pattern %q did not compile", p.src)
		}
	}
}
