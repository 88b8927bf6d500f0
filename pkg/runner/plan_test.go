package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
)

func TestPlan(t *testing.T) {
	dir := writeFlows(t, map[string]string{"main.yaml": signIn, "sub.yaml": "name: sub\nvars: { who: x }\nsteps:\n  - log: hi ${{ vars.who }}\n"})
	f, err := flow.Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &Runner{Vars: map[string]string{"base": "http://localhost:9"}, Getenv: func(string) string { return "" }}
	if err := r.Plan(&out, f); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1. navigate url=http://localhost:9/login",
		`4. type uid=${{ uid(page, 'textbox', 'Email') }} text=demo`,
		"2. extract   -> page",
		`fail blocked by ${{ page.obstacle.type }}  (if page.obstacle != nil`,
		"else:",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
}
