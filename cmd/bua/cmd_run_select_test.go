package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

// TestRunCommand_TagsAndList: --tag/--exclude-tag pick flows by their
// tags, --shard then splits what they kept, and --list prints the flows
// that would run without a browser.
func TestRunCommand_TagsAndList(t *testing.T) {
	dir := t.TempDir()
	writeFlow(t, dir, "a.yaml", "name: checkout smoke\ntags: [smoke, checkout]\nsteps:\n  - navigate: http://x.test/a\n")
	writeFlow(t, dir, "b.yaml", "name: search\ntags: [smoke, slow]\nsteps:\n  - navigate: http://x.test/b\n")
	writeFlow(t, dir, "c.yaml", "name: untagged\nsteps:\n  - navigate: http://x.test/c\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // stdout, exactly
	}{
		{"ListAll", []string{"--list", dir}, 0, "checkout smoke\tA\tsmoke,checkout\nsearch\tB\tsmoke,slow\nuntagged\tC\t\n"},
		{"ListTag", []string{"--list", "--tag", "smoke", dir}, 0, "checkout smoke\tA\tsmoke,checkout\nsearch\tB\tsmoke,slow\n"},
		{"ListTagExclude", []string{"--list", "--tag", "smoke", "--exclude-tag", "slow", dir}, 0, "checkout smoke\tA\tsmoke,checkout\n"},
		{"ListExcludeOnly", []string{"--list", "--exclude-tag", "checkout", dir}, 0, "search\tB\tsmoke,slow\nuntagged\tC\t\n"},
		{"ListCommaSeparated", []string{"--list", "--tag", "checkout,slow", dir}, 0, "checkout smoke\tA\tsmoke,checkout\nsearch\tB\tsmoke,slow\n"},
		{"ListShardAfterTags", []string{"--list", "--tag", "smoke", "--shard", "2/2", dir}, 0, "search\tB\tsmoke,slow\n"},
		{"NoMatch", []string{"--tag", "nope", dir}, 2, ""},
		{"BadTag", []string{"--tag", "has space", dir}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeDial := dialFake(nil, protocol.Errorf(protocol.CodeBridgeUnavailable, "--list must not connect"))
			r := runCLIDial(t, nil, nil, 0, fakeDial, "", append([]string{"run"}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			got := strings.NewReplacer(filepath.Join(dir, "a.yaml"), "A", filepath.Join(dir, "b.yaml"), "B", filepath.Join(dir, "c.yaml"), "C").Replace(r.stdout)
			if got != tc.want {
				t.Errorf("stdout\n--- got\n%s--- want\n%s", got, tc.want)
			}
			if tc.code == 2 && !strings.Contains(r.stderr, "tag") {
				t.Errorf("stderr does not say what was wrong: %s", r.stderr)
			}
		})
	}

	// --json lists [{name, file, tags}].
	r := runCLI(t, nil, "", "run", "--list", "--json", "--exclude-tag", "smoke", dir)
	var list []struct {
		Name string   `json:"name"`
		File string   `json:"file"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].Name != "untagged" || list[0].Tags == nil {
		t.Errorf("--list --json = %s (%v)", r.stdout, err)
	}

	// A run with --tag sends only the selected flows' actions.
	fake := runnertest.New()
	fakeDial := dialFake(fake, nil)
	if r := runCLIDial(t, nil, nil, 0, fakeDial, "", "run", "--tag", "checkout", dir); r.code != 0 || !strings.Contains(r.stdout, "1 passed, 0 failed") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].URL != "http://x.test/a" {
		t.Errorf("requests %+v, want only the checkout flow's navigate", reqs)
	}

	// A flow whose tags do not read is listed (the run would report it
	// invalid), its problem on stderr, and the exit is 2.
	writeFlow(t, dir, "d.yaml", "name: broken\ntags: smoke\nsteps:\n  - log: d\n")
	r = runCLIDial(t, nil, nil, 0, fakeDial, "", "run", "--list", "--tag", "smoke", dir)
	if r.code != 2 || !strings.Contains(r.stdout, "broken\t") || !strings.Contains(r.stderr, "d.yaml:2:7: tags: expected a list") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestRunCommand_Retries: --retries reruns a failed flow and counts it
// flaky when it then passes; --fail-on-flaky makes that a failure (exit 1)
// and the summary says so.
func TestRunCommand_Retries(t *testing.T) {
	dir := t.TempDir()
	f := writeFlow(t, dir, "flaky.yaml", "name: flaky\nsteps:\n  - click: \"#go\"\n")
	flaky := func() *runnertest.Fake {
		return runnertest.New().On(protocol.ActionClick, runnertest.Sequence(runnertest.Fail(protocol.CodeElementNotFound, "not yet"), runnertest.Result(map[string]any{"ok": true})))
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		golden string
		last   string
	}{
		{"NoRetries", nil, 1, "", "0 passed, 1 failed, 0 skipped"},
		{"Retries", []string{"--retries", "1"}, 0, "run_summary_flaky.txt", "1 passed (1 flaky), 0 failed, 0 skipped"},
		{"FailOnFlaky", []string{"--retries", "2", "--fail-on-flaky"}, 1, "run_summary_fail_on_flaky.txt", "0 passed, 1 failed (1 flaky), 0 skipped"},
		{"NegativeRetries", []string{"--retries", "-1"}, 2, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeDial := dialFake(flaky(), nil)
			r := runCLIDial(t, nil, nil, 0, fakeDial, "", append([]string{"run", "--quiet", f}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.last) {
				t.Fatalf("exit %d, want %d with %q\n%s\n%s", r.code, tc.code, tc.last, r.stdout, r.stderr)
			}
			if tc.golden != "" {
				golden(t, tc.golden, strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), ""))
			}
		})
	}
}
