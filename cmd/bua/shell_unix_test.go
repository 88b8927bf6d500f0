//go:build !windows

package main

import (
	"os/exec"
	"slices"
	"testing"
)

// shells are sh, and bash and zsh where they are installed.
func shells(t *testing.T) []testShell {
	t.Helper()
	var out []testShell
	for _, name := range []string{"sh", "bash", "zsh"} {
		path, err := exec.LookPath(name)
		if err != nil {
			if name == "sh" {
				t.Fatal(err)
			}
			continue
		}
		out = append(out, testShell{name: name, command: func(line string) *exec.Cmd { return exec.Command(path, "-c", line) }})
	}
	return out
}

// TestShellWord_POSIX: a word as shellWord writes it reaches bua as it is
// through each POSIX shell; a word no shell reads specially stays bare.
func TestShellWord_POSIX(t *testing.T) {
	for word, want := range map[string]string{
		"flows/sign-in_2.yaml": "flows/sign-in_2.yaml",
		"http://a.test/login":  "http://a.test/login",
		"/tmp/sign in.yaml":    "'/tmp/sign in.yaml'",
		"it's":                 `'it'\''s'`,
		"":                     "''",
		`C:\flows\a.yaml`:      `'C:\flows\a.yaml'`,
	} {
		if got := shellWord(word); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", word, got, want)
		}
	}
	bin := fakeBua(t)
	words := append(slices.Clone(quotingCases), "", `a"b`, "$HOME", "a`b`", `a\b\`, `it's "x"`, "!x", "x\ny")
	for _, sh := range shells(t) {
		for _, w := range words {
			line := "bua " + shellWord(w)
			checkEchoed(t, sh.name, line, runInShell(t, bin, nil, sh.command(line)), []string{w}, nil)
		}
	}
}

// TestRunCommands_POSIX: the line a POSIX shell gets, as the person
// reads it.
func TestRunCommands_POSIX(t *testing.T) {
	for _, tc := range []struct {
		vars       []string
		file, want string
	}{
		{nil, "signin.yaml", "bua run signin.yaml"},
		{[]string{"BUA_PASSWORD", "BUA_CODE"}, "/tmp/sign in.yaml", "BUA_PASSWORD=... BUA_CODE=... bua run '/tmp/sign in.yaml'"},
	} {
		if got := runCommands(tc.vars, tc.file); !slices.Equal(got, []shellCommand{{line: tc.want}}) {
			t.Errorf("runCommands(%q, %q) = %v, want one line for every shell: %s", tc.vars, tc.file, got, tc.want)
		}
	}
}
