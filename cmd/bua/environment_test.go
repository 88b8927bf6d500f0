package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// envReads are the patterns that read an environment variable by a name
// written in the code: a literal (getenv("BUA_HOME"), s.getenv, Getenv,
// os.Getenv, os.LookupEnv), a constant (Getenv(bridge.EnvExtensionIDs)),
// and pkg/home's pick("XDG_STATE_HOME", …), which reads the name it is
// given.
var (
	envLiteral  = regexp.MustCompile(`(?:[Gg]etenv|LookupEnv)\("([A-Za-z_][A-Za-z0-9_()]*)"\)`)
	envConstant = regexp.MustCompile(`(?:[Gg]etenv|LookupEnv)\((?:[a-z]\w*\.)?([A-Z]\w*)\)`)
	envPick     = regexp.MustCompile(`\bpick\("([A-Z_][A-Z0-9_]*)"`)
	// envVariable is a read by a name the code holds in a variable: each
	// such read must be in envIndirect, which says whose name it is.
	envVariable = regexp.MustCompile(`(?:[Gg]etenv|LookupEnv)\(((?:[a-z]\w*\.)*[a-z]\w*|[a-z]\w*\.[A-Z]\w*\([^)]*\))\)`)
)

// envIndirect are the reads of a name held in a variable, by file and
// argument: none of them is a variable of bua's own.
var envIndirect = map[string]string{
	"cmd/bua/cmd_input.go: c.String(\"text-env\")": "type --text-env VAR: the person names the variable",
	"pkg/home/dirs_unix.go: env":                   "pick's name: the XDG_* literals envPick finds",
	"pkg/runner/run.go: name":                      "a flow's env.NAME: the flow names the variable",
	"pkg/runner/state.go: name":                    "a flow's env.NAME: the flow names the variable",
}

// envScanSkips are the folders whose code is not bua's own at run time:
// tests and their helpers, benchmarks, pinned tools.
func envScanSkips(rel string) bool {
	base := filepath.Base(rel)
	switch {
	case rel == "e2e", rel == "bench", rel == "tools", rel == "scripts", rel == "npm", rel == "extension", rel == "docs":
		return true
	case base == "testdata", base == "node_modules", strings.HasPrefix(base, "."):
		return true
	case strings.HasSuffix(base, "test"): // bridgetest, runnertest, kwtest: test helpers
		return true
	}
	return false
}

// envVarsRead scans the module's non-test Go code for the environment
// variables it reads, by name.
func envVarsRead(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	type file struct{ rel, src string }
	var files []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && envScanSkips(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, file{rel, string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	constants := map[string]string{}
	constDef := regexp.MustCompile(`\b([A-Z][A-Za-z0-9_]*)\s*=\s*"([A-Z_][A-Z0-9_]*)"`)
	for _, f := range files {
		for _, m := range constDef.FindAllStringSubmatch(f.src, -1) {
			constants[m[1]] = m[2]
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		for _, line := range strings.Split(f.src, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") || strings.Contains(line, "func ") {
				continue
			}
			for _, m := range envLiteral.FindAllStringSubmatch(line, -1) {
				seen[m[1]] = true
			}
			for _, m := range envPick.FindAllStringSubmatch(line, -1) {
				seen[m[1]] = true
			}
			for _, m := range envConstant.FindAllStringSubmatch(line, -1) {
				name, ok := constants[m[1]]
				if !ok {
					t.Errorf("%s: %s reads the environment through %s, whose value this test cannot find", f.rel, strings.TrimSpace(line), m[1])
					continue
				}
				seen[name] = true
			}
			for _, m := range envVariable.FindAllStringSubmatch(line, -1) {
				if _, ok := envIndirect[f.rel+": "+m[1]]; !ok {
					t.Errorf("%s: %s reads a variable named by %s: list the names it may read in bua help environment, then the read in envIndirect", f.rel, strings.TrimSpace(line), m[1])
				}
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestHelpEnvironment: the environment table (environment.go) names
// every environment variable bua's code reads, and only those; `bua help
// environment` (and `bua environment`) prints each with its meaning and
// default, exit 0; docs/environment.md shows the same table, and README
// points to it.
func TestHelpEnvironment(t *testing.T) {
	read := envVarsRead(t)
	for _, must := range []string{"BUA_HOME", "BUA_LISTEN", "BUA_CHROME", "BUA_EXTENSION_IDS", "BUA_HANDOFF", "CI", "NO_COLOR", "LOCALAPPDATA", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		if !slices.Contains(read, must) {
			t.Errorf("the scan of the code missed %s: it finds %v", must, read)
		}
	}
	listed := map[string]envVar{}
	for _, g := range environment {
		for _, v := range g.Vars {
			if _, dup := listed[v.Name]; dup {
				t.Errorf("%s is listed twice", v.Name)
			}
			if v.Default == "" || v.Meaning == "" || strings.Contains(v.Default+v.Meaning, "\n") {
				t.Errorf("%s: want a one-line meaning and default, got %+v", v.Name, v)
			}
			listed[v.Name] = v
		}
	}
	for _, name := range read {
		if _, ok := listed[name]; !ok {
			t.Errorf("bua reads %s, which the environment table (environment.go) does not list", name)
		}
	}
	for name := range listed {
		if !slices.Contains(read, name) {
			t.Errorf("the environment table lists %s, which no code of bua's reads", name)
		}
	}
	for _, args := range [][]string{{"help", "environment"}, {"environment"}} {
		r := runCLI(t, nil, "", args...)
		if r.code != 0 {
			t.Fatalf("bua %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
		}
		lines := strings.Split(r.stdout, "\n")
		for _, v := range listed {
			i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  "+v.Name+" ") })
			if i < 0 || i+1 == len(lines) || !strings.HasSuffix(lines[i], " "+v.Meaning) || strings.TrimSpace(lines[i+1]) != "default: "+v.Default {
				t.Errorf("bua %s does not list %s with its meaning, then its default:\n%s", strings.Join(args, " "), v.Name, r.stdout)
			}
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "environment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := envMarkdown(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/environment.md does not hold the environment table as environment.go has it; paste this:\n%s", want)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/environment.md)") || !strings.Contains(string(readme), "`bua help environment`") {
		t.Error("README does not point to docs/environment.md and `bua help environment`")
	}
}

// envMarkdown is the environment table as docs/environment.md shows it: a
// heading and a table per group, then the notes, a paragraph each.
func envMarkdown() string {
	var b strings.Builder
	for _, g := range environment {
		fmt.Fprintf(&b, "## %s\n\n| Variable | Meaning | Default |\n| --- | --- | --- |\n", g.Title)
		for _, v := range g.Vars {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, mdCell(v.Meaning), mdCell(v.Default))
		}
		b.WriteString("\n")
	}
	b.WriteString(strings.Join(envNotes, "\n\n") + "\n")
	return b.String()
}

// mdCell escapes what would break a markdown table cell: its pipes.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// TestUnknownHelpTopic: a help topic bua does not have is a usage error
// (exit 2, naming the topics), not urfave/cli's exit 3, which bua's exit
// codes keep for "blocked". A command's help still works.
func TestUnknownHelpTopic(t *testing.T) {
	for _, args := range [][]string{{"help", "bogus"}, {"help", "environmnet"}, {"browser", "help", "bogus"}} {
		r := runCLI(t, nil, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "environment") || !strings.Contains(r.stderr, "exit-codes") {
			t.Errorf("bua %s: exit %d, stderr %q: want 2, naming the topics", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := runCLI(t, nil, "", "help", "click"); r.code != 0 || !strings.Contains(r.stdout, "bua click") {
		t.Errorf("bua help click: %+v", r)
	}
	if r := runCLI(t, nil, "", "help", "exit-codes"); r.code != 0 || !strings.Contains(r.stdout, "Exit codes:") {
		t.Errorf("bua help exit-codes: %+v", r)
	}
}
