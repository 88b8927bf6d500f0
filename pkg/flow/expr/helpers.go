package expr

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The helpers, usable from Go too. Each takes an extract result as decoded
// from JSON (map[string]any with "elements": [{uid, role, name, visible}])
// or a protocol.ExtractResult.

var regexCache sync.Map // pattern -> *regexp.Regexp or error

func compileRegex(pattern string) (*regexp.Regexp, error) {
	if v, ok := regexCache.Load(pattern); ok {
		if re, ok := v.(*regexp.Regexp); ok {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		regexCache.Store(pattern, err)
		return nil, err
	}
	regexCache.Store(pattern, re)
	return re, nil
}

// findElement returns the first element with role exactly role and a name
// matching the unanchored RE2 nameRegex, preferring visible elements (those
// without "visible": false) over hidden ones.
func findElement(result any, role, nameRegex string) (map[string]any, int, error) {
	re, err := compileRegex(nameRegex)
	if err != nil {
		return nil, 0, protocol.Errorf(protocol.CodeInvalidAction, "name pattern %q is not a valid RE2 regex: %v", nameRegex, err)
	}
	var elements []any
	switch r := result.(type) {
	case map[string]any:
		elements, _ = r["elements"].([]any)
	case protocol.ExtractResult:
		result = toMap(r)
		return findElement(result, role, nameRegex)
	case *protocol.ExtractResult:
		return findElement(*r, role, nameRegex)
	case nil:
		return nil, 0, nil
	default:
		return nil, 0, protocol.Errorf(protocol.CodeInvalidAction, "uid/has/element want an extract result, got %T", result)
	}
	var hidden map[string]any
	for _, e := range elements {
		m, ok := e.(map[string]any)
		if !ok || m["role"] != role {
			continue
		}
		name, _ := m["name"].(string)
		if !re.MatchString(name) {
			continue
		}
		if v, ok := m["visible"].(bool); ok && !v {
			if hidden == nil {
				hidden = m
			}
			continue
		}
		return m, len(elements), nil
	}
	return hidden, len(elements), nil
}

// elementsTotal is an extract result's elementsTotal (0 when absent).
func elementsTotal(result any) int {
	switch r := result.(type) {
	case map[string]any:
		if f, ok := r["elementsTotal"].(float64); ok {
			return int(f)
		}
		if i, ok := r["elementsTotal"].(int); ok {
			return i
		}
	case protocol.ExtractResult:
		return r.ElementsTotal
	case *protocol.ExtractResult:
		if r != nil {
			return r.ElementsTotal
		}
	}
	return 0
}

// cutNote is what a miss adds when the searched extract listed fewer
// elements than the page has (elementsTotal, a v4 addition): the element
// may be past the cut.
func cutNote(result any, n int) string {
	if total := elementsTotal(result); total > n {
		return fmt.Sprintf(" (this extract lists %d of %d elements: pass maxElements or a selector)", n, total)
	}
	return ""
}

func toMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// UID returns the uid of the first element of an extract result whose role
// is role and whose name matches nameRegex (unanchored RE2), preferring
// visible elements. A miss is an element_not_found *protocol.Error naming the
// role and pattern, so the flow's re-extract recovery applies to it.
func UID(result any, role, nameRegex string) (string, error) {
	el, n, err := findElement(result, role, nameRegex)
	if err != nil {
		return "", err
	}
	if el == nil {
		if result == nil {
			return "", protocol.Errorf(protocol.CodeElementNotFound, "no %s named /%s/: there is no extract result to search (extract first, with `as`)", role, nameRegex)
		}
		return "", protocol.Errorf(protocol.CodeElementNotFound, "no %s named /%s/ among the %d elements of the extract%s%s", role, nameRegex, n, missDetail(result, role, nameRegex), cutNote(result, n))
	}
	uid, _ := el["uid"].(string)
	return uid, nil
}

// Has reports whether an extract result has an element with role and a name
// matching nameRegex.
func Has(result any, role, nameRegex string) (bool, error) {
	el, _, err := findElement(result, role, nameRegex)
	return el != nil, err
}

// Element returns the matching element as a map ({uid, role, name, value,
// visible}), or nil when there is none.
func Element(result any, role, nameRegex string) (map[string]any, error) {
	el, _, err := findElement(result, role, nameRegex)
	return el, err
}

// Checked reports whether the first element of an extract result whose
// role is role and whose name matches nameRegex (as UID finds it) is
// checked: true only for the schema's checked true, false for false and
// for "mixed" (indeterminate). A miss is element_not_found, as UID's; an
// element that reports no checked state (not a checkbox, radio, switch or
// checkable menu item) is invalid_action.
func Checked(result any, role, nameRegex string) (bool, error) {
	if _, err := UID(result, role, nameRegex); err != nil {
		return false, err
	}
	el, _, _ := findElement(result, role, nameRegex)
	switch v := el["checked"].(type) {
	case bool:
		return v, nil
	case string:
		if v == string(protocol.Mixed) {
			return false, nil
		}
	}
	return false, protocol.Errorf(protocol.CodeInvalidAction, "the %s named /%s/ reports no checked state: checked() reads checkboxes, radios, switches and checkable menu items", role, nameRegex)
}
