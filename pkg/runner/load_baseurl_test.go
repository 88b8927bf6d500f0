package runner

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
)

// TestRunnerLoad_BaseURL: a flow that reads vars.base_url while nothing
// sets it (no serve: key, no base_url var, no set:, and a run with neither
// --serve nor --var base_url) is invalid, at the first read's
// file:line:col; anything that sets it makes the flow valid.
func TestRunnerLoad_BaseURL(t *testing.T) {
	const reads = "  - navigate: ${{ vars.base_url }}/x.html\n  - log: ${{ vars.base_url }}\n"
	for _, tc := range []struct {
		name, src string
		r         Runner
		want      string // the diagnostic, "" for a valid flow
	}{
		{"NothingSetsIt", "name: a\nsteps:\n" + reads, Runner{},
			"main.yaml:3:15: navigate: vars.base_url is set only when the flow is served, and this flow has no serve: key"},
		{"InAVarDefault", "name: a\nvars:\n  base: ${{ vars.base_url }}\nsteps:\n  - log: x\n", Runner{},
			"main.yaml:3:9: vars.base: vars.base_url is set only when the flow is served"},
		{"ServeKey", "name: a\nserve: site\nsteps:\n" + reads, Runner{}, ""},
		{"ServeKeyBelow", "name: a\nsteps:\n" + reads + "serve: site\n", Runner{}, ""},
		{"RunServes", "name: a\nsteps:\n" + reads, Runner{Serve: "site"}, ""},
		{"RunSetsIt", "name: a\nsteps:\n" + reads, Runner{Vars: map[string]string{"base_url": "http://x.test"}}, ""},
		{"DeclaredVar", "name: a\nvars: { base_url: http://x.test }\nsteps:\n" + reads, Runner{}, ""},
		{"ReadAsMaybeMissing", "name: a\nsteps:\n  - navigate: ${{ vars.base_url ?? 'http://x.test' }}/x.html\n", Runner{}, ""},
		{"SetEarlier", "name: a\nsteps:\n  - set: { base_url: \"'http://x.test'\" }\n" + reads, Runner{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFlows(t, map[string]string{"main.yaml": tc.src, "site/index.html": "hi"})
			_, err := tc.r.Load(filepath.Join(dir, "main.yaml"))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v, want a valid flow", err)
				}
				return
			}
			var le *flow.LoadError
			if !errors.As(err, &le) || len(le.Diags) != 1 {
				t.Fatalf("Load = %v, want one diagnostic", err)
			}
			d := le.Diags[0]
			d.File = filepath.Base(d.File)
			if got := d.String(); !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "hint: add serve: FOLDER") {
				t.Errorf("diagnostic =\n%s\nwant it to start with\n%s\nand give the hint", got, tc.want)
			}
			if _, err := flow.Load(filepath.Join(dir, "main.yaml")); err != nil {
				t.Errorf("plain Load: %v, want a valid flow (a caller or the run may set base_url)", err)
			}
		})
	}
}

// TestFlow_VarNames: the names --var may set are the declared vars, the
// ones read as maybe missing, and base_url when the flow reads it.
func TestFlow_VarNames(t *testing.T) {
	dir := writeFlows(t, map[string]string{"main.yaml": `name: v
serve: site
vars: { name: ada, base: "${{ vars.base_url }}" }
steps:
  - log: "${{ vars.debug ?? false }} ${{ vars.name }}"
  - if: vars.theme != nil
    then:
      - set: { seen: "true" }
`, "site/index.html": "hi"})
	f, err := flow.Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.VarNames(), []string{"base", "base_url", "debug", "name", "theme"}; !reflect.DeepEqual(got, want) {
		t.Errorf("VarNames = %v, want %v", got, want)
	}
}
