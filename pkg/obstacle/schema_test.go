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
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(extension.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Defs["result.obstacle"].Properties
	if got, want := props["type"].Enum, []string{string(AuthWall), string(Captcha), string(AccessDenied)}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema obstacle types %v, Go %v", got, want)
	}
	if got, want := props["confidence"].Enum, []string{string(Low), string(High)}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema confidences %v, Go %v", got, want)
	}
}
