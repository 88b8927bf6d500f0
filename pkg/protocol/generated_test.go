package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/protocol/internal/protogen/gen"
)

// TestGeneratedFresh regenerates both files from the schema in memory: a
// schema edit without `go generate ./...` fails here, as well as in CI's
// git diff check.
func TestGeneratedFresh(t *testing.T) {
	goSrc, jsSrc, err := gen.Generate(extension.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{
		"generated.go": goSrc,
		filepath.Join("..", "..", "extension", "src", "generated", "protocol.js"): jsSrc,
	} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./...", path)
		}
	}
}

// TestActionFields checks that the hand-written Action struct has a field,
// with the same JSON name and kind, for every param the schema gives any
// action, so a new param cannot be silently dropped when encoding.
func TestActionFields(t *testing.T) {
	fields := map[string]reflect.Type{}
	at := reflect.TypeOf(Action{})
	for i := 0; i < at.NumField(); i++ {
		name, _, _ := strings.Cut(at.Field(i).Tag.Get("json"), ",")
		ft := at.Field(i).Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		fields[name] = ft
	}
	kinds := map[ParamKind]reflect.Kind{KindString: reflect.String, KindInteger: reflect.Int, KindBoolean: reflect.Bool}
	for _, typ := range Actions {
		for _, p := range ActionSpecs[typ].Params {
			ft, ok := fields[p.Name]
			if !ok {
				t.Errorf("%s.%s: Action has no field with json name %q", typ, p.Name, p.Name)
				continue
			}
			if ft.Kind() != kinds[p.Kind] {
				t.Errorf("%s.%s: Action field is %s, schema says %s", typ, p.Name, ft.Kind(), p.Kind)
			}
		}
	}
}

// TestActionExamples checks each param's Example against the schema: the
// flow loader validates expression params with them standing in.
func TestActionExamples(t *testing.T) {
	for _, typ := range Actions {
		spec := ActionSpecs[typ]
		raw := map[string]any{"type": string(typ)}
		for _, p := range spec.Params {
			if p.Required || (spec.Target && p.Name == "uid") {
				raw[p.Name] = p.Example
			}
		}
		data, _ := json.Marshal(raw)
		if err := ValidateAction(data); err != nil {
			t.Errorf("%s with its examples %s: %v", typ, data, err)
		}
		if spec.Shorthand != "" && spec.Shorthand != "target" {
			if _, ok := spec.Param(spec.Shorthand); !ok {
				t.Errorf("%s: shorthand %q is not a param", typ, spec.Shorthand)
			}
		}
	}
}
