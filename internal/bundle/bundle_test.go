package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// src is the extension's src folder, absolute.
func src(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../extension/src")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFresh: the files Chrome runs are the bundles of the sources as they
// are (CI's go generate drift check, as a test), docs/architecture.md's
// list of generated files names them, and the manifest runs the worker as
// the module it is.
func TestFresh(t *testing.T) {
	dir := src(t)
	arch, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, build := range []func(string) ([]file, error){Pages, EarlyRecorder, Worker} {
		files, err := build(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(dir, "generated", f.Name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, f.Data) {
				t.Fatalf("extension/src/generated/%s is stale: run go generate ./... and commit it", f.Name)
			}
			if strings.HasSuffix(f.Name, ".map") {
				continue // listed with their bundles
			}
			if !bytes.Contains(arch, []byte("| `extension/src/generated/"+f.Name+"` |")) {
				t.Errorf("docs/architecture.md#generated-files does not list extension/src/generated/%s", f.Name)
			}
		}
	}
	manifest, err := os.ReadFile("../../extension/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), `"background": { "service_worker": "src/generated/worker.js", "type": "module" }`) {
		t.Error(`extension/manifest.json does not run src/generated/worker.js as its service worker, "type": "module" (the bundle is an ES module)`)
	}
}

// TestSameEverywhere: the bundles of a copy of the sources in another
// folder are the same bytes, and name no absolute path, so every machine
// generates what is committed.
func TestSameEverywhere(t *testing.T) {
	dir := src(t)
	copyDir := filepath.Join(t.TempDir(), "elsewhere", "src")
	if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	for _, build := range []func(string) ([]file, error){Pages, EarlyRecorder, Worker} {
		here, err := build(dir)
		if err != nil {
			t.Fatal(err)
		}
		there, err := build(copyDir)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range here {
			if !bytes.Equal(f.Data, there[i].Data) {
				t.Errorf("%s differs when the sources are in another folder", f.Name)
			}
			for _, abs := range []string{dir, copyDir, filepath.Dir(dir)} {
				if bytes.Contains(f.Data, []byte(abs)) || bytes.Contains(there[i].Data, []byte(abs)) {
					t.Errorf("%s names the absolute path %s", f.Name, abs)
				}
			}
		}
	}
}

// TestPageScriptsImportOnlyPage: a page script that imports a worker
// module is refused, naming it, since the page has no such module.
func TestPageScriptsImportOnlyPage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"page/ok.js":   "import { b } from \"./b.js\";\nexport function ok() { return b(); }\n",
		"page/b.js":    "export function b() { return 1; }\n",
		"page/bad.js":  "import { w } from \"../lib/w.js\";\nexport function bad() { return w(); }\n",
		"lib/w.js":     "export function w() { return chrome.runtime.id; }\n",
		"page/oops.js": "export function oops( { return 1; }\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, sourceMap, err := pageScriptCode(dir, pageScript{"OK", "ok", "page/ok.js", "ok", ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"function () { /* bua:ok */\nvar __buaRun;\n", "function b()", "__buaRun = ok;", "return __buaRun.apply(this, arguments);\n//# sourceURL=bua-page-ok.js\n}"} {
		if !strings.Contains(string(code), want) {
			t.Errorf("the page script lacks %q:\n%s", want, code)
		}
	}
	if !bytes.Contains(sourceMap, []byte(`"../page/b.js"`)) {
		t.Errorf("the page script's source map does not name page/b.js:\n%s", sourceMap)
	}
	_, _, err = pageScriptCode(dir, pageScript{"BAD", "bad", "page/bad.js", "bad", ""})
	if err == nil || !strings.Contains(err.Error(), "imports lib/w.js") {
		t.Errorf("a page script importing lib/w.js: err = %v, want one naming it", err)
	}
	_, _, err = pageScriptCode(dir, pageScript{"OOPS", "oops", "page/oops.js", "oops", ""})
	if err == nil || !strings.Contains(err.Error(), "page/oops.js:1:") {
		t.Errorf("a page script that does not parse: err = %v, want its file and line", err)
	}
}
