package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/bua-dev/bua/internal/devbuild"
	"github.com/bua-dev/bua/internal/wine"
)

// docs/ci.md's CI examples (GitHub Actions and GitLab CI, on the runner
// and in bua's container image, and a Kubernetes Indexed Job) are files
// that users copy, so they are checked as code: the workflows by
// actionlint, all by a YAML parse, and every bua command in them by the
// real CLI's flag parsing, with the paths the shards upload matched
// against what the merge reads.

const (
	githubWorkflow          = "../../docs/ci/github-actions.yml"
	gitlabPipeline          = "../../docs/ci/gitlab-ci.yml"
	githubContainerWorkflow = "../../docs/ci/github-actions-container.yml"
	gitlabContainerPipeline = "../../docs/ci/gitlab-ci-container.yml"
	kubernetesManifest      = "../../docs/ci/kubernetes.yaml"
)

// The examples of each CI system: on the runner, and in bua's image.
var (
	githubWorkflows = []string{githubWorkflow, githubContainerWorkflow}
	gitlabPipelines = []string{gitlabPipeline, gitlabContainerPipeline}
)

// TestCIDocs_Mirrored: docs/ci.md shows each example file whole, so what
// a reader copies from the page is what the tests check.
func TestCIDocs_Mirrored(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{githubWorkflow, gitlabPipeline, githubContainerWorkflow, gitlabContainerPipeline, kubernetesManifest} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(b)+"```\n") {
			t.Errorf("docs/ci.md does not show %s as it is: copy the file into its yaml block", filepath.Base(file))
		}
	}
}

// TestCIDocs_Actionlint runs actionlint on the GitHub Actions workflows
// (shellcheck and pyflakes off: they are not on every machine, so the
// result would depend on it), and on a copy with a mistake, which it must
// report: a linter that finds nothing proves nothing.
func TestCIDocs_Actionlint(t *testing.T) {
	actionlint := needActionlint(t)
	good, err := filepath.Abs(githubWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "broken.yml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(src), "needs: flows", "needs: flowz", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lint := func(file string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, actionlint, "-oneline", "-shellcheck=", "-pyflakes=", file).CombinedOutput()
		return string(out), err
	}
	for _, file := range githubWorkflows {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := lint(abs); err != nil || strings.TrimSpace(out) != "" {
			t.Errorf("actionlint %s: %v\n%s", file, err, out)
		}
	}
	out, err := lint(bad)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, `"flowz"`) {
		t.Errorf("actionlint on a workflow that needs a job it lacks: %v\n%s\nwant exit 1 naming flowz", err, out)
	}
}

// needActionlint is the pinned actionlint (tools/go.mod) that scripts/tools
// installed, or the test fails saying to install it: no test fetches a
// tool. Under Wine, where the Windows test binary runs without the tools,
// the test skips: the Linux run and the Windows runner of
// .github/workflows/ci.yml lint the same file.
func needActionlint(t *testing.T) string {
	t.Helper()
	p, err := devbuild.Tool("../..", "actionlint")
	if err != nil && wine.Detected() {
		t.Skip("no tools under Wine: the Linux run and the Windows runner of .github/workflows/ci.yml run actionlint")
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ghWorkflow is the part of a GitHub Actions workflow the checks read.
type ghWorkflow struct {
	Jobs map[string]struct {
		Needs     any    `yaml:"needs"`
		If        string `yaml:"if"`
		Container struct {
			Image   string `yaml:"image"`
			Options string `yaml:"options"`
		} `yaml:"container"`
		Strategy struct {
			FailFast *bool `yaml:"fail-fast"`
			Matrix   struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type ghStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

// TestCIDocs_GitHubActions: the matrix runs shards 1..N of N with every
// bua flag valid, each shard uploads its report and artifacts even when it
// failed, and the merge job (after the matrix, even when it failed)
// downloads them to where its `bua report merge` glob finds every report,
// each beside its artifacts, and writes all three report kinds. In bua's
// image, the shards run as a user other than root, so that Chromium's
// sandbox stays on, with a seccomp profile that lets it start.
func TestCIDocs_GitHubActions(t *testing.T) {
	for _, file := range githubWorkflows {
		t.Run(filepath.Base(file), func(t *testing.T) { checkGitHubWorkflow(t, file) })
	}
}

func checkGitHubWorkflow(t *testing.T, file string) {
	var wf ghWorkflow
	readYAML(t, file, &wf)
	flows, report := wf.Jobs["flows"], wf.Jobs["report"]
	if file == githubContainerWorkflow {
		for name, job := range map[string]string{"flows": flows.Container.Image, "report": report.Container.Image} {
			if job == "" {
				t.Errorf("the %s job runs in no container image", name)
			}
		}
		checkContainerOptions(t, flows.Container.Options)
	}
	shards := flows.Strategy.Matrix.Shard
	n := len(shards)
	for i, s := range shards {
		if s != i+1 {
			t.Fatalf("matrix shard %v: want 1 to N", shards)
		}
	}
	if n < 2 || flows.Strategy.FailFast == nil || *flows.Strategy.FailFast {
		t.Errorf("matrix of %d shards, fail-fast %v: want several, and fail-fast false", n, flows.Strategy.FailFast)
	}
	runs := func(name string, steps []ghStep, sub func(string) string) [][]string {
		var out [][]string
		for _, st := range steps {
			out = append(out, buaCommands(t, sub(st.Run))...)
		}
		return out
	}
	var uploads []string // what each shard's job uploads, as download-artifact lays it out
	for i := 1; i <= n; i++ {
		sub := func(s string) string { return strings.ReplaceAll(s, "${{ matrix.shard }}", fmt.Sprint(i)) }
		cmds := runs("flows", flows.Steps, sub)
		if len(cmds) != 1 {
			t.Fatalf("shard %d runs %d bua commands, want one bua run: %q", i, len(cmds), cmds)
		}
		c := parseCLI(t, cmds[0], "run")
		if got, want := c.String("shard"), fmt.Sprintf("%d/%d", i, n); got != want {
			t.Errorf("shard %d runs --shard %s, want %s", i, got, want)
		}
		reportFile, art := reportOf(t, c, "json"), c.String("artifacts")
		if reportFile == "" || art == "" || filepath.IsAbs(art) {
			t.Fatalf("shard %d: --report json=%q --artifacts %q: want a JSON report and a relative artifacts folder", i, reportFile, art)
		}
		up := stepUsing(t, flows.Steps, "actions/upload-artifact@")
		if !strings.Contains(up.If, "!cancelled()") && !strings.Contains(up.If, "always()") {
			t.Errorf("the shard's upload runs if %q: want it also after a failed run (!cancelled())", up.If)
		}
		paths := strings.Fields(sub(up.With["path"]))
		if !contains(paths, reportFile) || !contains(paths, art+"/") {
			t.Errorf("shard %d uploads %q, want %s and %s/ (the report beside its artifacts)", i, paths, reportFile, art)
		}
		uploads = append(uploads, sub(up.With["name"])+":"+reportFile)
	}

	if needs := fmt.Sprint(report.Needs); needs != "flows" && needs != "[flows]" {
		t.Errorf("the merge job needs %v, want the flows matrix", report.Needs)
	}
	if !strings.Contains(report.If, "!cancelled()") && !strings.Contains(report.If, "always()") {
		t.Errorf("the merge job runs if %q: want it also when a shard failed", report.If)
	}
	down := stepUsing(t, report.Steps, "actions/download-artifact@")
	if down.With["merge-multiple"] != "true" {
		t.Fatalf("download-artifact with merge-multiple %q: the checks below assume true (every upload's files in one folder)", down.With["merge-multiple"])
	}
	cmds := runs("report", report.Steps, func(s string) string { return s })
	if len(cmds) != 1 {
		t.Fatalf("the merge job runs %q, want one bua report merge", cmds)
	}
	c := parseCLI(t, cmds[0], "report", "merge")
	for _, kind := range []string{"junit", "json", "html"} {
		if reportOf(t, c, kind) == "" {
			t.Errorf("the merge writes no %s report", kind)
		}
	}
	for _, u := range uploads {
		name, file, _ := strings.Cut(u, ":")
		if ok, _ := path.Match(down.With["pattern"], name); !ok {
			t.Errorf("the merge job downloads %q, which does not match the upload %s", down.With["pattern"], name)
		}
		if !matchesAny(c.Args().Slice(), path.Join(down.With["path"], file)) {
			t.Errorf("bua report merge %q does not read %s", c.Args().Slice(), path.Join(down.With["path"], file))
		}
	}
	up := report.Steps[len(report.Steps)-1]
	if !strings.HasPrefix(up.Uses, "actions/upload-artifact@") || !strings.Contains(up.With["path"], "merged/") {
		t.Errorf("the merge job's last step %+v: want the merged report uploaded", up)
	}
}

// checkContainerOptions: the docker options of a job that runs flows in
// bua's image run them as a user other than root (bua would turn
// Chromium's sandbox off) and give the sandbox a seccomp profile that
// allows user namespaces (Docker's default does not).
func checkContainerOptions(t *testing.T, options string) {
	t.Helper()
	opts := strings.Fields(options)
	user := ""
	for i, o := range opts {
		if o == "--user" && i+1 < len(opts) {
			user = opts[i+1]
		}
	}
	if name, _, _ := strings.Cut(user, ":"); name == "" || name == "0" || name == "root" {
		t.Errorf("the flows run in the image with options %q: want --user of a user other than root, so that Chromium's sandbox stays on", options)
	}
	if !strings.Contains(options, "--security-opt seccomp=") {
		t.Errorf("the flows run in the image with options %q: want a --security-opt seccomp= that lets Chromium's sandbox create user namespaces", options)
	}
}

// TestCIDocs_GitLab: the same checks for the GitLab pipelines: `parallel: N`
// jobs run --shard ${CI_NODE_INDEX}/${CI_NODE_TOTAL}, keep their report
// and artifacts always, and the merge job needs them, runs always and
// reads every report. In bua's image, both jobs run in it.
func TestCIDocs_GitLab(t *testing.T) {
	for _, file := range gitlabPipelines {
		t.Run(filepath.Base(file), func(t *testing.T) { checkGitLabPipeline(t, file) })
	}
}

func checkGitLabPipeline(t *testing.T, file string) {
	type job struct {
		Image     any      `yaml:"image"`
		Extends   string   `yaml:"extends"`
		Parallel  int      `yaml:"parallel"`
		Needs     []string `yaml:"needs"`
		When      string   `yaml:"when"`
		Script    []string `yaml:"script"`
		Artifacts struct {
			When    string            `yaml:"when"`
			Paths   []string          `yaml:"paths"`
			Reports map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	var p map[string]yaml.Node
	readYAML(t, file, &p)
	var decode func(name string) job
	decode = func(name string) job {
		var j job
		node, ok := p[name]
		if !ok {
			t.Fatalf("%s has no job %s", file, name)
		}
		if err := node.Decode(&j); err != nil {
			t.Fatal(err)
		}
		if j.Image == nil && j.Extends != "" {
			j.Image = decode(j.Extends).Image
		}
		return j
	}
	flows, report := decode("flows"), decode("report")
	if file == gitlabContainerPipeline && (flows.Image == nil || report.Image == nil) {
		t.Errorf("the jobs run in images %v and %v: want bua's image for both", flows.Image, report.Image)
	}
	n := flows.Parallel
	if n < 2 {
		t.Fatalf("flows has parallel %d, want several jobs", n)
	}
	var files []string
	for i := 1; i <= n; i++ {
		sub := strings.NewReplacer("${CI_NODE_INDEX}", fmt.Sprint(i), "${CI_NODE_TOTAL}", fmt.Sprint(n))
		var cmds [][]string
		for _, line := range flows.Script {
			cmds = append(cmds, buaCommands(t, sub.Replace(line))...)
		}
		if len(cmds) != 1 {
			t.Fatalf("job %d/%d runs %q, want one bua run", i, n, cmds)
		}
		c := parseCLI(t, cmds[0], "run")
		if got, want := c.String("shard"), fmt.Sprintf("%d/%d", i, n); got != want {
			t.Errorf("job %d/%d runs --shard %s, want %s", i, n, got, want)
		}
		file, art := reportOf(t, c, "json"), c.String("artifacts")
		if !matchesAny(flows.Artifacts.Paths, file) || !matchesAny(flows.Artifacts.Paths, art+"/") || flows.Artifacts.When != "always" {
			t.Errorf("job %d/%d keeps %q (when %s), want %s and %s/ always", i, n, flows.Artifacts.Paths, flows.Artifacts.When, file, art)
		}
		files = append(files, file)
	}
	if !contains(report.Needs, "flows") || report.When != "always" {
		t.Errorf("the merge job needs %q, when %q: want flows, always", report.Needs, report.When)
	}
	var cmds [][]string
	for _, line := range report.Script {
		cmds = append(cmds, buaCommands(t, line)...)
	}
	if len(cmds) != 1 {
		t.Fatalf("the merge job runs %q, want one bua report merge", cmds)
	}
	c := parseCLI(t, cmds[0], "report", "merge")
	for _, f := range files {
		if !matchesAny(c.Args().Slice(), f) {
			t.Errorf("bua report merge %q does not read %s", c.Args().Slice(), f)
		}
	}
	if junit := reportOf(t, c, "junit"); junit == "" || report.Artifacts.Reports["junit"] != junit {
		t.Errorf("the merge writes junit %q and GitLab reads %q: want the same file", junit, report.Artifacts.Reports["junit"])
	}
}

// k8sObject is the part of a Kubernetes object the checks read: a
// PersistentVolumeClaim or a Job.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		AccessModes          []string `yaml:"accessModes"`
		CompletionMode       string   `yaml:"completionMode"`
		Completions          int      `yaml:"completions"`
		Parallelism          int      `yaml:"parallelism"`
		BackoffLimitPerIndex *int     `yaml:"backoffLimitPerIndex"`
		Suspend              bool     `yaml:"suspend"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy   string `yaml:"restartPolicy"`
				SecurityContext struct {
					RunAsNonRoot   bool `yaml:"runAsNonRoot"`
					RunAsUser      *int `yaml:"runAsUser"`
					SeccompProfile struct {
						Type string `yaml:"type"`
					} `yaml:"seccompProfile"`
				} `yaml:"securityContext"`
				Containers []struct {
					Name            string   `yaml:"name"`
					Image           string   `yaml:"image"`
					WorkingDir      string   `yaml:"workingDir"`
					Command         []string `yaml:"command"`
					Args            []string `yaml:"args"`
					SecurityContext struct {
						AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
					} `yaml:"securityContext"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestCIDocs_Kubernetes: an Indexed Job runs shards 1..N of N (its
// JOB_COMPLETION_INDEX plus one) in pods that run bua's image as a user
// other than root, with a seccomp profile that lets Chromium's sandbox
// start, each index on its own (one failing does not stop the others),
// and write their reports and artifacts to a volume shared by every node
// (ReadWriteMany); a second Job, suspended until the shards are done,
// mounts that volume where the shards did and merges every report into
// the three kinds. Every bua command is parsed by the real CLI.
func TestCIDocs_Kubernetes(t *testing.T) {
	f, err := os.Open(kubernetesManifest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var shards, merge *k8sObject
	claims := map[string]k8sObject{}
	for dec := yaml.NewDecoder(f); ; {
		var o k8sObject
		if err := dec.Decode(&o); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", kubernetesManifest, err)
		}
		switch {
		case o.Kind == "PersistentVolumeClaim":
			claims[o.Metadata.Name] = o
		case o.Kind == "Job" && o.Spec.CompletionMode == "Indexed":
			shards = &o
		case o.Kind == "Job":
			merge = &o
		}
	}
	if shards == nil || merge == nil {
		t.Fatalf("%s: want an Indexed Job of shards and a Job that merges", kubernetesManifest)
	}

	// commands are the container's bua commands: its args, or the script
	// of `sh -c`, with the index stood in for by sub. The container sets
	// no command, so the image's entrypoint (tini) stays PID 1.
	commands := func(job *k8sObject, sub *strings.Replacer) ([][]string, string) {
		t.Helper()
		spec := job.Spec.Template.Spec
		if len(spec.Containers) != 1 {
			t.Fatalf("job %s has %d containers, want 1", job.Metadata.Name, len(spec.Containers))
		}
		c := spec.Containers[0]
		if len(c.Command) != 0 {
			t.Errorf("job %s's container sets command %q, which replaces the image's entrypoint (tini): set args only", job.Metadata.Name, c.Command)
		}
		if c.WorkingDir == "" {
			t.Errorf("job %s's container sets no workingDir: the paths below are relative to it", job.Metadata.Name)
		}
		args := c.Args
		switch {
		case len(args) > 0 && args[0] == "bua":
			return [][]string{args[1:]}, c.WorkingDir
		case len(args) == 3 && args[0] == "sh" && args[1] == "-c":
			return buaCommands(t, sub.Replace(args[2])), c.WorkingDir
		}
		t.Fatalf("job %s's container runs %q: want bua ... or sh -c SCRIPT", job.Metadata.Name, args)
		return nil, ""
	}
	// onVolume is the claim a path of the job's container is on, and
	// whether it is one.
	onVolume := func(job *k8sObject, p string) (string, bool) {
		spec := job.Spec.Template.Spec
		for _, m := range spec.Containers[0].VolumeMounts {
			if p != m.MountPath && !strings.HasPrefix(p, m.MountPath+"/") {
				continue
			}
			for _, v := range spec.Volumes {
				if v.Name == m.Name && v.PersistentVolumeClaim.ClaimName != "" {
					return v.PersistentVolumeClaim.ClaimName, true
				}
			}
		}
		return "", false
	}

	n := shards.Spec.Completions
	if n < 2 || shards.Spec.Parallelism != n {
		t.Errorf("the shards' Job has completions %d, parallelism %d: want several, all at once", n, shards.Spec.Parallelism)
	}
	if shards.Spec.BackoffLimitPerIndex == nil {
		t.Error("the shards' Job has no backoffLimitPerIndex: a failing shard would count against the whole Job's backoffLimit, and once it is reached Kubernetes ends the other shards")
	}
	final := false // bua run's exit 1 (a flow failed) ends the index, no rerun
	for _, r := range shards.Spec.PodFailurePolicy.Rules {
		if r.Action == "FailIndex" && r.OnExitCodes.Operator == "In" && slices.Contains(r.OnExitCodes.Values, 1) {
			final = true
		}
	}
	if !final {
		t.Error("the shards' Job reruns a shard whose flows failed (exit 1): want a podFailurePolicy rule FailIndex on exit code 1")
	}
	pod := shards.Spec.Template.Spec
	sc := pod.SecurityContext
	if pod.RestartPolicy != "Never" || !sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		user := "unset"
		if sc.RunAsUser != nil {
			user = fmt.Sprint(*sc.RunAsUser)
		}
		t.Errorf("the shards' pods: restartPolicy %q, runAsNonRoot %v, runAsUser %s: want Never, and a user other than root (bua would turn Chromium's sandbox off)", pod.RestartPolicy, sc.RunAsNonRoot, user)
	}
	if typ := sc.SeccompProfile.Type; typ != "Localhost" && typ != "Unconfined" {
		t.Errorf("the shards' pods have seccomp profile %q: the runtime's default refuses the user namespaces of Chromium's sandbox: want Localhost (Chrome's profile) or Unconfined", typ)
	}
	if ape := pod.Containers[0].SecurityContext.AllowPrivilegeEscalation; ape == nil || *ape {
		t.Error("the shards' container may escalate privileges: Chromium's sandbox needs no setuid, so set allowPrivilegeEscalation: false")
	}
	var reports []string // each shard's report, as an absolute path in its pod
	for i := 1; i <= n; i++ {
		cmds, wd := commands(shards, strings.NewReplacer("$((JOB_COMPLETION_INDEX+1))", fmt.Sprint(i)))
		if len(cmds) != 1 {
			t.Fatalf("shard %d runs %q, want one bua run", i, cmds)
		}
		c := parseCLI(t, cmds[0], "run")
		if got, want := c.String("shard"), fmt.Sprintf("%d/%d", i, n); got != want {
			t.Errorf("index %d runs --shard %s, want %s (JOB_COMPLETION_INDEX counts from 0)", i-1, got, want)
		}
		file, art := reportOf(t, c, "json"), c.String("artifacts")
		if file == "" || art == "" || path.IsAbs(art) {
			t.Fatalf("shard %d: --report json=%q --artifacts %q: want a JSON report and a relative artifacts folder", i, file, art)
		}
		for _, p := range []string{file, art} {
			claim, ok := onVolume(shards, path.Join(wd, p))
			if !ok || !slices.Contains(claims[claim].Spec.AccessModes, "ReadWriteMany") {
				t.Errorf("shard %d writes %s, which is on no volume that every node's pods can write (a PersistentVolumeClaim with ReadWriteMany)", i, path.Join(wd, p))
			}
		}
		reports = append(reports, path.Join(wd, file))
	}

	if !merge.Spec.Suspend {
		t.Error("the merge Job is not suspended: it would merge before the shards wrote their reports")
	}
	cmds, wd := commands(merge, strings.NewReplacer())
	if len(cmds) != 1 {
		t.Fatalf("the merge Job runs %q, want one bua report merge", cmds)
	}
	c := parseCLI(t, cmds[0], "report", "merge")
	var globs []string
	for _, a := range c.Args().Slice() {
		globs = append(globs, path.Join(wd, a))
	}
	for _, r := range reports {
		if !matchesAny(globs, r) {
			t.Errorf("bua report merge %q (in %s) does not read %s", c.Args().Slice(), wd, r)
		}
		shardClaim, _ := onVolume(shards, r)
		if claim, ok := onVolume(merge, r); !ok || claim != shardClaim {
			t.Errorf("the merge Job does not mount the shards' volume %s where they wrote %s", shardClaim, r)
		}
	}
	for _, kind := range []string{"junit", "json", "html"} {
		out := reportOf(t, c, kind)
		if out == "" {
			t.Errorf("the merge writes no %s report", kind)
		} else if _, ok := onVolume(merge, path.Join(wd, out)); !ok {
			t.Errorf("the merge writes %s inside its pod only, not on the volume", out)
		}
	}
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// buaCommands are the bua commands of a shell script, split into words:
// each line, and each part of a line between && or ;, that starts with
// "bua". A ${...} left in one (an expression the test did not stand in
// for) fails the test.
func buaCommands(t *testing.T, script string) [][]string {
	t.Helper()
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		for _, part := range strings.FieldsFunc(strings.ReplaceAll(line, "&&", ";"), func(r rune) bool { return r == ';' }) {
			words := shellWords(part)
			if len(words) == 0 || words[0] != "bua" {
				continue
			}
			if strings.Contains(part, "${") {
				t.Fatalf("%q: an expression the check cannot stand in for", part)
			}
			out = append(out, words[1:])
		}
	}
	return out
}

// shellWords splits s on blanks, with '...' and "..." quoting.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// parseCLI parses args as bua does and returns the context of the command
// path names (run; report merge), as `bua` reads its words (flags after
// the arguments too), after the checks its real action makes first
// (--shard, --report): an unknown flag or a bad value fails the test.
// Nothing runs.
func parseCLI(t *testing.T, args []string, path ...string) *cli.Context {
	t.Helper()
	if len(args) < len(path) || strings.Join(args[:len(path)], " ") != strings.Join(path, " ") {
		t.Fatalf("bua %q: want bua %s", args, strings.Join(path, " "))
	}
	env, _, _ := testEnv()
	app := newApp(env, nil)
	cmds := app.Commands
	var cmd *cli.Command
	for _, name := range path {
		cmd = nil
		for _, c := range cmds {
			if c.Name == name {
				cmd = c
			}
		}
		if cmd == nil {
			t.Fatalf("bua has no command %s", strings.Join(path, " "))
		}
		cmds = cmd.Subcommands
	}
	var got *cli.Context
	cmd.Action = func(c *cli.Context) error {
		got = c
		if s := c.String("shard"); s != "" {
			if _, _, err := parseShard(s); err != nil {
				return err
			}
		}
		_, err := parseReports(c.StringSlice("report"))
		return err
	}
	if err := app.Run(reorderArgs(app, append([]string{"bua"}, args...))); err != nil || got == nil {
		t.Fatalf("bua %s: %v", strings.Join(args, " "), err)
	}
	return got
}

// reportOf is the FILE of the command's --report KIND=FILE.
func reportOf(t *testing.T, c *cli.Context, kind string) string {
	t.Helper()
	reports, err := parseReports(c.StringSlice("report"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if r[0] == kind {
			return r[1]
		}
	}
	return ""
}

// stepUsing is the first step that uses the action prefix names.
func stepUsing(t *testing.T, steps []ghStep, prefix string) ghStep {
	t.Helper()
	for _, st := range steps {
		if strings.HasPrefix(st.Uses, prefix) {
			return st
		}
	}
	t.Fatalf("no step uses %s", prefix)
	return ghStep{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matchesAny reports whether a glob among patterns (or a plain path)
// matches name.
func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
