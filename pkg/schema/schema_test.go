package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
)

func TestValidate(t *testing.T) {
	doc := `{
	  "$defs": {
	    "id": {"type": "string", "pattern": "^e[0-9]+$", "x-message": "must be a uid like e3"},
	    "target": {"oneOf": [{"required": ["selector"], "not": {"required": ["uid"]}}, {"required": ["uid"], "not": {"required": ["selector"]}}]},
	    "three": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}, {"required": ["c3"]}]}
	  },
	  "type": "object",
	  "required": ["type"],
	  "properties": {
	    "type": {"enum": ["click", "scroll"]},
	    "uid": {"$ref": "#/$defs/id"},
	    "n": {"type": "integer", "minimum": 1, "maximum": 10},
	    "s": {"type": "string", "minLength": 2, "maxLength": 3},
	    "list": {"type": "array", "maxItems": 2, "items": {"type": "boolean"}},
	    "c": {"const": true},
	    "u": {"anyOf": [{"const": "about:blank"}, {"pattern": "^https?://"}]}
	  },
	  "allOf": [{"if": {"properties": {"type": {"const": "click"}}}, "then": {"$ref": "#/$defs/target"}}, {"if": {"required": ["three"]}, "then": {"$ref": "#/$defs/three"}}]
	}`
	s, err := Compile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want string // want "" means valid
	}{
		{"OK", `{"type":"click","uid":"e3"}`, ""},
		{"IfNotTaken", `{"type":"scroll"}`, ""},
		{"NotObject", `[1]`, "message: must be object, got array"},
		{"Required", `{}`, `message: missing required field "type"`},
		{"Enum", `{"type":"drag"}`, `type: must be one of "click", "scroll", got "drag"`},
		{"XMessage", `{"type":"scroll","uid":"button"}`, "uid: must be a uid like e3"},
		{"Integer", `{"type":"scroll","n":1.5}`, "n: must be integer, got number"},
		{"IntegerWholeFloat", `{"type":"scroll","n":2.0}`, ""},
		{"Minimum", `{"type":"scroll","n":0}`, "n: must be >= 1"},
		{"Maximum", `{"type":"scroll","n":11}`, "n: must be <= 10"},
		{"MinLength", `{"type":"scroll","s":"a"}`, "s: must be at least 2 characters"},
		{"MaxLengthCountsCodePoints", `{"type":"scroll","s":"😀😀😀"}`, ""},
		{"MaxLength", `{"type":"scroll","s":"abcd"}`, "s: must be at most 3 characters"},
		{"MaxItems", `{"type":"scroll","list":[true,true,true]}`, "list: must have at most 2 items"},
		{"Items", `{"type":"scroll","list":[true,1]}`, "list.1: must be boolean, got number"},
		{"Const", `{"type":"scroll","c":false}`, "c: must be true"},
		{"AnyOfLastError", `{"type":"scroll","u":"ftp://x"}`, `u: "ftp://x" does not match ^https?://`},
		{"AnyOfOK", `{"type":"scroll","u":"about:blank"}`, ""},
		{"OneOfBoth", `{"type":"click","uid":"e1","selector":"a"}`, "message: needs exactly one of selector or uid (got both)"},
		{"OneOfNeither", `{"type":"click"}`, "message: needs exactly one of selector or uid (got neither)"},
		{"OneOfThreeOne", `{"type":"scroll","three":1,"b":1}`, ""},
		{"OneOfThreeTwo", `{"type":"scroll","three":1,"a":1,"c3":1}`, "message: needs exactly one of a, b or c3 (got 2)"},
		{"OneOfThreeNone", `{"type":"scroll","three":1}`, "message: needs exactly one of a, b or c3 (got none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.ValidateJSON([]byte(tt.in))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid input refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	for name, doc := range map[string]string{
		"UnsupportedKeyword": `{"additionalProperties": false}`,
		"RemoteRef":          `{"$ref": "https://example.com/s.json"}`,
		"MissingDef":         `{"$ref": "#/$defs/nope"}`,
		"BadPattern":         `{"pattern": "("}`,
		"NotJSON":            `{`,
	} {
		if _, err := Compile([]byte(doc)); err == nil {
			t.Errorf("%s: Compile accepted %s", name, doc)
		}
	}
}

func TestProtocolSchemaCompiles(t *testing.T) {
	s, err := Compile(extension.Schema)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Sub("#/$defs/action", "action")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ValidateJSON([]byte(`{"type":"press_key","key":"Control+a"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ValidateJSON([]byte(`{"type":"press_key","key":"Hyper+a"}`)); err == nil || !strings.Contains(err.Error(), "Control+a") {
		t.Fatalf("bad key: %v", err)
	}
}

// TestError_Fields holds the structured error to its text: callers read
// Path, Reason and Missing instead of parsing "path: reason".
func TestError_Fields(t *testing.T) {
	s, err := Compile(extension.Schema)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Sub("#/$defs/action", "action")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in            string
		path, reason, field string
	}{
		{"Field", `{"type":"scroll","direction":"sideways"}`, "action.direction", `must be one of "up", "down", got "sideways"`, ""},
		{"Missing", `{"type":"navigate"}`, "action", `missing required field "url"`, "url"},
		{"NotJSON", `{`, "", "message is not JSON: unexpected end of JSON input", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.ValidateJSON([]byte(tt.in))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %T %v, want *Error", err, err)
			}
			if se.Path != tt.path || se.Reason != tt.reason || se.Missing != tt.field {
				t.Errorf("got {%q %q %q}, want {%q %q %q}", se.Path, se.Reason, se.Missing, tt.path, tt.reason, tt.field)
			}
			want := tt.reason
			if tt.path != "" {
				want = tt.path + ": " + tt.reason
			}
			if got := se.Error(); got != want {
				t.Errorf("Error() = %q, want %q", got, want)
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Compile(extension.Schema); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateRequest(b *testing.B) {
	s, _ := Compile(extension.Schema)
	msg := []byte(`{"type":"request","id":"3f2c6a1e-8b4d-4c2a-9e7f-1a2b3c4d5e6f","action":{"type":"click","uid":"e3","tabId":5}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := s.ValidateJSON(msg); err != nil {
			b.Fatal(err)
		}
	}
}
