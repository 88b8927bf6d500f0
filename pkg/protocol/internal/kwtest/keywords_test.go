package kwtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestKeywords runs testdata/protocol/keywords.json's cases; the extension's
// validator.test.js runs them on the JavaScript validators.
func TestKeywords(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "protocol", "keywords.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name string
			In   json.RawMessage
			Want string
		}
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 40 {
		t.Fatalf("only %d cases", len(file.Cases))
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal(c.In, &v); err != nil {
				t.Fatal(err)
			}
			got := ""
			if e := validateValue(v); e != nil {
				got = e.Error()
			}
			if got != c.Want {
				t.Errorf("%s:\n got  %q\n want %q", c.In, got, c.Want)
			}
		})
	}
}
