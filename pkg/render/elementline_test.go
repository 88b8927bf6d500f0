package render

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// elementLineVectors is the element-line format's one statement, shared
// with the extension (extension/test/parts.test.js reads the same file):
// each element and the line bua writes for it.
const elementLineVectors = "element-lines.json"

type elementLineVector struct {
	Name    string           `json:"name"`
	Element protocol.Element `json:"element"`
	Line    string           `json:"line"`
}

func readElementLineVectors(t *testing.T) []elementLineVector {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "render", elementLineVectors))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lines []elementLineVector `json:"lines"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Lines) < 15 {
		t.Fatalf("%s holds %d vectors: it no longer covers the format", elementLineVectors, len(doc.Lines))
	}
	return doc.Lines
}

// TestElementLineVectors: Elements writes each vector's line, and
// ElementLine the same without an option's indent.
func TestElementLineVectors(t *testing.T) {
	for _, v := range readElementLineVectors(t) {
		var b strings.Builder
		Elements(&b, []protocol.Element{v.Element})
		if got := b.String(); got != v.Line+"\n" {
			t.Errorf("%s: Elements wrote %q, want %q", v.Name, got, v.Line+"\n")
		}
		if got, want := ElementLine(v.Element), strings.TrimPrefix(v.Line, "  "); got != want {
			t.Errorf("%s: ElementLine = %q, want %q", v.Name, got, want)
		}
	}
}
