package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// TestSkills: `bua skills` writes ./.claude/skills/bua/SKILL.md, private
// to the user, whose front matter is what the Agent Skills format asks
// (a name of lowercase letters, digits and hyphens that is its folder's
// name, a description under 1,024 characters), which names only commands
// and flags that exist, lists every action and flow command, and whose
// flow lints; it keeps an existing SKILL.md unless --force.
func TestSkills(t *testing.T) {
	t.Chdir(t.TempDir())
	r := runCLI(t, nil, "", "skills")
	path := filepath.Join(".claude", "skills", "bua", "SKILL.md")
	if r.code != 0 || strings.TrimSpace(r.stdout) != path || r.stderr != "" {
		t.Fatalf("skills: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	checkPrivate(t, path, "the skill")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	skill := string(data)

	t.Run("FrontMatter", func(t *testing.T) {
		head, body, ok := strings.Cut(strings.TrimPrefix(skill, "---\n"), "\n---\n")
		if !strings.HasPrefix(skill, "---\n") || !ok {
			t.Fatalf("no front matter between --- lines:\n%.300s", skill)
		}
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
			t.Fatalf("front matter does not parse: %v\n%s", err, head)
		}
		name, _ := fm["name"].(string)
		desc, _ := fm["description"].(string)
		if len(fm) != 2 || name == "" || desc == "" {
			t.Errorf("front matter %v: want exactly name and description, as strings", fm)
		}
		if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(name) || len(name) > 64 || name != filepath.Base(filepath.Dir(path)) {
			t.Errorf("name %q: want lowercase letters, digits and single hyphens, at most 64, and the folder's name", name)
		}
		if len(desc) > 1024 || strings.ContainsAny(desc, "<>") || !strings.Contains(desc, "Use when") {
			t.Errorf("description (%d characters): want at most 1,024, no angle brackets, and when to use it:\n%s", len(desc), desc)
		}
		if !strings.HasPrefix(strings.TrimLeft(body, "\n"), "# ") {
			t.Errorf("the body does not start with a heading:\n%.200s", body)
		}
	})

	t.Run("CommandsExist", func(t *testing.T) {
		app := newApp(&Env{}, nil)
		checked := 0
		for _, seg := range codeSegments(skill) {
			words := shellWords(seg)
			for i, w := range words {
				if w != "bua" || (i > 0 && !strings.ContainsAny(words[i-1], "|;&$(")) {
					continue
				}
				checked++
				if err := checkCommandLine(app, words[i+1:]); err != nil {
					t.Errorf("%q: %v", seg, err)
				}
			}
		}
		if checked < 40 {
			t.Errorf("only %d command lines checked", checked)
		}
		for _, cmd := range app.Commands {
			if (cmd.Category == catActions || cmd.Category == catFlows) && !cmd.Hidden && skillLeftOut[cmd.Name] == "" && !strings.Contains(skill, "`bua "+cmd.Name) {
				t.Errorf("the skill does not list `bua %s`", cmd.Name)
			}
		}
		for name := range skillLeftOut {
			if findCommand(app.Commands, name) == nil {
				t.Errorf("skillLeftOut names %q, which is no command", name)
			}
		}
	})

	t.Run("FlowLints", func(t *testing.T) {
		m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(skill)
		if m == nil {
			t.Fatal("no flow in the skill")
		}
		flow := filepath.Join(t.TempDir(), "sign-in.yaml")
		if err := os.WriteFile(flow, []byte(m[1]), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, nil, "", "lint", flow); r.code != 0 {
			t.Errorf("the skill's flow does not lint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("NoOverwrite", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, nil, "", "skills")
		if got, _ := os.ReadFile(path); r.code != exitUsage || !strings.Contains(r.stderr, "--force") || string(got) != "mine\n" {
			t.Errorf("skills over an existing SKILL.md: exit %d, stderr %q, file %q", r.code, r.stderr, got)
		}
		if r := runCLI(t, nil, "", "skills", "--force"); r.code != 0 {
			t.Errorf("skills --force: exit %d %s", r.code, r.stderr)
		}
		if got, _ := os.ReadFile(path); string(got) != skill {
			t.Errorf("--force did not write the skill")
		}
	})

	t.Run("OutputDir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "agents", "bua")
		if r := runCLI(t, nil, "", "skills", "-o", dir); r.code != 0 || strings.TrimSpace(r.stdout) != filepath.Join(dir, "SKILL.md") || r.stderr != "" {
			t.Errorf("skills -o %s: exit %d, %q %q", dir, r.code, r.stdout, r.stderr)
		}
		other := filepath.Join(t.TempDir(), "browser")
		if r := runCLI(t, nil, "", "skills", "-o", other); r.code != 0 || !strings.Contains(r.stderr, `expect its folder to have that name, not "browser"`) {
			t.Errorf("skills -o %s: exit %d, stderr %q: want a note on the folder's name", other, r.code, r.stderr)
		}
	})
}

// codeSegments are the skill's code: each line of a fenced block (its
// shell comment cut), and each inline code span outside them.
func codeSegments(md string) []string {
	var segs []string
	fenced := false
	span := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			if i := strings.Index(line, " # "); i >= 0 {
				line = line[:i]
			}
			segs = append(segs, line)
			continue
		}
		for _, m := range span.FindAllStringSubmatch(line, -1) {
			segs = append(segs, m[1])
		}
	}
	return segs
}

// checkCommandLine checks the words after "bua": a command (and a
// subcommand where it has them) that exists, and flags it takes.
func checkCommandLine(app *cli.App, words []string) error {
	if len(words) == 0 {
		return nil // "bua" alone, as a name
	}
	cmd := findCommand(app.Commands, words[0])
	if cmd == nil {
		return fmt.Errorf("no command %q", words[0])
	}
	rest := words[1:]
	if subs := visible(cmd.Subcommands); len(subs) > 0 && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub := findCommand(subs, rest[0])
		if sub == nil {
			return fmt.Errorf("no command %q %q", cmd.Name, rest[0])
		}
		cmd, rest = sub, rest[1:]
	}
	for _, w := range rest {
		if w == "|" || w == "&&" || w == ";" {
			return nil
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !hasFlag(cmd, name) {
			return fmt.Errorf("bua %s has no flag %s", cmd.Name, w)
		}
	}
	return nil
}

func hasFlag(cmd *cli.Command, name string) bool {
	if name == "help" || name == "h" {
		return true
	}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
