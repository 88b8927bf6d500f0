package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/protocol/internal/protogen/gen"
)

// TestGeneratedFresh regenerates every file protogen writes in memory: a
// schema edit without `go generate ./...` fails here, as well as in CI's
// git diff check. Each must be in docs/architecture.md's list of generated
// files.
func TestGeneratedFresh(t *testing.T) {
	root := filepath.Join("..", "..")
	outs, err := gen.Outputs(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) })
	if err != nil {
		t.Fatal(err)
	}
	arch, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if !bytes.Contains(arch, []byte("| `"+o.Path+"` |")) {
			t.Errorf("docs/architecture.md#generated-files does not list %s", o.Path)
		}
		got, err := os.ReadFile(filepath.Join(root, o.Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, o.Data) {
			t.Errorf("%s is stale: run go generate ./...", o.Path)
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
			if p.Required || (spec.Target && p.Name == "uid") || (len(spec.OneOf) > 0 && spec.OneOf[0] == p.Name) {
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

// TestGenerateActionMarkers checks the generator's reading of x-feature and
// x-flow on an action: the handoff action carries both, and a wrong value
// names the action's node instead of generating something silently wrong.
func TestGenerateActionMarkers(t *testing.T) {
	spec := ActionSpecs[ActionHandoff]
	if spec.Feature != FeatureHandoff || !spec.NoFlowStep {
		t.Errorf("handoff: Feature %q NoFlowStep %v, want %q true", spec.Feature, spec.NoFlowStep, FeatureHandoff)
	}
	if s := ActionSpecs[ActionClick]; s.Feature != "" || s.NoFlowStep {
		t.Errorf("click: Feature %q NoFlowStep %v, want none", s.Feature, s.NoFlowStep)
	}
	const marked = `"x-feature": "handoff",
      "x-flow": false`
	if !bytes.Contains(extension.Schema, []byte(marked)) {
		t.Fatal("the schema's action.handoff no longer ends with x-feature and x-flow: update this test")
	}
	tests := []struct{ markers, wantErr string }{
		{`"x-feature": "handoff", "x-flow": true`, ""},
		{`"x-feature": "teleport", "x-flow": false`, `$defs/action.handoff: x-feature "teleport" is not one of hello's x-features`},
		{`"x-feature": "handoff", "x-flow": "no"`, `$defs/action.handoff: x-flow must be a boolean`},
	}
	base, _, err := gen.Generate(extension.Schema)
	if err != nil {
		t.Fatal(err)
	}
	noFlow := bytes.Count(base, []byte("NoFlowStep"))
	for _, tt := range tests {
		doc := bytes.Replace(extension.Schema, []byte(marked), []byte(tt.markers), 1)
		goSrc, _, err := gen.Generate(doc)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.markers, err)
		case tt.wantErr == "" && bytes.Count(goSrc, []byte("NoFlowStep")) != noFlow-1:
			t.Errorf("%s: x-flow true still wrote NoFlowStep", tt.markers)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.markers, err, tt.wantErr)
		}
	}
}
