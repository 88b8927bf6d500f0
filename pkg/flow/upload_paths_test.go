package flow

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestResolvePaths: upload's relative paths are made absolute against the
// flow file's folder with filepath.Abs, so they are absolute as the OS the
// run is on writes them (C:\… on Windows), never by prefixing a /; an
// absolute path, as filepath.Abs gives one here, stays as it is, and a
// value that is not a string is left for the schema to refuse. The
// OS-specific cases are in upload_paths_windows_test.go and
// upload_paths_other_test.go.
func TestResolvePaths(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flows", "checkout.yaml")
	abs, err := filepath.Abs(filepath.Join(dir, "elsewhere", "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := ResolvePaths(flow, []any{"a.txt", filepath.Join("files", "one.txt"), "../up.txt", abs, 3, ""})
	want := []any{
		filepath.Join(dir, "flows", "a.txt"),
		filepath.Join(dir, "flows", "files", "one.txt"),
		filepath.Join(dir, "up.txt"),
		abs, 3, "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resolvePaths = %q,\nwant %q", got, want)
	}
	for _, p := range got[:4] {
		if !filepath.IsAbs(p.(string)) {
			t.Errorf("%s is not absolute on this OS", p)
		}
	}
}
