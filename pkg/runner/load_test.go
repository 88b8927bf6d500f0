package runner

import (
	"errors"
	"flag"
	"io/fs"
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
	goldenFlows(t, "invalid", 15, func(t *testing.T, file string) string {
		_, err := Load(file)
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("Load(%s) = %v, want a *LoadError", file, err)
		}
		return le.Diags.String()
	})
}

// TestLoad_YAMLSyntax is the golden suite of YAML syntax errors: each
// testdata/flows/yaml/NNN_name.yaml is reported at the problem itself (or
// at the {, [ or quote it leaves open), never at an earlier line, with a
// column only where the parser knows one, and the line under a caret.
func TestLoad_YAMLSyntax(t *testing.T) {
	goldenFlows(t, "yaml", 10, func(t *testing.T, file string) string {
		_, err := Load(file)
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("Load(%s) = %v, want a *LoadError", file, err)
		}
		return le.Diags.String()
	})
}

// TestLoad_Warnings is the golden suite of lint warnings: each
// testdata/flows/warn/NNN_name.yaml loads (a warning leaves a flow valid)
// with exactly the warnings in NNN_name.want.
func TestLoad_Warnings(t *testing.T) {
	goldenFlows(t, "warn", 1, func(t *testing.T, file string) string {
		f, err := Load(file)
		if err != nil {
			t.Fatalf("Load(%s) = %v, want a valid flow with warnings", file, err)
		}
		return f.Warnings.String()
	})
}

// goldenFlows compares what of each testdata/flows/FOLDER/*.yaml (at least
// min of them) with its .want, paths made relative to the folder; -update
// rewrites the .want files. Diagnostics name paths slash-separated on
// every OS (Diagnostic.String, ReportPath), so the folder is taken out in
// that form; and the OS's words for a missing file become Linux's
// (notFoundWords), so a .want holds the same text on every OS.
func goldenFlows(t *testing.T, folder string, min int, what func(t *testing.T, file string) string) {
	notFound := notFoundWords(t)
	dir := filepath.Join("..", "..", "testdata", "flows", folder)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < min {
		t.Fatalf("want at least %d flows in %s, found %d", min, dir, len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			got := notFound.Replace(strings.ReplaceAll(what(t, file), filepath.ToSlash(dir)+"/", ""))
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

// notFoundWords turns what this OS says of a file that is not there, and
// of one in a folder that is not there, into the words the .want files
// hold, Linux's ("no such file or directory"): a diagnostic quotes the
// OS's error (a missing sub-flow, a missing serve folder), and Windows
// words the two cases apart ("The system cannot find the file
// specified." and "... the path specified."). The words replaced are the
// OS's own, from asking it for each case; another error (permission
// denied, say) is left as it is, and differs from the .want.
func notFoundWords(t *testing.T) *strings.Replacer {
	dir := t.TempDir()
	var pairs []string
	for _, missing := range []string{filepath.Join(dir, "nope"), filepath.Join(dir, "no", "folder")} {
		_, err := os.Stat(missing)
		var pe *fs.PathError
		if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("stat %s: %v, want the OS's not-found error", missing, err)
		}
		pairs = append(pairs, pe.Err.Error(), "no such file or directory")
	}
	return strings.NewReplacer(pairs...)
}

// TestLoad_OneDocument: a flow file is one YAML document. A second one is
// an error at its ---, wherever it is; an empty one (a trailing ---, a
// comment) and the document markers themselves are fine.
func TestLoad_OneDocument(t *testing.T) {
	const flow = "name: a\nsteps:\n  - log: hi\n"
	for _, tc := range []struct {
		name, src string
		want      string // the diagnostic, "" for a valid flow
	}{
		{"One", flow, ""},
		{"LeadingMarker", "---\n" + flow, ""},
		{"EndMarker", flow + "...\n", ""},
		{"TrailingMarker", flow + "---\n", ""},
		{"TrailingComment", flow + "---\n# nothing more\n", ""},
		{"Second", flow + "---\nname: b\nsteps: []\n", "f.yaml:4:1: a second YAML document"},
		{"SecondAfterEmpty", flow + "---\n---\n- log: x\n", "f.yaml:5:1: a second YAML document"},
		{"SecondIndented", flow + "\n---   \n  name: b\n", "f.yaml:5:1: a second YAML document"},
		{"SecondScalar", flow + "--- just text\n", "f.yaml:4:1: a second YAML document"},
		{"SecondMalformed", flow + "---\n: : [\n", "malformed YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFlows(t, map[string]string{"f.yaml": tc.src})
			_, err := Load(filepath.Join(dir, "f.yaml"))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load = %v, want a valid flow", err)
				}
				return
			}
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), filepath.ToSlash(dir)+"/", ""), tc.want) {
				t.Fatalf("Load = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestLoad_WarningsBesideErrors: an invalid flow's warnings stay apart from
// its errors (the count of problems is the errors'), and All merges them
// in position order for lint.
func TestLoad_WarningsBesideErrors(t *testing.T) {
	dir := writeFlows(t, map[string]string{"f.yaml": "name: f\nsteps:\n  - repeat: { times: 50000, steps: [ { log: x } ] }\n  - clik: x\n"})
	_, err := Load(filepath.Join(dir, "f.yaml"))
	var le *LoadError
	if !errors.As(err, &le) || len(le.Diags) != 1 || len(le.Warnings) != 1 {
		t.Fatalf("Load = %v, want one error and one warning", err)
	}
	if strings.Contains(le.Error(), "warning") {
		t.Errorf("the error's text counts the warning: %v", le)
	}
	all := le.All()
	if len(all) != 2 || !all[0].Warning || all[0].Line != 3 || all[1].Warning || all[1].Line != 4 {
		t.Errorf("All = %+v, want the warning (line 3) then the error (line 4)", all)
	}
	if got := all[0].String(); !strings.HasSuffix(got, ":3:22: warning: repeat.times: 50000 is over 10000 passes; check it is meant (a loop this long may run until the flow's timeout)") {
		t.Errorf("warning = %q", got)
	}
}

// TestGuideFlowsLoad keeps the guide honest: every complete flow in the
// yaml blocks of README.md and docs/flows.md, and every example in flows/,
// must load cleanly.
func TestGuideFlowsLoad(t *testing.T) {
	flowsDir := filepath.Join("..", "..", "flows")
	n := 0
	for _, guide := range []string{"README.md", filepath.Join("docs", "flows.md")} {
		doc, err := os.ReadFile(filepath.Join("..", "..", guide))
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(doc), "```yaml\n")[1:] {
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
				t.Errorf("%s: flow %d does not load: %v\n%s", guide, n, err, body)
			}
		}
	}
	if n < 2 {
		t.Fatalf("found %d complete flows in the guide's yaml blocks, want README's first flow and docs/flows.md's recording", n)
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

// TestGuideActionTable checks docs/flows.md's action table against the
// schema's action specs: one row per action, with its shorthand and every
// param, so the guide cannot drift from protocol.ActionSpecs.
func TestGuideActionTable(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "flows.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(guide), "| action | shorthand | params |")
	if !ok {
		t.Fatal("docs/flows.md has no flow action table")
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
				t.Errorf("docs/flows.md's action table lists %s, which is not a flow step (x-flow: false)", typ)
			}
			continue
		}
		row, ok := rows[string(typ)]
		if !ok {
			t.Errorf("docs/flows.md's action table has no row for %s", typ)
			continue
		}
		if short := strings.TrimSpace(row[0]); spec.Shorthand == "" && !strings.HasPrefix(short, "—") || spec.Shorthand != "" && short != spec.Shorthand {
			t.Errorf("%s: docs/flows.md shorthand %q, schema %q", typ, short, spec.Shorthand)
		}
		for _, p := range stepParams(spec) {
			if !strings.Contains(row[1], "`"+p+"`") {
				t.Errorf("%s: docs/flows.md params %q lack %s", typ, strings.TrimSpace(row[1]), p)
			}
		}
	}
}
