package flowwriter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/internal/wine"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFlowWriteFile: the flow replaces what path held, whole, private to
// the user (0600 on Unix, a DACL for the user alone on Windows:
// home.CheckPrivate), and leaves no temporary file behind; a write that
// fails leaves path as it was and names it.
func TestFlowWriteFile(t *testing.T) {
	f := compileFlow(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(f.YAML) {
		t.Errorf("%s holds %q (%v), want the flow", path, got, err)
	}
	if err := home.CheckPrivate(path); err != nil {
		t.Errorf("the flow is not private to the user: %v", err)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "flow.yaml" {
		t.Errorf("the folder holds %v, want only the flow", names)
	}

	// A folder where the file should be: the rename fails, even for root.
	busy := filepath.Join(dir, "busy.yaml")
	if err := os.MkdirAll(filepath.Join(busy, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	err = f.WriteFile(busy)
	if err == nil || !strings.Contains(err.Error(), busy) {
		t.Errorf("WriteFile over a folder: %v, want an error naming %s", err, busy)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "busy.yaml flow.yaml" {
		t.Errorf("a failed write left %v", names)
	}
}

// TestFlowWriteFile_Symlink: a path that is a symbolic link writes the
// file it points to, privately, and the link stays a link.
func TestFlowWriteFile_Symlink(t *testing.T) {
	if wine.Detected() {
		// Wine 8's CreateSymbolicLinkW answers success and makes nothing
		// (os.Symlink returns nil; the link is then not found).
		t.Skip("Wine 8 makes no symbolic links: the Windows runner of .github/workflows/ci.yml writes through one")
	}
	f := compileFlow(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("flow.yaml", link); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(link); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(f.YAML) {
		t.Errorf("%s holds %q (%v), want the flow", path, got, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if err := home.CheckPrivate(path); err != nil {
		t.Errorf("the flow is not private to the user: %v", err)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "flow.yaml link.yaml" {
		t.Errorf("the folder holds %v, want only the flow and the link", names)
	}
}

// compileFlow is a one-step flow to write.
func compileFlow(t *testing.T) *Flow {
	t.Helper()
	f, err := Compile(Header{MadeBy: "test"}, []Entry{
		{Action: protocol.Action{Type: protocol.ActionNavigate, URL: "https://h.example/"}, URLAfter: "https://h.example/"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestCheckPath: a file in a folder that exists passes, and leaves nothing
// behind; no folder, a folder as the file, or a file as the folder is an
// error saying what to do.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(filepath.Join(dir, "new.yaml")); err != nil {
		t.Errorf("a new file in a folder: %v", err)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "plain" {
		t.Errorf("the check left %v", names)
	}
	for _, tc := range []struct{ path, want string }{
		{"", "no file named"},
		{filepath.Join(dir, "missing", "x.yaml"), "does not exist: create it (" + mkdirCommand(filepath.Join(dir, "missing")) + ")"},
		{dir, "is a folder: name a file in it"},
		{filepath.Join(plain, "x.yaml"), "is not a folder"},
	} {
		if err := CheckPath(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckPath(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
}
