package main

import (
	"encoding/base64"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/bua-dev/bua/internal/wine"
)

// shells are cmd and Windows PowerShell, and PowerShell 7 (pwsh) where it
// is installed. Wine has no PowerShell: those run on the Windows runner
// of .github/workflows/ci.yml.
func shells(t *testing.T) []testShell {
	t.Helper()
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = `C:\Windows\System32\cmd.exe`
	}
	out := []testShell{{name: "cmd", dialect: "cmd", command: func(line string) *exec.Cmd {
		c := exec.Command(comspec)
		// /s: cmd runs what is between the first and the last quote as
		// it is, which no quoting of Go's would give it.
		c.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + line + `"`}
		return c
	}}}
	for _, ps := range []string{"powershell", "pwsh"} {
		sh := testShell{name: ps, dialect: "PowerShell"}
		if wine.Detected() {
			if ps == "powershell" {
				sh.skip = "Wine has no PowerShell: the Windows runner of .github/workflows/ci.yml runs this"
				out = append(out, sh)
			}
			continue
		}
		path, err := exec.LookPath(ps)
		if err != nil {
			if ps == "powershell" {
				t.Fatalf("Windows PowerShell: %v", err)
			}
			continue
		}
		sh.command = func(line string) *exec.Cmd {
			return exec.Command(path, "-NoProfile", "-NonInteractive", "-EncodedCommand", encodePS(line))
		}
		out = append(out, sh)
	}
	return out
}

// encodePS is line as PowerShell's -EncodedCommand takes it: UTF-16LE in
// base64, which no command-line parsing touches.
func encodePS(line string) string {
	u := utf16.Encode([]rune(line))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestShellWord_Windows: a word as cmdWord writes it reaches bua as it is
// through cmd, as psWord writes it through PowerShell, and as shellWord
// writes it (a flow header's) through both, or through PowerShell when
// no word does (a $ or ` in it); a Windows path with no blank or symbol
// stays bare, its backslashes and a short name's ~ too.
func TestShellWord_Windows(t *testing.T) {
	for word, want := range map[string]string{
		`C:\Users\RUNNER~1\AppData\Local\Temp\flow.yaml`: `C:\Users\RUNNER~1\AppData\Local\Temp\flow.yaml`,
		"http://a.test/login":                            "http://a.test/login",
		`C:\Temp\sign in.yaml`:                           `"C:\Temp\sign in.yaml"`,
		`C:\Temp\it's.yaml`:                              `"C:\Temp\it's.yaml"`,
		`C:\a $b\it's.yaml`:                              `'C:\a $b\it''s.yaml'`,
		"~":                                              `"~"`,
		"50%":                                            `"50%"`,
	} {
		if got := shellWord(word); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", word, got, want)
		}
	}
	if got, want := cmdWord(`C:\my flows\`), `"C:\my flows\\"`; got != want {
		t.Errorf("cmdWord(%q) = %s, want %s: the program would read \\\" as a quote", `C:\my flows\`, got, want)
	}
	bin := fakeBua(t)
	words := append(slices.Clone(quotingCases), `C:\Users\RUNNER~1\AppData\Local\Temp\flow.yaml`, `C:\a $b\it's.yaml`, "$HOME", "a`b", `$(x)`)
	for _, sh := range shells(t) {
		t.Run(sh.name, func(t *testing.T) {
			if sh.skip != "" {
				t.Skip(sh.skip)
			}
			run := func(w, line string) {
				checkEchoed(t, sh.name, line, runInShell(t, bin, nil, sh.command(line)), []string{w}, nil)
			}
			for _, w := range words {
				if sh.dialect == "cmd" {
					run(w, "bua "+cmdWord(w))
				} else {
					run(w, "bua "+psWord(w))
				}
				if !needsPSQuotes(w) || sh.dialect == "PowerShell" {
					run(w, "bua "+shellWord(w))
				}
			}
			if sh.dialect == "cmd" {
				run(`C:\my flows\`, "bua "+cmdWord(`C:\my flows\`))
			}
		})
	}
}

// TestRunCommands_Windows: the lines PowerShell and cmd get, as the
// person reads them; a flow that reads no variable, at a path both
// shells quote alike, gets one line for both.
func TestRunCommands_Windows(t *testing.T) {
	for _, tc := range []struct {
		vars []string
		file string
		want []shellCommand
	}{
		{nil, `C:\Temp\sign in.yaml`, []shellCommand{{line: `bua run "C:\Temp\sign in.yaml"`}}},
		{[]string{"BUA_PASSWORD", "BUA_CODE"}, `C:\Temp\sign in.yaml`, []shellCommand{
			{"PowerShell", `$env:BUA_PASSWORD = '...'; $env:BUA_CODE = '...'; bua run "C:\Temp\sign in.yaml"`},
			{"cmd", `set "BUA_PASSWORD=..." & set "BUA_CODE=..." & bua run "C:\Temp\sign in.yaml"`},
		}},
		{nil, `C:\a $b\f.yaml`, []shellCommand{
			{"PowerShell", `bua run 'C:\a $b\f.yaml'`},
			{"cmd", `bua run "C:\a $b\f.yaml"`},
		}},
	} {
		if got := runCommands(tc.vars, tc.file); !slices.Equal(got, tc.want) {
			t.Errorf("runCommands(%q, %q) = %v, want %v", tc.vars, tc.file, got, tc.want)
		}
	}
}
