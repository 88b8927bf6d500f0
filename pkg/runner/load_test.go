package runner

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestLoad_Invalid is the lint golden suite: each
// testdata/flows/invalid/NNN_name.yaml must produce exactly the diagnostics
// in NNN_name.want (paths relative to that folder).
func TestLoad_Invalid(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "flows", "invalid")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("want at least 15 invalid flows, found %d", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			_, err := Load(file)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load(%s) = %v, want a *LoadError", file, err)
			}
			got := strings.ReplaceAll(le.Diags.String(), dir+string(filepath.Separator), "")
			want := strings.TrimSuffix(file, ".yaml") + ".want"
			if *update {
				if err := os.WriteFile(want, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(b) {
				t.Errorf("diagnostics differ\n--- got\n%s--- want\n%s", got, b)
			}
		})
	}
}

// TestReadmeFlowsLoad keeps the guide honest: every complete flow in the
// README's yaml blocks, and every example in flows/, must load cleanly.
func TestReadmeFlowsLoad(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	flowsDir := filepath.Join("..", "..", "flows")
	n := 0
	for _, block := range strings.Split(string(readme), "```yaml\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		if !strings.Contains(body, "\nsteps:") || !strings.HasPrefix(strings.TrimSpace(body), "name:") && !strings.HasPrefix(strings.TrimSpace(body), "#") {
			continue // a fragment, not a whole flow
		}
		n++
		// Inside flows/, so relative serve: and run: paths resolve as the
		// guide's reader would use them.
		f, err := os.CreateTemp(flowsDir, "readme-*.yaml")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(body)
		f.Close()
		defer os.Remove(f.Name())
		if _, err := Load(f.Name()); err != nil {
			t.Errorf("README flow %d does not load: %v\n%s", n, err, body)
		}
	}
	if n == 0 {
		t.Fatal("found no complete flow in README's yaml blocks")
	}
	examples, _ := filepath.Glob(filepath.Join(flowsDir, "*.yaml"))
	sub, _ := filepath.Glob(filepath.Join(flowsDir, "*", "*.yaml"))
	for _, file := range append(examples, sub...) {
		if strings.Contains(file, "readme-") {
			continue
		}
		if _, err := Load(file); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestReadmeActionTable checks the README's flow action table against the
// schema's action specs: one row per action, with its shorthand and every
// param, so the guide cannot drift from protocol.ActionSpecs.
func TestReadmeActionTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| action | shorthand | params |")
	if !ok {
		t.Fatal("README has no flow action table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	rows := map[string][2]string{} // action -> shorthand cell, params cell
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.ReplaceAll(line, `\|`, " or "), "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			rows[strings.Trim(strings.TrimSpace(name), "`")] = [2]string{cells[2], cells[3]}
		}
	}
	for _, typ := range protocol.Actions {
		spec := protocol.ActionSpecs[typ]
		if spec.NoFlowStep {
			if _, ok := rows[string(typ)]; ok {
				t.Errorf("README's action table lists %s, which is not a flow step (x-flow: false)", typ)
			}
			continue
		}
		row, ok := rows[string(typ)]
		if !ok {
			t.Errorf("README's action table has no row for %s", typ)
			continue
		}
		if short := strings.TrimSpace(row[0]); spec.Shorthand == "" && !strings.HasPrefix(short, "—") || spec.Shorthand != "" && short != spec.Shorthand {
			t.Errorf("%s: README shorthand %q, schema %q", typ, short, spec.Shorthand)
		}
		for _, p := range stepParams(spec) {
			if !strings.Contains(row[1], "`"+p+"`") {
				t.Errorf("%s: README params %q lack %s", typ, strings.TrimSpace(row[1]), p)
			}
		}
	}
}
