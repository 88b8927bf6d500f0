package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bua-dev/bua/extension"
)

// TestWrite: the store zip holds exactly the files extension.WriteTo
// writes, with the same contents, but for manifest.json, which lacks
// "key" and is otherwise the same (its version is the one the binary
// bundles); every file has the given time; and two writes are the same
// bytes.
func TestWrite(t *testing.T) {
	at := time.Date(2026, 12, 7, 14, 0, 15, 0, time.UTC)
	var a, b bytes.Buffer
	if err := write(&a, at); err != nil {
		t.Fatal(err)
	}
	if err := write(&b, at.In(time.FixedZone("east", 5*3600))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes at one time (in two time zones) differ: the zip is not reproducible")
	}

	unpacked := t.TempDir()
	if _, err := extension.WriteTo(unpacked, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	err := filepath.WalkDir(unpacked, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(unpacked, p)
		data, err := os.ReadFile(p)
		want[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(at) {
			t.Errorf("%s: time %v, want %v", f.Name, f.Modified, at)
		}
		if f.Mode() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", f.Name, f.Mode())
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		got[f.Name] = data
	}
	if !slices.IsSorted(names) {
		t.Errorf("the zip's files are not in path order: %v", names)
	}
	if w, g := slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)); !slices.Equal(w, g) {
		t.Fatalf("the zip holds %v, extension.WriteTo writes %v", g, w)
	}
	for name, data := range want {
		if name != "manifest.json" && !bytes.Equal(got[name], data) {
			t.Errorf("%s differs from what extension.WriteTo writes", name)
		}
	}

	var wm, gm map[string]any
	if err := json.Unmarshal(want["manifest.json"], &wm); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got["manifest.json"], &gm); err != nil {
		t.Fatal(err)
	}
	if _, ok := gm["key"]; ok {
		t.Error(`the store zip's manifest.json has "key", which the stores refuse`)
	}
	if _, ok := wm["key"]; !ok {
		t.Fatal(`the unpacked manifest.json has no "key": the test proves nothing`)
	}
	delete(wm, "key")
	wj, _ := json.Marshal(wm)
	gj, _ := json.Marshal(gm)
	if !bytes.Equal(wj, gj) {
		t.Errorf("the store manifest, but for key, differs from the unpacked one:\n%s\nwant\n%s", gj, wj)
	}
	if gm["version"] != extension.Version() {
		t.Errorf("the store manifest's version is %v, want the bundled %s", gm["version"], extension.Version())
	}
}

// TestWithoutKey_NoKey: a manifest with no "key" is an error, not a zip
// that silently matches nothing.
func TestWithoutKey_NoKey(t *testing.T) {
	if _, err := withoutKey([]byte(`{"name":"x"}`)); err == nil {
		t.Error("withoutKey accepted a manifest with no key")
	}
}
