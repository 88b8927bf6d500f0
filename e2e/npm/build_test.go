//go:build linux

package npm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The platform packages, as npm/bua/lib/platform.js names them, with the
// Go target each carries.
var platforms = []struct{ key, goos, goarch string }{
	{"linux-x64", "linux", "amd64"}, {"linux-arm64", "linux", "arm64"},
	{"darwin-x64", "darwin", "amd64"}, {"darwin-arm64", "darwin", "arm64"},
	{"win32-x64", "windows", "amd64"}, {"win32-arm64", "windows", "arm64"},
}

// art is one artifacts.json entry, as GoReleaser writes it.
type art map[string]any

func binArt(goos, goarch, variant, path string) art {
	a := art{
		"name": filepath.Base(path), "path": path, "goos": goos, "goarch": goarch,
		"internal_type": 4, "type": "Binary", // GoReleaser's artifact.Binary
		"extra": map[string]any{"Binary": "bua", "Ext": filepath.Ext(path), "ID": "bua", "Builder": "go"},
	}
	switch goarch {
	case "amd64":
		a["goamd64"] = variant
	case "arm64":
		a["goarm64"] = variant
	}
	a["target"] = goos + "_" + goarch + "_" + variant
	return a
}

// standIn writes a dist/ under a new project folder: files (path relative
// to the project, or absolute) with the given contents, artifacts.json
// and metadata.json. It returns the project folder, where build.mjs runs
// as GoReleaser's caller would.
func standIn(t *testing.T, arts []art, files map[string]string, version string) string {
	t.Helper()
	project := t.TempDir()
	for path, content := range files {
		if !filepath.IsAbs(path) {
			path = filepath.Join(project, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(project, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"artifacts.json": arts, "metadata.json": map[string]any{"project_name": "bua", "version": version}} {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(project, "dist", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project
}

func buildMjs(t *testing.T, project string, args ...string) result {
	t.Helper()
	return run(t, os.Environ(), project, 5*time.Minute, "node", append([]string{filepath.Join(repoRoot, "npm", "build.mjs")}, args...)...)
}

// tarFile is one file of a packed package.
type tarFile struct {
	mode int64
	data []byte
}

func readTgz(t *testing.T, file string) map[string]tarFile {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]tarFile{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		files[h.Name] = tarFile{h.Mode, data}
	}
}

// TestBuildFromArtifacts: npm/build.mjs takes each binary from what
// artifacts.json says, not from folder names: the build's own binary, not
// a copy made for upload; the baseline variant (amd64 v1) over a faster
// one; a macOS universal binary for both Macs; a path outside the project
// (absolute). Each platform package carries its binary (0755) with os and
// cpu set; the launcher names all six at exactly its version, and comes
// last in packages.json. The same dist/ packs to the same bytes.
func TestBuildFromArtifacts(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere", "bua")
	arts := []art{
		binArt("linux", "amd64", "v3", "dist/fast/bua"),
		binArt("linux", "amd64", "v1", "dist/a/bua"),
		binArt("linux", "arm64", "v8.0", "dist/b/bua"),
		binArt("windows", "amd64", "v1", "dist/c/bua.exe"),
		binArt("windows", "arm64", "v8.0", outside+".exe"),
		// The universal binary: GoReleaser's UniversalBinary, goarch "all".
		{"name": "bua", "path": "dist/u/bua", "goos": "darwin", "goarch": "all", "internal_type": 5, "type": "Binary", "extra": map[string]any{"Binary": "bua", "ID": "bua-universal"}},
		// A copy made for upload (UploadableBinary) and an archive: not builds.
		{"name": "bua_1.2.3_linux_amd64", "path": "dist/bua_1.2.3_linux_amd64", "goos": "linux", "goarch": "amd64", "goamd64": "v1", "internal_type": 2, "type": "Binary", "extra": map[string]any{"Binary": "bua", "ID": "bua"}},
		{"name": "bua_1.2.3_linux_amd64.tar.gz", "path": "dist/bua_1.2.3_linux_amd64.tar.gz", "goos": "linux", "goarch": "amd64", "goamd64": "v1", "internal_type": 1, "type": "Archive", "extra": map[string]any{"Binaries": []string{"bua"}, "ID": "default"}},
		// Another program of the same build.
		func() art {
			a := binArt("linux", "amd64", "v1", "dist/a/helper")
			a["extra"].(map[string]any)["Binary"] = "helper"
			return a
		}(),
	}
	files := map[string]string{
		"dist/fast/bua": "linux amd64 v3", "dist/a/bua": "linux amd64 v1", "dist/b/bua": "linux arm64",
		"dist/c/bua.exe": "windows amd64", outside + ".exe": "windows arm64", "dist/u/bua": "darwin universal",
		"dist/bua_1.2.3_linux_amd64": "the upload copy", "dist/a/helper": "helper",
	}
	want := map[string]string{
		"linux-x64": "linux amd64 v1", "linux-arm64": "linux arm64", "darwin-x64": "darwin universal",
		"darwin-arm64": "darwin universal", "win32-x64": "windows amd64", "win32-arm64": "windows arm64",
	}
	project := standIn(t, arts, files, "1.2.3-rc.1")
	if r := buildMjs(t, project, "--dist", "dist", "--out", "out"); r.code != 0 {
		t.Fatalf("build.mjs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(project, "out")
	var pkgs []builtPackage
	b, _ := os.ReadFile(filepath.Join(out, "packages.json"))
	if err := json.Unmarshal(b, &pkgs); err != nil || len(pkgs) != 7 {
		t.Fatalf("packages.json: %v\n%s", err, b)
	}
	for i, p := range platforms {
		name := "@bua-dev/bua-" + p.key
		if pkgs[i].Name != name || pkgs[i].Version != "1.2.3-rc.1" {
			t.Errorf("packages.json[%d]: %+v, want %s 1.2.3-rc.1", i, pkgs[i], name)
			continue
		}
		files := readTgz(t, filepath.Join(out, pkgs[i].Tarball))
		exe := "package/bin/bua"
		if p.goos == "windows" {
			exe += ".exe"
		}
		if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, slices.Sorted(slices.Values([]string{"package/LICENSE", exe, "package/README.md", "package/package.json"}))) {
			t.Errorf("%s holds %v", pkgs[i].Tarball, got)
		}
		if f := files[exe]; string(f.data) != want[p.key] || f.mode != 0o755 {
			t.Errorf("%s: %s is %q (mode %o), want %q, 0755", name, exe, f.data, f.mode, want[p.key])
		}
		if license, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE")); err != nil || !bytes.Equal(files["package/LICENSE"].data, license) {
			t.Errorf("%s: package/LICENSE is not the repository's LICENSE (%v)", name, err)
		}
		var pj struct {
			Name, Version, License string
			OS                     []string `json:"os"`
			CPU                    []string `json:"cpu"`
			Bin                    any      `json:"bin"`
			Scripts                any      `json:"scripts"`
		}
		if err := json.Unmarshal(files["package/package.json"].data, &pj); err != nil {
			t.Fatal(err)
		}
		key := strings.SplitN(p.key, "-", 2)
		if pj.Name != name || pj.Version != "1.2.3-rc.1" || pj.License != "Apache-2.0" || !slices.Equal(pj.OS, key[:1]) || !slices.Equal(pj.CPU, key[1:]) || pj.Bin != nil || pj.Scripts != nil {
			t.Errorf("%s's package.json: %s", name, files["package/package.json"].data)
		}
	}

	launcher := pkgs[6]
	lfiles := readTgz(t, filepath.Join(out, launcher.Tarball))
	if got := slices.Sorted(maps.Keys(lfiles)); !slices.Equal(got, []string{"package/LICENSE", "package/README.md", "package/bin/bua.js", "package/install.js", "package/lib/platform.js", "package/package.json"}) {
		t.Errorf("the launcher holds %v", got)
	}
	if lfiles["package/bin/bua.js"].mode != 0o755 {
		t.Errorf("bin/bua.js has mode %o", lfiles["package/bin/bua.js"].mode)
	}
	var lj struct {
		Name, Version, License string
		Bin, Scripts           map[string]string
		OptionalDependencies   map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(lfiles["package/package.json"].data, &lj); err != nil {
		t.Fatal(err)
	}
	wantDeps := map[string]string{}
	for _, p := range platforms {
		wantDeps["@bua-dev/bua-"+p.key] = "1.2.3-rc.1"
	}
	if lj.Name != "@bua-dev/bua" || lj.Version != "1.2.3-rc.1" || lj.License != "Apache-2.0" || lj.Bin["bua"] != "bin/bua.js" || lj.Scripts["postinstall"] != "node install.js" || !maps.Equal(lj.OptionalDependencies, wantDeps) {
		t.Errorf("the launcher's package.json: %s", lfiles["package/package.json"].data)
	}

	// Again, into a folder of another name: the same bytes.
	if r := buildMjs(t, project, "--dist", "dist", "--out", "out2"); r.code != 0 {
		t.Fatalf("build.mjs again: exit %d\n%s", r.code, r.stderr)
	}
	for _, p := range pkgs {
		a, _ := os.ReadFile(filepath.Join(out, p.Tarball))
		b, _ := os.ReadFile(filepath.Join(project, "out2", p.Tarball))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of one dist/", p.Tarball)
		}
	}
	// Run again into its own output: it replaces what it wrote.
	if r := buildMjs(t, project, "--dist", "dist", "--out", "out"); r.code != 0 {
		t.Errorf("build.mjs into its own earlier output: exit %d\n%s", r.code, r.stderr)
	}
}

// TestBuildPathsInDist: artifacts.json's relative paths are the folder
// above dist/'s, whatever the working directory, even one that holds a
// dist/ of another build; and with GoReleaser's dist set deeper
// (build/dist), the project's.
func TestBuildPathsInDist(t *testing.T) {
	arts := []art{binArt("linux", "amd64", "v1", "dist/bua_linux_amd64_v1/bua")}
	project := standIn(t, arts, map[string]string{"dist/bua_linux_amd64_v1/bua": "this build"}, "1.0.0")
	elsewhere := standIn(t, arts, map[string]string{"dist/bua_linux_amd64_v1/bua": "another build"}, "9.9.9")
	out := filepath.Join(t.TempDir(), "npm")
	if r := buildMjs(t, elsewhere, "--dist", filepath.Join(project, "dist"), "--out", out, "--platforms", "linux-x64"); r.code != 0 {
		t.Fatalf("build.mjs: exit %d\n%s", r.code, r.stderr)
	}
	if got := readTgz(t, filepath.Join(out, "bua-dev-bua-linux-x64-1.0.0.tgz"))["package/bin/bua"]; string(got.data) != "this build" {
		t.Errorf("packed %q from the working directory's dist/, want the binary of --dist", got.data)
	}

	deep := []art{binArt("linux", "amd64", "v1", "build/dist/bua_linux_amd64_v1/bua")}
	project = standIn(t, deep, map[string]string{"build/dist/bua_linux_amd64_v1/bua": "deeper"}, "1.0.0")
	for _, name := range []string{"artifacts.json", "metadata.json"} {
		if err := os.MkdirAll(filepath.Join(project, "build"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(project, "dist", name), filepath.Join(project, "build", "dist", name)); err != nil {
			t.Fatal(err)
		}
	}
	if r := buildMjs(t, t.TempDir(), "--dist", filepath.Join(project, "build", "dist"), "--out", out, "--platforms", "linux-x64"); r.code != 0 {
		t.Fatalf("build.mjs with build/dist: exit %d\n%s", r.code, r.stderr)
	}
	if got := readTgz(t, filepath.Join(out, "bua-dev-bua-linux-x64-1.0.0.tgz"))["package/bin/bua"]; string(got.data) != "deeper" {
		t.Errorf("build/dist: packed %q", got.data)
	}
}

// TestBuildRefuses: what npm/build.mjs refuses, each naming what is wrong,
// and the options that resolve it.
func TestBuildRefuses(t *testing.T) {
	all := func() ([]art, map[string]string) {
		var arts []art
		files := map[string]string{}
		for _, p := range platforms {
			v := "v1"
			if p.goarch == "arm64" {
				v = "v8.0"
			}
			path := "dist/bua_" + p.goos + "_" + p.goarch + "_" + v + "/bua"
			if p.goos == "windows" {
				path += ".exe"
			}
			arts = append(arts, binArt(p.goos, p.goarch, v, path))
			files[path] = p.key
		}
		return arts, files
	}
	refuses := func(t *testing.T, r result, says ...string) {
		t.Helper()
		if r.code == 0 {
			t.Fatalf("exit 0, want a refusal saying %q\n%s", says, r.stdout)
		}
		for _, s := range says {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("stderr %q does not say %q", r.stderr, s)
			}
		}
	}

	t.Run("a platform missing", func(t *testing.T) {
		arts, files := all()
		project := standIn(t, slices.Delete(arts, 3, 4), files, "1.0.0") // darwin/arm64
		refuses(t, buildMjs(t, project, "--dist", "dist", "--out", "out"), "darwin/arm64", "darwin-arm64")
		if _, err := os.Stat(filepath.Join(project, "out")); err == nil {
			t.Errorf("it wrote out/ all the same")
		}
	})
	t.Run("a path that is not there", func(t *testing.T) {
		arts, files := all()
		delete(files, "dist/bua_linux_arm64_v8.0/bua")
		project := standIn(t, arts, files, "1.0.0")
		refuses(t, buildMjs(t, project, "--dist", "dist", "--out", "out"), "dist/bua_linux_arm64_v8.0/bua")
	})
	t.Run("two builds of one target", func(t *testing.T) {
		arts, files := all()
		other := binArt("linux", "amd64", "v1", "dist/other/bua")
		other["extra"].(map[string]any)["ID"] = "other"
		files["dist/other/bua"] = "the other build"
		project := standIn(t, append(arts, other), files, "1.0.0")
		refuses(t, buildMjs(t, project, "--dist", "dist", "--out", "out"), "--build-id", "bua, other")
		if r := buildMjs(t, project, "--dist", "dist", "--out", "out", "--build-id", "other", "--platforms", "linux-x64"); r.code != 0 {
			t.Fatalf("--build-id other: exit %d\n%s", r.code, r.stderr)
		}
		if got := readTgz(t, filepath.Join(project, "out", "bua-dev-bua-linux-x64-1.0.0.tgz"))["package/bin/bua"]; string(got.data) != "the other build" {
			t.Errorf("--build-id other packed %q", got.data)
		}
	})
	t.Run("a version npm refuses", func(t *testing.T) {
		arts, files := all()
		project := standIn(t, arts, files, "snapshot-abc1234")
		refuses(t, buildMjs(t, project, "--dist", "dist", "--out", "out"), `"snapshot-abc1234" is not semver`, "--version")
		// --version wins over metadata.json, without GoReleaser's v.
		if r := buildMjs(t, project, "--dist", "dist", "--out", "out", "--version", "v2.0.1", "--platforms", "linux-x64"); r.code != 0 {
			t.Fatalf("--version v2.0.1: exit %d\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(project, "out", "bua-dev-bua-2.0.1.tgz")); err != nil {
			t.Error(err)
		}
	})
	t.Run("an output folder with other files", func(t *testing.T) {
		arts, files := all()
		files["out/keep.txt"] = "not the builder's"
		project := standIn(t, arts, files, "1.0.0")
		refuses(t, buildMjs(t, project, "--dist", "dist", "--out", "out"), "--out", "did not write")
		if _, err := os.Stat(filepath.Join(project, "out", "keep.txt")); err != nil {
			t.Errorf("the folder's file: %v", err)
		}
	})
}
