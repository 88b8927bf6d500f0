package flowwriter

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"gopkg.in/yaml.v3"
)

// secret is one value typed into a password field, and what stands for it
// in the flow: Var, read from the environment variable Env. Field is the
// field's label ("" when it has none).
type secret struct {
	value           string
	Var, Env, Field string
}

// secretSet holds a recording's secrets in the order they were first typed.
type secretSet struct {
	list []*secret
}

// maxSecretName is the longest var name taken from a label, in bytes; a
// longer label is cut at a word.
const maxSecretName = 32

// add returns the secret for value, typed into the field labelled label
// (autocomplete as describe read it): the one already made for the same
// value, else a new one named after the label (secretName) and made unique
// against taken, the flow's other var names.
func (s *secretSet) add(value, label, autocomplete string, taken func(string) bool) *secret {
	for _, sc := range s.list {
		if sc.value == value {
			return sc
		}
	}
	stem := secretName(label, autocomplete)
	name := stem
	for n := 2; taken(name) || s.named(name); n++ {
		name = fmt.Sprintf("%s_%d", stem, n)
	}
	sc := &secret{value: value, Var: name, Env: "BUA_" + strings.ToUpper(name), Field: label}
	s.list = append(s.list, sc)
	return sc
}

func (s *secretSet) named(name string) bool {
	for _, sc := range s.list {
		if sc.Var == name {
			return true
		}
	}
	return false
}

// byValue is the secret whose value is exactly v, or nil.
func (s *secretSet) byValue(v string) *secret {
	for _, sc := range s.list {
		if sc.value == v {
			return sc
		}
	}
	return nil
}

// forms are the ways a secret can show in text: as typed, and encoded in a
// URL's query or path.
func forms(v string) []string {
	out := []string{v}
	for _, f := range []string{url.QueryEscape(v), url.PathEscape(v)} {
		if f != v {
			out = append(out, f)
		}
	}
	return out
}

// hides reports whether text holds any secret's value, in any form.
func (s *secretSet) hides(text string) bool {
	return s.mask(text) != text
}

// mask replaces every secret's value in text, in any form, with ***.
func (s *secretSet) mask(text string) string {
	for _, sc := range s.list {
		for _, f := range forms(sc.value) {
			text = strings.ReplaceAll(text, f, "***")
		}
	}
	return text
}

// secretName is the var name for a secret typed into the field labelled
// label: the label's words in lower snake case ("One-time code" →
// one_time_code), cut at a word to maxSecretName bytes. A label with a
// letter outside ASCII, or none, gives way to the field's kind:
// one_time_code for autocomplete one-time-code, else password. A name
// starting with a digit gets the prefix secret_, as a var name is an
// identifier.
func secretName(label, autocomplete string) string {
	name := snake(label)
	switch {
	case name != "":
	case strings.HasSuffix(autocomplete, "one-time-code"):
		name = "one_time_code"
	default:
		name = "password"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "secret_" + name
	}
	return name
}

// snake is label's ASCII words joined by _ in lower case, cut at a word to
// maxSecretName bytes; "" when label has no word or a non-ASCII letter or
// digit (an environment variable's name is ASCII, and a transliteration
// would guess).
func snake(label string) string {
	var words []string
	word := strings.Builder{}
	flush := func() {
		if word.Len() > 0 {
			words = append(words, word.String())
			word.Reset()
		}
	}
	for _, r := range label {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return ""
		default:
			flush()
		}
	}
	flush()
	name := ""
	for _, w := range words {
		next := w
		if name != "" {
			next = name + "_" + w
		}
		if len(next) > maxSecretName {
			if name == "" {
				name = w[:maxSecretName]
			}
			break
		}
		name = next
	}
	return name
}

// passwordWords are the words of a selector or role name that say a field
// takes a secret, for a type whose target has no describe result.
var passwordWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)passw|pwd|passcode|one[-_ ]?time|\botp\b`) })

// SecretWords reports whether a selector or an accessible name has the
// words that make the writer take the text typed into the field it names
// for a secret (a type with no describe result): a producer that would
// otherwise write the text elsewhere in the flow keeps it for a type.
func SecretWords(s string) bool { return passwordWords().MatchString(s) }

// maskSteps replaces what remains of a secret in the steps' text and
// comments with ***: a value typed into a password field that also showed
// elsewhere (a URL, an evaluate). Each step it touched is a problem, since
// it no longer replays as recorded.
func (b *builder) maskSteps() {
	if len(b.secrets.list) == 0 {
		return
	}
	for n, step := range b.steps {
		if maskNode(step, &b.secrets) {
			owner := b.owners[n]
			msg := "a secret typed into a password field showed in this step, and was replaced by ***"
			b.problems = append(b.problems, Problem{Entry: owner, Msg: msg})
			step.HeadComment = strings.TrimPrefix(step.HeadComment+"\nbua: edit this: "+msg, "\n")
		}
	}
}

// maskNode masks secrets in n's string values (true when one was) and, with
// no problem to report, in its comments.
func maskNode(n *yaml.Node, s *secretSet) bool {
	n.HeadComment, n.LineComment, n.FootComment = s.mask(n.HeadComment), s.mask(n.LineComment), s.mask(n.FootComment)
	masked := false
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && s.hides(n.Value) {
		n.Value = s.mask(n.Value)
		masked = true
	}
	for k, c := range n.Content {
		if n.Kind == yaml.MappingNode && k%2 == 0 {
			continue // keys are bua's words
		}
		masked = maskNode(c, s) || masked
	}
	return masked
}
