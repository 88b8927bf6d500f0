package flow

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestResolvePathsWindows: a drive-letter path, with either slash, and a
// UNC path are absolute on Windows and go to the daemon as written; a path
// rooted without a drive (/x, \x) or with a drive and no root (C:x) is the
// current drive's, as the shell reads it (filepath.Abs), not a place in
// the flow's folder.
func TestResolvePathsWindows(t *testing.T) {
	flow := filepath.Join(t.TempDir(), "flows", "f.yaml")
	rooted, err := filepath.Abs(`\tmp\b.txt`)
	if err != nil {
		t.Fatal(err)
	}
	driveRel, err := filepath.Abs("C:b.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := ResolvePaths(flow, []any{`C:\x\y.txt`, "C:/x/y.txt", `\\srv\share\f.txt`, "/tmp/b.txt", `\tmp\b.txt`, "C:b.txt", `files\a.txt`})
	want := []any{`C:\x\y.txt`, "C:/x/y.txt", `\\srv\share\f.txt`, rooted, rooted, driveRel, filepath.Join(filepath.Dir(flow), "files", "a.txt")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resolvePaths = %q,\nwant %q", got, want)
	}
}
