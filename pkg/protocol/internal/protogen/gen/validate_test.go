package gen

import (
	"strings"
	"testing"
)

// TestValidatorsRefuse: a keyword the validators do not implement, or a
// $ref they cannot follow, fails the generator, naming the node, instead of
// being silently ignored on one side.
func TestValidatorsRefuse(t *testing.T) {
	entries := []Entry{{"validateValue", "", "", "checks a value."}}
	for _, tt := range []struct{ doc, want string }{
		{`{"additionalProperties": false}`, "#/additionalProperties: unsupported keyword additionalProperties"},
		{`{"$ref": "https://example.com/s.json"}`, `#/$ref: "https://example.com/s.json": only #/$defs/NAME references`},
		{`{"$ref": "#/$defs/nope"}`, `#/$ref: "#/$defs/nope": only #/$defs/NAME references to an existing def`},
		{`{"properties": {"a": {"pattern": "("}}}`, "#/properties/a/pattern: error parsing regexp"},
		{`{"enum": [{"a": 1}]}`, "#/enum: only strings, numbers, booleans and null"},
		{`{"type": "integr"}`, `#/type: unknown type "integr"`},
		{`{"minLength": -1}`, "#/minLength: must be a non-negative integer"},
		{`{`, "EOF"},
	} {
		_, errGo := ValidatorsGo([]byte(tt.doc), "x", entries)
		_, errJS := ValidatorsJS([]byte(tt.doc), entries)
		for _, err := range []error{errGo, errJS} {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want %q", tt.doc, err, tt.want)
			}
		}
	}
}
