package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompletionProtocol runs the built binary the way the bash and zsh
// scripts from `bua completion` do: the words typed so far plus
// --generate-bash-completion, expecting one candidate per line.
func TestCompletionProtocol(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--generate-bash-completion"}, []string{"click", "extract", "doctor", "browser", "run"}},
		{[]string{"browser", "--generate-bash-completion"}, []string{"start", "stop"}},
		{[]string{"extension", "--generate-bash-completion"}, []string{"path", "id"}},
		// A flag being typed: the command's flags, the global ones too,
		// wherever the positionals stand.
		{[]string{"click", "--f", "--generate-bash-completion"}, []string{"--force", "--frame"}},
		{[]string{"click", "e3", "--f", "--generate-bash-completion"}, []string{"--force", "--frame"}},
		{[]string{"eval", "-", "--generate-bash-completion"}, []string{"--tab", "--json", "--timeout"}},
		{[]string{"--j", "--generate-bash-completion"}, []string{"--json"}},
		// After a flag that takes one of a fixed set: the set.
		{[]string{"navigate", "--wait-until", "--generate-bash-completion"}, []string{"commit", "domcontentloaded", "load", "networkidle"}},
		{[]string{"click", "--role", "--generate-bash-completion"}, []string{"button", "link", "textbox"}},
	} {
		out, code := bua(ctx, tt.args...)
		if code != 0 {
			t.Fatalf("%q: exit %d", tt.args, code)
		}
		lines := "\n" + out
		for _, w := range tt.want {
			if !strings.Contains(lines, "\n"+w+"\n") {
				t.Errorf("%q: no candidate %q in:\n%s", tt.args, w, out)
			}
		}
	}
}

// TestCompletionBash sources `bua completion bash` in a real bash and
// completes as the shell would on Tab: commands, subcommands, a command's
// flags once the word typed starts with "-", and after a flag that takes
// one of a fixed set (--wait-until, --role, --state), that set.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is not on PATH: %v", err)
	}
	for _, tt := range []struct {
		words string // COMP_WORDS, the last being completed
		want  []string
		not   []string
	}{
		{"bua cl", []string{"click", "close"}, []string{"extract"}},
		{"bua browser st", []string{"start", "stop"}, nil},
		{"bua click --f", []string{"--force", "--frame"}, []string{"--tab"}},
		{"bua click e3 --t", []string{"--tab", "--timeout"}, []string{"--force"}},
		{"bua extract --", []string{"--selector", "--max-elements", "--json"}, []string{"--force"}},
		// A flag's values, from the protocol's lists.
		{"bua navigate --wait-until ", []string{"commit", "domcontentloaded", "load", "networkidle"}, []string{"--tab"}},
		{"bua open https://a.test --wait-until d", []string{"domcontentloaded"}, []string{"load"}},
		{"bua click --role ", []string{"button", "link", "textbox", "checkbox"}, []string{"--force"}},
		{"bua click --role bu", []string{"button"}, []string{"link"}},
		{"bua wait-for --state ", []string{"visible", "attached", "hidden", "detached"}, nil},
		{"bua click e3 --button r", []string{"right"}, []string{"left"}},
		{"bua --dialogs ", []string{"accept", "dismiss", "leave"}, nil},
	} {
		script := `eval "$(bua completion bash)"
COMP_WORDS=(` + tt.words + `)
[[ "` + tt.words + `" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_bua_complete
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "-c", script)
		cmd.Env = append(buaEnv, "PATH="+filepath.Dir(buaBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", tt.words, err)
		}
		got := "\n" + string(out)
		for _, w := range tt.want {
			if !strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: no candidate %q in:\n%s", tt.words, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: candidate %q offered:\n%s", tt.words, w, out)
			}
		}
	}
}

// TestCompletionPowerShell loads `bua completion powershell` into pwsh and
// completes through TabExpansion2, which is what PowerShell runs on Tab:
// the same cases as bash. Debian packages no PowerShell, so it skips
// where pwsh is not on PATH; cmd/bua's TestCompletion checks the script's
// text there.
func TestCompletionPowerShell(t *testing.T) {
	pwsh, err := exec.LookPath("pwsh")
	if err != nil {
		t.Skipf("pwsh is not on PATH (%v): the PowerShell completion is not run here", err)
	}
	for _, tt := range []struct {
		line string // typed so far, the cursor at its end
		want []string
		not  []string
	}{
		{"bua cl", []string{"click", "close"}, []string{"extract"}},
		{"bua browser st", []string{"start", "stop"}, nil},
		{"bua browser ", []string{"start", "stop"}, nil},
		{"bua click --f", []string{"--force", "--frame"}, []string{"--tab"}},
		{"bua click e3 --t", []string{"--tab", "--timeout"}, []string{"--force"}},
		{"bua extract --", []string{"--selector", "--max-elements", "--json"}, []string{"--force"}},
		{"bua navigate --wait-until ", []string{"commit", "domcontentloaded", "load", "networkidle"}, nil},
		{"bua click --role bu", []string{"button"}, []string{"link"}},
	} {
		script := `bua completion powershell | Out-String | Invoke-Expression
$line = '` + tt.line + `'
(TabExpansion2 -inputScript $line -cursorColumn $line.Length).CompletionMatches | ForEach-Object { $_.CompletionText }`
		cmd := exec.Command(pwsh, "-NoProfile", "-NonInteractive", "-Command", script)
		cmd.Env = append(buaEnv, "PATH="+filepath.Dir(buaBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		got := "\n" + strings.ReplaceAll(string(out), "\r\n", "\n")
		for _, w := range tt.want {
			if !strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: no candidate %q in:\n%s", tt.line, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: candidate %q offered:\n%s", tt.line, w, out)
			}
		}
	}
}

// TestCompletionFish loads `bua completion fish` into a real fish and
// completes with `complete -C`, as fish does on Tab: the command's flags,
// and the values of a flag that takes one of a fixed set. It skips where
// fish is not on PATH (apt-get install fish); cmd/bua's TestCompletion
// checks the script's text there.
func TestCompletionFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skipf("fish is not on PATH (%v): the fish completion is not run here", err)
	}
	for _, tt := range []struct {
		line string // typed so far, the cursor at its end
		want []string
		not  []string
	}{
		{"bua click --f", []string{"--force", "--frame"}, []string{"--tab"}},
		{"bua navigate --wait-until ", []string{"commit", "domcontentloaded", "load", "networkidle"}, nil},
		{"bua click --role bu", []string{"button"}, []string{"link"}},
		{"bua wait-for --state h", []string{"hidden"}, []string{"visible"}},
		{"bua --dialogs ", []string{"accept", "dismiss", "leave"}, nil},
	} {
		cmd := exec.Command(fish, "--no-config", "-c", `bua completion fish | source; complete -C "$argv[1]"`, tt.line)
		cmd.Env = append(buaEnv, "PATH="+filepath.Dir(buaBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		got := "\n"
		for _, l := range strings.Split(string(out), "\n") {
			word, _, _ := strings.Cut(l, "\t") // fish adds a tab and the description
			got += word + "\n"
		}
		for _, w := range tt.want {
			if !strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: no candidate %q in:\n%s", tt.line, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(got, "\n"+w+"\n") {
				t.Errorf("%q: candidate %q offered:\n%s", tt.line, w, out)
			}
		}
	}
}
