package obstacle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// inputFields are the keys Input reads; an object with none of them is not
// classifier input.
var inputFields = []string{"url", "title", "markdown", "elements", "captchaFrame"}

// ParseInput reads classifier input from JSON: either the result of
// `bua extract --json` (an object with url, title, markdown, elements,
// captchaFrame and other fields such as text, obstacle and tabId, which are
// ignored) or a bare inputs object with the same field names. For
// convenience an object whose "result" or "input" member holds either form
// is unwrapped, so a reply envelope or a testdata/obstacle vector works too.
func ParseInput(data []byte) (Input, error) {
	const hint = "pipe in the output of `bua extract --json`, or an object with url, title, markdown, elements and captchaFrame"
	if len(bytes.TrimSpace(data)) == 0 {
		return Input{}, errors.New("obstacle: empty input; " + hint)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return Input{}, fmt.Errorf("obstacle: input is not valid JSON (%v at byte %d); %s", err, syn.Offset, hint)
		}
		return Input{}, fmt.Errorf("obstacle: input must be a JSON object, not %s; %s", jsonKind(data), hint)
	}
	if obj == nil {
		return Input{}, errors.New("obstacle: input is null; " + hint)
	}
	if !hasAny(obj, inputFields) {
		for _, wrap := range []string{"result", "input"} {
			if inner, ok := obj[wrap]; ok {
				in, err := ParseInput(inner)
				if err != nil {
					return Input{}, fmt.Errorf("in %q: %w", wrap, err)
				}
				return in, nil
			}
		}
		return Input{}, errors.New("obstacle: the JSON object has none of url, title, markdown, elements, captchaFrame; " + hint)
	}
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return Input{}, fmt.Errorf("obstacle: field %q is a JSON %s but must be %s; fix the input (url, title and markdown are strings, elements an array of {uid, role, name}, captchaFrame a boolean)", typ.Field, typ.Value, goKind(typ.Type.Kind().String()))
		}
		return Input{}, fmt.Errorf("obstacle: %v; %s", err, hint)
	}
	return in, nil
}

func hasAny(obj map[string]json.RawMessage, keys []string) bool {
	for _, k := range keys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// jsonKind names the JSON type of a valid non-object document.
func jsonKind(data []byte) string {
	switch b := bytes.TrimSpace(data); b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// goKind maps a reflect kind name to the JSON type the field needs.
func goKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct":
		return "an object"
	}
	return k
}
