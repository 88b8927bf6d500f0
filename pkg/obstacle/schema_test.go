package obstacle

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bua-dev/bua/extension"
)

// TestSchemaAgrees: the obstacle types and confidences are the schema's
// result.obstacle enums (protocol v4 §Obstacle detection), in order.
func TestSchemaAgrees(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []any `json:"enum"` // other defs' enums hold booleans too
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(extension.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Defs["result.obstacle"].Properties
	if got, want := props["type"].Enum, []any{string(AuthWall), string(Captcha), string(AccessDenied)}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema obstacle types %v, Go %v", got, want)
	}
	if got, want := props["confidence"].Enum, []any{string(Low), string(High)}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema confidences %v, Go %v", got, want)
	}
}

// TestCheckStatesAgree: CheckState's wire values are the schema's
// result.element.checked enum.
func TestCheckStatesAgree(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(extension.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, c := range []CheckState{Checked, Unchecked, Mixed} {
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		json.Unmarshal(raw, &v)
		got = append(got, v)
	}
	if want := doc.Defs["result.element"].Properties["checked"].Enum; !reflect.DeepEqual(got, want) {
		t.Errorf("Go check states %v, schema %v", got, want)
	}
}
