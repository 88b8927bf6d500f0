package devbuild

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestReleaseSnapshot runs `scripts/release --snapshot` as a maintainer
// would before a tag, into the checkout's dist/ (which it replaces), and
// checks what a release would publish: the six archives, each with the
// binary, README.md and LICENSE at the commit's time; checksums.txt,
// which names every file published and matches each; the deb (no
// dependency, chromium suggested) and the rpm; the extension's zip for
// the stores, with no "key"; the Homebrew cask and the Scoop and winget
// manifests, each naming the right archives' checksums; the npm packages;
// and the linux/amd64 binary's --version, which names the snapshot's
// version and commit. It takes about two minutes on two cores. It fetches
// nothing: it runs the GoReleaser scripts/tools installed, or fails
// saying to run scripts/tools.
func TestReleaseSnapshot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the release is built on Linux (.github/workflows/release.yml runs on ubuntu-latest): the Linux run checks it")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Tool(root, "goreleaser"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, pkg string }{{"git", "git"}, {"node", "nodejs"}, {"npm", "npm"}, {"dpkg-deb", "dpkg"}} {
		if _, err := exec.LookPath(c.cmd); err != nil {
			t.Fatalf("%s is not on PATH: the release needs it (apt-get install -y %s)", c.cmd, c.pkg)
		}
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	commit := git("rev-parse", "HEAD")
	commitTime, err := time.Parse(time.RFC3339, git("log", "-1", "--format=%cI", "HEAD"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "scripts", "release"), "--snapshot", "--skip-tools")
	cmd.Dir = root
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/release --snapshot: %v\n%s", err, tail(log.String(), 60))
	}
	t.Logf("scripts/release --snapshot took %s", time.Since(start).Round(time.Second))

	dist := filepath.Join(root, "dist")
	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	}
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	if meta.Commit != commit {
		t.Fatalf("GoReleaser built commit %q, HEAD is %s", meta.Commit, commit)
	}
	// GoReleaser's ShortCommit is git's own abbreviation, whose length
	// grows with the repository (7 in a small clone, 8 in CI's): ask git.
	short := git("rev-parse", "--short", "HEAD")
	if !strings.HasSuffix(meta.Version, "-SNAPSHOT-"+short) {
		t.Errorf("snapshot version %q does not end in -SNAPSHOT-%s", meta.Version, short)
	}
	v := meta.Version

	// checksums.txt: each line's file is there and has that checksum.
	sums := map[string]string{}
	f, err := os.Open(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("checksums.txt: bad line %q", sc.Text())
		}
		sums[name] = sum
		if got := fileSHA256(t, filepath.Join(dist, name)); got != sum {
			t.Errorf("checksums.txt says %s for %s, the file's is %s", sum, name, got)
		}
	}
	f.Close()

	readme, license := readFile(t, filepath.Join(root, "README.md")), readFile(t, filepath.Join(root, "LICENSE"))
	published := []string{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			ext, bin := ".tar.gz", "bua"
			if goos == "windows" {
				ext, bin = ".zip", "bua.exe"
			}
			name := fmt.Sprintf("bua_%s_%s_%s%s", v, goos, goarch, ext)
			published = append(published, name)
			entries := archiveEntries(t, filepath.Join(dist, name))
			if got := slices.Sorted(maps.Keys(entries)); !slices.Equal(got, []string{"LICENSE", "README.md", bin}) {
				t.Errorf("%s holds %q, want %s, README.md and LICENSE", name, got, bin)
				continue
			}
			if !bytes.Equal(entries["README.md"].data, readme) || !bytes.Equal(entries["LICENSE"].data, license) {
				t.Errorf("%s: README.md or LICENSE differs from the checkout's", name)
			}
			for n, e := range entries {
				if !e.mtime.Equal(commitTime) {
					t.Errorf("%s: %s is dated %v, want the commit's time %v", name, n, e.mtime, commitTime)
				}
			}
			if goos == "linux" && goarch == "amd64" {
				exe := filepath.Join(t.TempDir(), "bua")
				if err := os.WriteFile(exe, entries[bin].data, 0o755); err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(exe, "--version").Output()
				want := fmt.Sprintf("bua %s (commit %s, %s)\n", v, commit[:7], commitTime.UTC().Format(time.DateOnly))
				if err != nil || string(out) != want {
					t.Errorf("%s: bua --version printed %q (%v), want %q", name, out, err, want)
				}
			}
		}
	}

	// The deb and the rpm, for both CPUs: Debian's and RPM's names.
	debVersion := strings.Replace(v, "-", "~", 1)
	rpmVersion := strings.ReplaceAll(debVersion, "-", "_")
	for _, arch := range [][2]string{{"amd64", "x86_64"}, {"arm64", "aarch64"}} {
		deb := fmt.Sprintf("bua_%s_%s.deb", debVersion, arch[0])
		rpm := fmt.Sprintf("bua-%s-1.%s.rpm", rpmVersion, arch[1])
		published = append(published, deb, rpm)
		out, err := exec.Command("dpkg-deb", "-f", filepath.Join(dist, deb)).Output()
		if err != nil {
			t.Errorf("dpkg-deb -f %s: %v", deb, err)
			continue
		}
		control := string(out)
		for _, field := range []string{"Depends", "Pre-Depends", "Recommends"} {
			if regexp.MustCompile(`(?m)^` + field + `:`).MatchString(control) {
				t.Errorf("%s has a %s field; bua must install on its own:\n%s", deb, field, control)
			}
		}
		for _, want := range []string{"Package: bua\n", "Suggests: chromium\n", "Architecture: " + arch[0] + "\n", "Version: " + debVersion + "\n"} {
			if !strings.Contains(control, want) {
				t.Errorf("%s's control lacks %q:\n%s", deb, want, control)
			}
		}
		// No rpm(8) on Debian: the lead's magic, and the header names
		// chromium (the one weak dependency).
		data := readFile(t, filepath.Join(dist, rpm))
		if !bytes.HasPrefix(data, []byte{0xed, 0xab, 0xee, 0xdb}) || !bytes.Contains(data[:min(len(data), 1<<16)], []byte("chromium")) {
			t.Errorf("%s is not an rpm whose header names chromium", rpm)
		}
	}

	// The extension's zip for the stores: no "key".
	store := fmt.Sprintf("bua-extension_%s_store.zip", v)
	published = append(published, store)
	zr, err := zip.OpenReader(filepath.Join(dist, store))
	if err != nil {
		t.Fatal(err)
	}
	var manifest map[string]any
	for _, zf := range zr.File {
		if zf.Name == "manifest.json" {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			err = json.NewDecoder(rc).Decode(&manifest)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	zr.Close()
	if manifest == nil {
		t.Errorf("%s has no manifest.json at its root", store)
	} else if _, ok := manifest["key"]; ok || manifest["manifest_version"] != 3.0 {
		t.Errorf("%s's manifest: key present %v, manifest_version %v; want no key, 3", store, ok, manifest["manifest_version"])
	}

	if got, want := slices.Sorted(maps.Keys(sums)), slices.Sorted(slices.Values(published)); !slices.Equal(got, want) {
		t.Errorf("checksums.txt names %q, want what is published: %q", got, want)
	}

	// The package managers' files name the archives by URL and checksum.
	wantArchive := func(where, url, sum string) string {
		name := path.Base(url)
		if !strings.HasPrefix(url, "https://github.com/bua-dev/bua/releases/download/") {
			t.Errorf("%s: url %s is not the project's release download", where, url)
		}
		if sums[name] == "" || sums[name] != sum {
			t.Errorf("%s: %s with checksum %s; checksums.txt has %q", where, name, sum, sums[name])
		}
		return name
	}
	cask := string(readFile(t, filepath.Join(dist, "homebrew", "Casks", "bua.rb")))
	var caskArchives []string
	for _, m := range regexp.MustCompile(`sha256 "([0-9a-f]{64})"\s+url "([^"]+)"`).FindAllStringSubmatch(cask, -1) {
		caskArchives = append(caskArchives, wantArchive("homebrew cask", strings.ReplaceAll(m[2], "#{version}", v), m[1]))
	}
	if want := []string{published[0], published[1], published[2], published[3]}; !slices.Equal(slices.Sorted(slices.Values(caskArchives)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the cask names %q, want the linux and darwin archives %q", caskArchives, want)
	}

	var scoop struct {
		Version      string `json:"version"`
		Architecture map[string]struct {
			URL  string `json:"url"`
			Hash string `json:"hash"`
		} `json:"architecture"`
	}
	readJSON(t, filepath.Join(dist, "scoop", "bua.json"), &scoop)
	if scoop.Version != v || len(scoop.Architecture) != 2 ||
		wantArchive("scoop 64bit", scoop.Architecture["64bit"].URL, scoop.Architecture["64bit"].Hash) != published[4] ||
		wantArchive("scoop arm64", scoop.Architecture["arm64"].URL, scoop.Architecture["arm64"].Hash) != published[5] {
		t.Errorf("the scoop manifest: %+v, want version %s and the two windows archives", scoop, v)
	}

	installers, _ := filepath.Glob(filepath.Join(dist, "winget", "manifests", "b", "bua-dev", "bua", v, "bua-dev.bua.installer.yaml"))
	if len(installers) != 1 {
		t.Fatalf("no winget installer manifest for %s under dist/winget", v)
	}
	var winget struct {
		PackageVersion string `yaml:"PackageVersion"`
		Installers     []struct {
			Architecture    string `yaml:"Architecture"`
			InstallerURL    string `yaml:"InstallerUrl"`
			InstallerSha256 string `yaml:"InstallerSha256"`
		} `yaml:"Installers"`
	}
	if err := yaml.Unmarshal(readFile(t, installers[0]), &winget); err != nil {
		t.Fatal(err)
	}
	wingetArchives := map[string]string{}
	for _, in := range winget.Installers {
		wingetArchives[in.Architecture] = wantArchive("winget "+in.Architecture, in.InstallerURL, strings.ToLower(in.InstallerSha256))
	}
	if winget.PackageVersion != v || len(wingetArchives) != 2 || wingetArchives["x64"] != published[4] || wingetArchives["arm64"] != published[5] {
		t.Errorf("the winget manifest: version %q, installers %v; want %s and the two windows archives", winget.PackageVersion, wingetArchives, v)
	}

	// The npm packages scripts/release builds with npm/build.mjs: what
	// packages.json names is there, the launcher last.
	var packages []struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Tarball string `json:"tarball"`
	}
	readJSON(t, filepath.Join(dist, "npm", "packages.json"), &packages)
	if len(packages) != 7 {
		t.Errorf("dist/npm/packages.json names %d packages, want 6 platforms and the launcher", len(packages))
	}
	for _, p := range packages {
		if p.Version != v {
			t.Errorf("npm package %s is version %s, want %s", p.Name, p.Version, v)
		}
		if _, err := os.Stat(filepath.Join(dist, "npm", p.Tarball)); err != nil {
			t.Errorf("npm package %s: %v", p.Name, err)
		}
	}
}

// entry is an archive member's contents and time.
type entry struct {
	data  []byte
	mtime time.Time
}

// archiveEntries are the files of a .tar.gz or .zip, by name.
func archiveEntries(t *testing.T, file string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	if strings.HasSuffix(file, ".zip") {
		zr, err := zip.OpenReader(file)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name] = entry{data, f.Modified}
		}
		return out
	}
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = entry{data, h.ModTime}
	}
}

func readFile(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, file), v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func fileSHA256(t *testing.T, file string) string {
	t.Helper()
	return fmt.Sprintf("%x", sha256.Sum256(readFile(t, file)))
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestReleaseRefuses: scripts/release publishes only from the release
// workflow on a v* tag: on a laptop, in another workflow or for a branch
// it refuses (exit 2) and says to use --snapshot, before building
// anything. And a release without npm/build.mjs, which builds the npm
// packages, fails at once saying so rather than publishing less.
func TestReleaseRefuses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("scripts/release is a bash script, run on Linux")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") {
			base = append(base, kv)
		}
	}
	run := func(script string, env []string, args ...string) (int, string) {
		cmd := exec.Command(script, args...)
		cmd.Env = append(slices.Clone(base), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	script := filepath.Join(root, "scripts", "release")
	for _, env := range [][]string{
		nil, // a laptop
		{"GITHUB_ACTIONS=true", "GITHUB_REF_TYPE=tag", "GITHUB_WORKFLOW_REF=bua-dev/bua/.github/workflows/ci.yml@refs/tags/v1.0.0"},
		{"GITHUB_ACTIONS=true", "GITHUB_REF_TYPE=branch", "GITHUB_WORKFLOW_REF=bua-dev/bua/.github/workflows/release.yml@refs/heads/main"},
		{"GITHUB_ACTIONS=true", "GITHUB_REF_TYPE=tag", "GITHUB_WORKFLOW_REF=bua-dev/bua/.github/workflows/release.yml@refs/tags/nightly"},
	} {
		code, out := run(script, env)
		if code != 2 || !strings.Contains(out, "scripts/release --snapshot") {
			t.Errorf("scripts/release with %q: exit %d, %q; want exit 2 pointing at --snapshot", env, code, out)
		}
	}
	if code, out := run(script, nil, "--publish"); code != 2 || !strings.Contains(out, "unknown argument --publish") {
		t.Errorf("scripts/release --publish: exit %d, %q; want exit 2 naming the argument", code, out)
	}

	// A checkout without npm/: the script alone, in a folder of its own.
	bare := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bare, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(bare, "scripts", "release")
	if err := os.WriteFile(copied, readFile(t, script), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out := run(copied, nil, "--snapshot", "--skip-tools"); code != 1 || !strings.Contains(out, "npm/build.mjs is missing") {
		t.Errorf("scripts/release --snapshot without npm/build.mjs: exit %d, %q; want exit 1 saying npm/build.mjs is missing", code, out)
	}
}
