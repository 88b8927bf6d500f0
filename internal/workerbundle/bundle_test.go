package main

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestBundle(t *testing.T) {
	lib := `import { C as K } from "./c.js";
export const A = K + 1;
export function f() { return A; }
export async function g() {}
export class Box {}
const hidden = 2;
export { hidden as shown };
`
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // in this order
		err   string
	}{
		{
			name: "named, renamed and namespace imports, in dependency order",
			files: map[string]string{
				"main.js":  "import { A, f as ff } from \"./lib/a.js\";\nimport * as ns from \"./lib/a.js\";\nconsole.log(A, ff(), ns.shown);\n",
				"lib/a.js": lib,
				"lib/c.js": "export const C = 1;\n",
			},
			want: []string{
				"// lib/c.js\nconst __lib_c = (() => {\nconst C = 1;\nreturn Object.freeze({ C });\n})();",
				"const { C: K } = __lib_c;\nconst A = K + 1;\nfunction f() { return A; }\nasync function g() {}\nclass Box {}\nconst hidden = 2;\n",
				"return Object.freeze({ A, f, g, Box, shown: hidden });",
				"// main.js\nconst { A, f: ff } = __lib_a;\nconst ns = __lib_a;\nconsole.log(A, ff(), ns.shown);\n",
			},
		},
		{
			name:  "a multi-line import",
			files: map[string]string{"main.js": "import {\n  A,\n  B,\n} from \"./a.js\";\n", "a.js": "export const A = 1;\nexport const B = 2;\n"},
			want:  []string{"const { A, B } = __a;"},
		},
		{
			name:  "cycle",
			files: map[string]string{"main.js": "import { A } from \"./a.js\";\n", "a.js": "import { B } from \"./b.js\";\nexport const A = 1;\n", "b.js": "import { A } from \"./a.js\";\nexport const B = 2;\n"},
			err:   "import cycle: main.js -> a.js -> b.js -> a.js",
		},
		{name: "default export", files: map[string]string{"main.js": "export default 1;\n"}, err: "unsupported export form"},
		{name: "export let", files: map[string]string{"main.js": "export let n = 1;\n"}, err: "unsupported export form"},
		{name: "default import", files: map[string]string{"main.js": "import x from \"./a.js\";\n", "a.js": ""}, err: "unsupported import form"},
		{name: "bare specifier", files: map[string]string{"main.js": "import { x } from \"pkg\";\n"}, err: `only relative paths`},
		{name: "missing module", files: map[string]string{"main.js": "import { x } from \"./gone.js\";\n"}, err: "gone.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, s := range tc.files {
				fsys[p] = &fstest.MapFile{Data: []byte(s)}
			}
			out, err := Bundle(fsys, "main.js")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, at := string(out), 0
			for _, w := range tc.want {
				i := strings.Index(s[at:], w)
				if i < 0 {
					t.Fatalf("bundle lacks (after byte %d) %q:\n%s", at, w, s)
				}
				at += i + len(w)
			}
			if strings.Contains(s, "\nimport ") || strings.Contains(s, "\nexport ") {
				t.Errorf("import or export left in the bundle:\n%s", s)
			}
		})
	}
}

// TestWorkerFresh: the worker Chrome runs (extension/manifest.json) is the
// bundle of the sources as they are, so an edit to extension/src never
// ships without it.
func TestWorkerFresh(t *testing.T) {
	want, err := Bundle(os.DirFS("../../extension/src"), "background.js")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../extension/src/generated/worker.js")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("extension/src/generated/worker.js is stale: run go generate ./... and commit it")
	}
	manifest, err := os.ReadFile("../../extension/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), `"service_worker": "src/generated/worker.js"`) {
		t.Error("extension/manifest.json does not run src/generated/worker.js as its service worker")
	}
}
