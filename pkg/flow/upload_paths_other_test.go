//go:build !windows

package flow

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestResolvePathsWindowsFormsHere: off Windows, C:\x and \\srv\share\x
// are relative names (the schema would take them, the OS does not), so a
// flow's upload resolves them in its folder like any other name; /x is
// absolute and stays.
func TestResolvePathsWindowsFormsHere(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "f.yaml")
	got := ResolvePaths(flow, []any{`C:\x\y.txt`, `\\srv\share\f.txt`, "/tmp/b.txt"})
	want := []any{filepath.Join(dir, `C:\x\y.txt`), filepath.Join(dir, `\\srv\share\f.txt`), "/tmp/b.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resolvePaths = %q, want %q", got, want)
	}
}
