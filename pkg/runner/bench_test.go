package runner

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// okRequester answers every action {"ok":true} without recording, so the
// benchmark measures the runner alone.
type okRequester struct{}

func (okRequester) Request(context.Context, protocol.Action) (json.RawMessage, *protocol.Error) {
	return json.RawMessage(`{"ok":true}`), nil
}

// BenchmarkRunStep is the runner's own overhead per step: a click whose uid
// comes from uid(page, role, regex) over a 50-element extract, with an `if`
// and the report record, against a requester that answers at once.
func BenchmarkRunStep(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.yaml")
	writeFile(b, path, `
name: bench
vars: { role: button }
steps:
  - extract: {}
    as: page
  - click: { uid: "${{ uid(page, vars.role, '(?i)sign in') }}" }
    if: page.obstacle == nil
`)
	f, err := flow.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	r := &Runner{Requester: okRequester{}}
	rec := &report.FlowReport{}
	s := newState(r, f, &shared{masker: &report.Masker{}}, rec)
	if err := s.initVars(nil, nil); err != nil {
		b.Fatal(err)
	}
	var elements []any
	for i := 0; i < 49; i++ {
		elements = append(elements, map[string]any{"uid": "e" + itoa(i), "role": "link", "name": "Link"})
	}
	elements = append(elements, map[string]any{"uid": "e49", "role": "button", "name": "Sign in"})
	s.env.Names["page"] = map[string]any{"elements": elements}
	step := f.Steps[1]
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.exec(ctx, step, "2"); err != nil {
			b.Fatal(err)
		}
		rec.Steps = rec.Steps[:0]
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
