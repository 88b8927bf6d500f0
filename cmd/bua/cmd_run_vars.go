package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bua-dev/bua/internal/nearest"
	"github.com/bua-dev/bua/pkg/flow"
)

// checkVarNames is `--var`'s check: each NAME must be a var of at least
// one of the flows (flow.Flow.VarNames: declared, read as one that may
// be missing, or base_url), else the --var would change nothing, most
// often because of a typo. The error names the flows' vars and the nearest
// one. Flows that do not load are left out and the check is skipped: the
// run reports them invalid, and a var may be theirs.
func checkVarNames(vars map[string]string, files []string) error {
	if len(vars) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, file := range files {
		f, err := flow.Load(file)
		if err != nil {
			return nil
		}
		for _, name := range f.VarNames() {
			have[name] = true
		}
	}
	var unknown, names []string
	for name := range vars {
		if !have[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	for name := range have {
		names = append(names, name)
	}
	sort.Strings(unknown)
	sort.Strings(names)
	list := "the flow has no vars"
	if len(files) > 1 {
		list = "the flows have no vars"
	}
	switch {
	case len(names) > 0 && len(files) > 1:
		list = "the flows' vars: " + strings.Join(names, ", ")
	case len(names) > 0:
		list = "the flow's vars: " + strings.Join(names, ", ")
	}
	var b strings.Builder
	for _, name := range unknown {
		fmt.Fprintf(&b, "--var %s: no flow has a var %s", name, name)
		if near := nearest.Word(name, names, max(1, len(name)/4)); near != "" {
			fmt.Fprintf(&b, " (did you mean %s?)", near)
		}
		b.WriteString("; ")
	}
	b.WriteString(list)
	b.WriteString(" (a flow declares its vars under vars:, each with a default that --var replaces)")
	return usageError(b.String())
}
