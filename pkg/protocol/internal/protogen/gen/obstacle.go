package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ObstacleRulesPath is the obstacle classifier's data, the one source of
// its Go tables (bua obstacle) and the extension's (extract).
const ObstacleRulesPath = "extension/schema/obstacle.rules.json"

// obstacleRules is the rules file.
type obstacleRules struct {
	Description      string
	ScanChars        int
	ShortPageChars   int
	ContentPageChars int
	TitleSeparators  []string
	Forms            map[string]string
	Signals          []signalGroup
	Rules            map[string][]obstacleRule
	Auth             map[string]obstacleRule
	Verdicts         map[string]obstacleVerdict
}

type signalGroup struct {
	Layer, Prefix, On, When, Rules, Form string
}

type obstacleRule struct {
	Label   string   `json:"label,omitempty"`
	Needles []string `json:"needles,omitempty"`
	Pattern *string  `json:"pattern"`
}

type obstacleVerdict struct {
	Type, Confidence, Message string
}

// The names the classifiers' code knows, in the order they are written.
var (
	obstacleAuth     = []string{"host", "path", "title", "password", "oauth", "signIn", "forgot", "signUp"}
	obstacleVerdicts = []string{"L1", "L2", "L3", "L4", "L4low"}
	obstacleEnums    = map[string][]string{
		"layer": {"captcha", "denied"},
		"on":    {"url", "markdown", "title", "headlines"},
		"when":  {"always", "sparse", "short"},
		"form":  {"raw", "whole", "free"},
	}
)

// readObstacleRules reads and checks the rules file: every name the code
// knows is there, every group names a known rule set, text and form, and
// every pattern compiles (RE2 here; the node tests compile them as
// JavaScript).
func readObstacleRules(doc []byte) (*obstacleRules, error) {
	var r obstacleRules
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.ScanChars <= 0 || r.ShortPageChars <= 0 || r.ContentPageChars < r.ShortPageChars || len(r.TitleSeparators) == 0 {
		return nil, fmt.Errorf("scanChars, shortPageChars, contentPageChars (at least shortPageChars) and titleSeparators are needed")
	}
	check := func(where string, rule obstacleRule, needLabel bool) error {
		if needLabel && (rule.Label == "" || len(rule.Needles) == 0) {
			return fmt.Errorf("%s: a rule needs a label and needles", where)
		}
		if rule.Pattern == nil {
			if len(rule.Needles) == 0 {
				return fmt.Errorf("%s: a rule needs a pattern, needles, or both", where)
			}
			return nil
		}
		if _, err := regexp.Compile(strings.ReplaceAll(r.Forms["whole"], "{pattern}", *rule.Pattern)); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		return nil
	}
	for name, set := range r.Rules {
		for i, rule := range set {
			if err := check(fmt.Sprintf("rules.%s[%d]", name, i), rule, true); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range obstacleEnums["form"] {
		if !strings.Contains(r.Forms[f], "{pattern}") {
			return nil, fmt.Errorf("forms.%s: missing, or no {pattern} in it", f)
		}
	}
	for i, g := range r.Signals {
		where := fmt.Sprintf("signals[%d]", i)
		if i > 0 && slices.Index(obstacleEnums["layer"], g.Layer) < slices.Index(obstacleEnums["layer"], r.Signals[i-1].Layer) {
			return nil, fmt.Errorf("%s: the groups go layer by layer: %s", where, strings.Join(obstacleEnums["layer"], ", "))
		}
		if r.Rules[g.Rules] == nil {
			return nil, fmt.Errorf("%s: no rule set %q", where, g.Rules)
		}
		for field, v := range map[string]string{"layer": g.Layer, "on": g.On, "when": g.When, "form": g.Form} {
			if !slicesContains(obstacleEnums[field], v) {
				return nil, fmt.Errorf("%s: %s must be one of %s, got %q", where, field, strings.Join(obstacleEnums[field], ", "), v)
			}
		}
	}
	for _, k := range obstacleAuth {
		rule, ok := r.Auth[k]
		if !ok || rule.Pattern == nil {
			return nil, fmt.Errorf("auth.%s: missing, or no pattern", k)
		}
		if err := check("auth."+k, rule, false); err != nil {
			return nil, err
		}
	}
	for _, k := range obstacleVerdicts {
		v, ok := r.Verdicts[k]
		if !ok || v.Message == "" {
			return nil, fmt.Errorf("verdicts.%s: missing, or no message", k)
		}
		if !slicesContains([]string{"auth_wall", "captcha", "access_denied"}, v.Type) || !slicesContains([]string{"low", "high"}, v.Confidence) {
			return nil, fmt.Errorf("verdicts.%s: type or confidence is not the schema's result.obstacle", k)
		}
	}
	return &r, nil
}

// setName is the Go and JS name of a rule set in one form.
func setName(set, form string) string { return set + camel(form) }

// expand is a rule's pattern in a form, or nil.
func (r *obstacleRules) expand(rule obstacleRule, form string) *string {
	if rule.Pattern == nil {
		return nil
	}
	s := strings.ReplaceAll(r.Forms[form], "{pattern}", *rule.Pattern)
	return &s
}

// separatorPattern is the regexp that splits a title into segments.
func (r *obstacleRules) separatorPattern() string {
	var b strings.Builder
	for _, s := range r.TitleSeparators {
		if strings.ContainsAny(s, `-]\^`) {
			b.WriteString(`\`)
		}
		b.WriteString(s)
	}
	return "[ \t]+[" + b.String() + "][ \t]+"
}

// ObstacleGo renders pkg/obstacle's tables.
func ObstacleGo(doc []byte) ([]byte, error) {
	r, err := readObstacleRules(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by protogen from %s. DO NOT EDIT.\n\npackage obstacle\n\nimport \"github.com/bua-dev/bua/pkg/protocol\"\n\n", ObstacleRulesPath)
	p("// Thresholds, in Unicode code points of the markdown as given (before the\n// ScanChars cut), so Go and JS agree on pages with non-ASCII text.\nconst (\n")
	p("\t// ScanChars is how much of the markdown is scanned; the rest is never read.\n\tScanChars = %d\n", r.ScanChars)
	p("\t// ShortPageChars: markdown shorter than this is a short page, where free\n\t// text counts and one auth signal gives a low verdict.\n\tShortPageChars = %d\n", r.ShortPageChars)
	p("\t// ContentPageChars: markdown this long or longer is a page with content to\n\t// use; only unambiguous signals count there.\n\tContentPageChars = %d\n)\n\n", r.ContentPageChars)
	p("// titleSeparators split a title into segments when a run of spaces or tabs\n// stands on both sides: titleSeparator, as a pattern, which the extension\n// splits with.\nvar titleSeparators = %s\n\nconst titleSeparator = %s\n\n", goStrings(r.TitleSeparators), goRaw(r.separatorPattern()))
	// The rule sets, in each form a group uses.
	written := map[string]bool{}
	p("var (\n")
	for _, g := range r.Signals {
		name := setName(g.Rules, g.Form)
		if written[name] {
			continue
		}
		written[name] = true
		p("\t%s = []rule{\n", name)
		for _, rule := range r.Rules[g.Rules] {
			p("\t\t%s,\n", goRule(rule, r.expand(rule, g.Form)))
		}
		p("\t}\n")
	}
	p(")\n\n")
	p("// signalGroups are the signals each layer looks for, in order.\nvar signalGroups = []signalGroup{\n")
	for _, g := range r.Signals {
		p("\t{layer: layer%s, prefix: %q, on: on%s, when: when%s, rules: %s},\n", goName(g.Layer), g.Prefix, goName(g.On), goName(g.When), setName(g.Rules, g.Form))
	}
	p("}\n\n")
	p("// The auth signals: the URL's host and path (the first capture is\n// reported), a title segment, and the controls' accessible names.\nvar (\n")
	for _, k := range obstacleAuth {
		rule := r.Auth[k]
		if rule.Label == "" {
			p("\tauth%s = lazy(%s)\n", goName(k), goRaw(*rule.Pattern))
		} else {
			p("\tauth%s = rule%s\n", goName(k), goRule(rule, rule.Pattern))
		}
	}
	p(")\n\n")
	p("// The verdicts, by layer.\nvar (\n")
	for _, k := range obstacleVerdicts {
		v := r.Verdicts[k]
		p("\tverdict%s = protocol.Obstacle{Type: protocol.Obstacle%s, Confidence: protocol.Confidence%s, Message: %q}\n", camel(k), camel(v.Type), camel(v.Confidence), v.Message)
	}
	p(")\n")
	return format.Source(b.Bytes())
}

func goRule(r obstacleRule, pattern *string) string {
	re := "nil"
	if pattern != nil {
		re = fmt.Sprintf("lazy(%s)", goRaw(*pattern))
	}
	return fmt.Sprintf("{%q, %s, %s}", r.Label, goStrings(r.Needles), re)
}

// goRaw is a Go string literal, raw when it can be.
func goRaw(s string) string {
	if !strings.ContainsAny(s, "`\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// ObstacleJS renders the extension's module of the same tables, as data:
// read/obstacle.js compiles the patterns in their forms.
func ObstacleJS(doc []byte) ([]byte, error) {
	r, err := readObstacleRules(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	js := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		return strings.TrimSuffix(buf.String(), "\n")
	}
	p("// Code generated by protogen from %s. DO NOT EDIT.\n", ObstacleRulesPath)
	p("// The obstacle classifier's data; read/obstacle.js runs it, as pkg/obstacle\n// runs the same data in Go.\n\n")
	p("/** Markdown scanned, in code points; the rest is never read. */\nexport const SCAN_CHARS = %d;\n", r.ScanChars)
	p("/** Markdown shorter than this is a short page. */\nexport const SHORT_PAGE_CHARS = %d;\n", r.ShortPageChars)
	p("/** Markdown this long or longer is a content page. */\nexport const CONTENT_PAGE_CHARS = %d;\n\n", r.ContentPageChars)
	p("// Splits a title into segments.\nexport const TITLE_SEPARATOR = %s;\n\n", js(r.separatorPattern()))
	p("// The signals each layer looks for, in order: rules names a rule set in\n// one form.\nexport const SIGNALS = Object.freeze([\n")
	for _, g := range r.Signals {
		p("  Object.freeze({ layer: %s, prefix: %s, on: %s, when: %s, rules: %s }),\n", js(g.Layer), js(g.Prefix), js(g.On), js(g.When), js(setName(g.Rules, g.Form)))
	}
	p("]);\n\n")
	p("// Each rule: label, needles, and its pattern in the set's form (null: its\n// needles alone).\nexport const RULES = Object.freeze({\n")
	written := map[string]bool{}
	for _, g := range r.Signals {
		name := setName(g.Rules, g.Form)
		if written[name] {
			continue
		}
		written[name] = true
		p("  %s: Object.freeze([\n", name)
		for _, rule := range r.Rules[g.Rules] {
			p("    Object.freeze(%s),\n", js(obstacleRule{rule.Label, rule.Needles, r.expand(rule, g.Form)}))
		}
		p("  ]),\n")
	}
	p("});\n\n")
	p("// The auth signals: the URL's host and path, a title segment, and the\n// controls' accessible names.\nexport const AUTH = Object.freeze({\n")
	for _, k := range obstacleAuth {
		p("  %s: Object.freeze(%s),\n", k, js(r.Auth[k]))
	}
	p("});\n\n")
	p("// The verdicts, by layer.\nexport const VERDICTS = Object.freeze({\n")
	for _, k := range obstacleVerdicts {
		v := r.Verdicts[k]
		p("  %s: Object.freeze(%s),\n", k, js(map[string]string{"type": v.Type, "confidence": v.Confidence, "message": v.Message}))
	}
	p("});\n")
	return b.Bytes(), nil
}
