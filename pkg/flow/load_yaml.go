package flow

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// yaml.v3 words a syntax error as "yaml: line N: PROBLEM", and N is not
// where the problem is: it is the start of the construct being parsed
// ("line 11" for a mis-indented step on line 30, the steps list's first
// line, counted from 0 for a parser error), and the column is dropped.
// The parser knows better: its problem mark is the token or character it
// could not take, and its context mark the start of the construct it was
// in, each with a line and column. yaml.v3 (archived, pinned in go.mod)
// has no API that returns them, so yamlMarks reads them from the
// Decoder's parser with reflect, read only. Should a yaml.v3 release
// rename them, the loader falls back to the line of the message, with no
// column (TestLoad_YAMLSyntax pins the positions for each kind of error).

// yamlMark is a position in the file, 1-based; col 0 is unknown.
type yamlMark struct{ line, col int }

func (m yamlMark) String() string {
	if m.col == 0 {
		return fmt.Sprintf("line %d", m.line)
	}
	return fmt.Sprintf("%d:%d", m.line, m.col)
}

// yamlFailure is what the parser said of a syntax error: the problem, the
// construct it was in (context, "" for none) and their marks. For an
// error found after parsing (an unknown anchor), problem is the error's
// text and at is the event being decoded.
type yamlFailure struct {
	problem, context string
	at, contextAt    yamlMark
}

// yamlMarks reads the failure of dec's last Decode; ok is false when the
// parser's fields are not there (see above).
func yamlMarks(dec *yaml.Decoder) (f yamlFailure, ok bool) {
	p := field(reflect.ValueOf(dec), "parser")
	yp := field(p, "parser")
	mark := func(v reflect.Value) (yamlMark, bool) {
		line, col := field(v, "line"), field(v, "column")
		if line.Kind() != reflect.Int || col.Kind() != reflect.Int {
			return yamlMark{}, false
		}
		return yamlMark{int(line.Int()) + 1, int(col.Int()) + 1}, true
	}
	kind := field(yp, "error")
	if kind.Kind() != reflect.Int {
		return f, false
	}
	if kind.Int() == 0 { // no syntax error: the decoder failed on an event
		f.at, ok = mark(field(field(p, "event"), "start_mark"))
		return f, ok
	}
	problem, context := field(yp, "problem"), field(yp, "context")
	if problem.Kind() != reflect.String || context.Kind() != reflect.String {
		return f, false
	}
	f.problem, f.context = problem.String(), context.String()
	var okContext bool
	f.at, ok = mark(field(yp, "problem_mark"))
	f.contextAt, okContext = mark(field(yp, "context_mark"))
	return f, ok && okContext
}

// field is v's field name (through pointers), or the zero Value when v
// has no such field.
func field(v reflect.Value, name string) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.FieldByName(name)
}

// openers are the contexts that start with a character the problem is
// about: a `{`, `[` or quote left open is reported where it opens (the
// line the author must fix), not where the parser gave up, which is the
// next line or the end of the file.
var openers = map[string]string{
	"while parsing a flow mapping":   "the { here is not closed",
	"while parsing a flow sequence":  "the [ here is not closed",
	"while scanning a quoted scalar": "the quoted string that starts here is not closed",
}

// yamlHints say what usually causes a problem the parser words in its
// own terms.
var yamlHints = map[string]string{
	"did not find expected '-' indicator":            "is this line indented as the other items of its list?",
	"mapping values are not allowed in this context": `quote a value that holds ": "`,
}

// yamlLine finds the line in yaml.v3's message, the fallback position.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlDiagnostic is the diagnostic of a file yaml.v3 could not parse: at
// the problem itself, or at the `{`, `[` or quote it leaves open, with the
// line's text and a caret under the column.
func yamlDiagnostic(file string, data []byte, dec *yaml.Decoder, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	f, ok := yamlMarks(dec)
	if !ok {
		// No marks: the line the message names, which may be early.
		at := yamlMark{}
		if m := yamlLine().FindStringSubmatch(msg); m != nil {
			fmt.Sscan(m[1], &at.line)
			msg = strings.TrimLeft(yamlLine().ReplaceAllString(msg, ""), ": ")
		}
		return Diagnostic{File: file, Line: at.line, Msg: "malformed YAML: " + msg}
	}
	at := f.at
	if f.problem != "" {
		msg = f.problem
		if why, open := openers[f.context]; open && f.contextAt.line > 0 {
			msg = fmt.Sprintf("%s: %s at %s", why, f.problem, f.at)
			at = f.contextAt
		}
	}
	line := sourceLine(data, at.line)
	if at.col > 0 && at.col <= len([]rune(line)) && []rune(line)[at.col-1] == '\t' {
		msg += " (a tab: indent YAML with spaces)"
	} else if hint, ok := yamlHints[f.problem]; ok {
		msg += " (" + hint + ")"
	}
	return Diagnostic{File: file, Line: at.line, Col: at.col, Msg: "malformed YAML: " + msg, Snippet: caret(line, at.col)}
}

// sourceLine is line n (1-based) of data without its line break, "" past
// the end.
func sourceLine(data []byte, n int) string {
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n-1], "\r")
}

// caret is a diagnostic's snippet, as an expression's is: the line, and a
// caret under column col (none when col is 0). A tab shows as a space, so
// the caret stays under its column.
func caret(line string, col int) string {
	if strings.TrimSpace(line) == "" && col <= 1 {
		return ""
	}
	s := "\n | " + strings.ReplaceAll(line, "\t", " ")
	if col > 0 {
		s += "\n | " + strings.Repeat(".", col-1) + "^"
	}
	return s
}
