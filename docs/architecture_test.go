// Package docs holds contributor documentation; its tests keep the pages
// in step with the tree: the file paths they name, the sections they cite
// (anchors_test.go), and the dependency rules and size limits
// architecture.md states.
package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bua-dev/bua/internal/wine"
)

// pathLike is a backticked span that names a file or folder of the repo:
// it has a slash and no spaces, and does not start with a scheme or ".".
var pathLike = regexp.MustCompile("`([A-Za-z][A-Za-z0-9_./-]*/[A-Za-z0-9_./-]*)`")

// tracedPages are architecture.md and the pages it moved its long
// sections to: each names the files it describes.
var tracedPages = []string{"architecture.md", "cold-start.md", "cancellation.md", "handoff.md", "browser-lifetime.md"}

// TestArchitectureFiles fails when architecture.md or one of its pages
// names a path that does not exist, so a trace cannot drift from the code
// it describes.
func TestArchitectureFiles(t *testing.T) {
	for _, page := range tracedPages {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, m := range pathLike.FindAllStringSubmatch(string(doc), -1) {
			p := m[1]
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				continue // a module from outside, github.com/...
			}
			p = strings.TrimSuffix(p, "/...") // a folder and what is under it
			seen++
			if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(p))); err != nil {
				t.Errorf("%s names %s, which does not exist", page, p)
			}
		}
		if seen < 3 {
			t.Errorf("%s: only %d paths found: the pattern no longer matches the page", page, seen)
		}
	}
}

const module = "github.com/bua-dev/bua"

// importRule is one row of architecture.md's "Who may import whom": the
// packages it covers (a name, or a folder and everything under it when it
// ends in /...), and what they may import of bua's.
type importRule struct {
	pkgs    []string
	any     bool     // any package of bua's, but except
	allowed []string // when !any
	except  []string
}

func (r importRule) covers(pkg string) bool {
	for _, p := range r.pkgs {
		if prefix, ok := strings.CutSuffix(p, "/..."); ok {
			if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
				return true
			}
		} else if pkg == p {
			return true
		}
	}
	return false
}

func (r importRule) allows(dep string) bool {
	if r.any {
		return !slices.Contains(r.except, dep)
	}
	return slices.Contains(r.allowed, dep)
}

var codeSpan = regexp.MustCompile("`([^` ]+)`")

// importRules reads the table under "## Who may import whom".
func importRules(t *testing.T) []importRule {
	t.Helper()
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Who may import whom\n")
	if !ok {
		t.Fatal("architecture.md has no section \"Who may import whom\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rules []importRule
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) != 2 {
			continue
		}
		r := importRule{pkgs: spans(cells[0])}
		if strings.HasPrefix(cells[1], "any package of bua's") {
			r.any, r.except = true, spans(cells[1])
		} else {
			r.allowed = spans(cells[1])
		}
		rules = append(rules, r)
	}
	if len(rules) < 10 {
		t.Fatalf("only %d rows read from architecture.md's import table: the table or its reader changed", len(rules))
	}
	return rules
}

// spans is the backticked package names in a cell, without the module
// path (a span with a space, a command, is not one).
func spans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDependencyRules holds every package of bua's to its row of
// architecture.md's "Who may import whom", so the layers point one way:
// pkg/protocol a leaf, the runner and the MCP server away from the daemon,
// nothing importing the CLI. A package without a row fails too. The
// imports are read for each OS bua builds for, since an OS's own files
// (pkg/home/link_windows.go) import what the others' do not.
func TestDependencyRules(t *testing.T) {
	needGo(t)
	rules := importRules(t)
	var out []byte
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		o, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list ./...: %v", goos, err)
		}
		out = append(out, o...)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := ours(fields[0])
		i := slices.IndexFunc(rules, func(r importRule) bool { return r.covers(pkg) })
		if i < 0 {
			t.Errorf("%s has no row in architecture.md's \"Who may import whom\": place it in the layers first", pkg)
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			if dep := ours(imp); dep != imp && !rules[i].allows(dep) {
				t.Errorf("%s imports %s, which its row in architecture.md's \"Who may import whom\" does not allow", pkg, dep)
			}
		}
	}
	if checked < 3*30 {
		t.Fatalf("only %d packages checked over three OSes: go list's output or the table changed", checked)
	}
}

// ours is pkg without the module path ("extension" for the module's
// extension package); a package from outside is returned as it is.
func ours(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
		return rest
	}
	return pkg
}

// TestRunnerDeps: the runner needs the wire types and a Requester only, so
// the daemon's WebSocket library and its request ids stay out of its build
// (and of every flow test's).
func TestRunnerDeps(t *testing.T) {
	needGo(t)
	cmd := exec.Command("go", "list", "-deps", "./pkg/runner")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./pkg/runner: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{"github.com/gorilla/websocket", "github.com/google/uuid", module + "/pkg/bridge"} {
		if slices.Contains(deps, banned) {
			t.Errorf("pkg/runner depends on %s", banned)
		}
	}
}

// needGo skips a test that reads the code through the Go toolchain where
// there is none: the Windows test binaries under Wine (scripts/test-windows),
// whose Linux run checks the same for every OS.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil && wine.Detected() {
		t.Skip("no Go toolchain under Wine: the Linux run of this test reads every OS's imports")
	}
}
