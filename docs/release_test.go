package docs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/internal/devbuild"
	"github.com/bua-dev/bua/internal/wine"
)

// releaseWorkflow is .github/workflows/release.yml, which publishes a
// release on a v* tag (docs/release.md).
const releaseWorkflow = "../.github/workflows/release.yml"

// TestReleaseWorkflow_Actionlint: the release workflow passes the pinned
// actionlint, and a copy with a job that needs a job that is not there
// does not: a release workflow is run for real only on a tag, so the
// linter is the one check it gets before then.
func TestReleaseWorkflow_Actionlint(t *testing.T) {
	actionlint, err := devbuild.Tool("..", "actionlint")
	if err != nil && wine.Detected() {
		t.Skip("no tools under Wine: the Linux run lints the workflow")
	}
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(releaseWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(src), "needs: [release]", "needs: [relaese]", 1)
	if planted == string(src) {
		t.Fatal("the image job no longer says needs: [release]: plant another mistake")
	}
	bad := filepath.Join(t.TempDir(), "release.yml")
	if err := os.WriteFile(bad, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	lint := func(file string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, actionlint, "-oneline", "-shellcheck=", "-pyflakes=", file).CombinedOutput()
		return string(out), err
	}
	if out, err := lint(releaseWorkflow); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("actionlint %s: %v\n%s", releaseWorkflow, err, out)
	}
	out, err := lint(bad)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "relaese") {
		t.Errorf("actionlint on a release workflow whose job needs a missing one: %v\n%s\nwant exit 1 naming relaese", err, out)
	}
}

// TestReleaseWorkflow_Steps: the workflow runs on v* tags only; it builds
// and publishes through scripts/release (the script a maintainer runs
// with --snapshot, so the two cannot drift); it publishes every npm
// package with provenance, in packages.json's order; it builds the image
// from the repository's Dockerfile with the release's binaries and pushes
// it to GHCR; and each job has the permissions its publishing needs and
// no more (the workflow's default is read-only).
func TestReleaseWorkflow_Steps(t *testing.T) {
	type step struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	}
	var wf struct {
		On struct {
			Push struct {
				Tags     []string `yaml:"tags"`
				Branches []string `yaml:"branches"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Needs       []string          `yaml:"needs"`
			Permissions map[string]string `yaml:"permissions"`
			Steps       []step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	src, err := os.ReadFile(releaseWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(src, &wf); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wf.On.Push.Tags, []string{"v*"}) || len(wf.On.Push.Branches) > 0 {
		t.Errorf("the release runs on push tags %q branches %q, want tags v* only", wf.On.Push.Tags, wf.On.Push.Branches)
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "read" {
		t.Errorf("the workflow's default permissions are %v, want contents: read only", wf.Permissions)
	}
	for job, want := range map[string]map[string]string{
		"release": {"contents": "write", "id-token": "write"},
		"image":   {"contents": "read", "packages": "write"},
	} {
		j, ok := wf.Jobs[job]
		if !ok {
			t.Errorf("no job %s", job)
			continue
		}
		if len(j.Permissions) != len(want) {
			t.Errorf("job %s has permissions %v, want %v", job, j.Permissions, want)
		}
		for k, v := range want {
			if j.Permissions[k] != v {
				t.Errorf("job %s: permission %s is %q, want %q", job, k, j.Permissions[k], v)
			}
		}
	}

	runs := func(job string) string {
		var b strings.Builder
		for _, s := range wf.Jobs[job].Steps {
			b.WriteString(s.Run + "\n")
		}
		return b.String()
	}
	release := runs("release")
	if !slices.ContainsFunc(wf.Jobs["release"].Steps, func(s step) bool { return strings.TrimSpace(s.Run) == "scripts/release" }) {
		t.Error("the release job does not run scripts/release (without --snapshot) as a step of its own")
	}
	for _, want := range []string{"npm publish --provenance --access public", "dist/npm/packages.json"} {
		if !strings.Contains(release, want) {
			t.Errorf("the release job's steps do not say %q", want)
		}
	}
	if !slices.Contains(wf.Jobs["image"].Needs, "release") {
		t.Error("the image job does not wait for the release: it takes the release's binaries")
	}
	var build *step
	for i, s := range wf.Jobs["image"].Steps {
		if strings.HasPrefix(s.Uses, "docker/build-push-action@") {
			build = &wf.Jobs["image"].Steps[i]
		}
	}
	if build == nil {
		t.Fatal("the image job has no docker/build-push-action step")
	}
	if build.With["file"] != "Dockerfile" || build.With["push"] != "true" || build.With["build-args"] != "BUA_BINARY=prebuilt" ||
		build.With["platforms"] != "linux/amd64,linux/arm64" {
		t.Errorf("the image build: %v; want the repository's Dockerfile, its prebuilt binaries, both CPUs, pushed", build.With)
	}
	if !strings.Contains(string(src), "registry: ghcr.io") || !strings.Contains(string(src), "images: ghcr.io/") {
		t.Error("the image is not pushed to GHCR")
	}
	script, err := os.ReadFile("../scripts/release")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "/.github/workflows/release.yml@refs/tags/v") {
		t.Error("scripts/release does not hold a real release to this workflow on a tag")
	}
}
