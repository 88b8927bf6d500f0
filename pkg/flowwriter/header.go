package flowwriter

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// root assembles the flow's top mapping: the header comment, name, vars,
// secrets, the obstacle policy, and the steps, led by a check of each
// environment variable the secrets come from.
func (b *builder) root(h Header) *yaml.Node {
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: b.header(h)}
	add := func(k string, v *yaml.Node) { root.Content = append(root.Content, str(k), v) }
	add("name", lit(b.secrets.mask(b.name(h)))) // a name is no replay problem
	if vars := b.vars(); len(vars.Content) > 0 {
		add("vars", vars)
	}
	if len(b.secrets.list) > 0 {
		names := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, sc := range b.secrets.list {
			names.Content = append(names.Content, str(sc.Var))
		}
		add("secrets", names)
	}
	if pol := b.obstaclePolicy(); pol != nil {
		add("obstacles", pol)
	}
	if h.StepTimeout > 0 {
		add("defaults", flowMap(str("timeout"), str(h.StepTimeout.String())))
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for _, sc := range b.secrets.list {
		steps.Content = append(steps.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			str("if"), lit(fmt.Sprintf(`(vars.%s ?? "") == ""`, sc.Var)),
			str("fail"), lit(fmt.Sprintf("%s is not set: set it to the text for %s (or pass --var %s=...), then run the flow again", sc.Env, field(sc.Field), sc.Var)),
		}})
	}
	steps.Content = append(steps.Content, b.steps...)
	add("steps", steps)
	return root
}

// header is the header comment: how the file was made, how to replay it,
// and the environment variables it needs.
func (b *builder) header(h Header) string {
	made := "Recorded with " + firstOf(h.MadeBy, "bua")
	if h.From != "" {
		made = "Converted with " + firstOf(h.MadeBy, "bua") + " from " + h.From
	}
	if !h.Time.IsZero() {
		made += " on " + h.Time.UTC().Format("2006-01-02 15:04 UTC")
	}
	lines := []string{made + "."}
	if h.Command != "" {
		lines = append(lines, "  "+h.Command)
	}
	lines = append(lines, "Replay it with `bua run FILE` (no agent needed); `bua lint FILE` checks it.")
	if b.base != "" {
		lines = append(lines, "vars.base is the site it was recorded on: `bua run --var base=URL` replays it on another.")
	}
	if len(b.secrets.list) > 0 {
		lines = append(lines, "Environment variables it needs:")
		for _, sc := range b.secrets.list {
			lines = append(lines, fmt.Sprintf("  %s: the text for %s (a secret: it is never written here)", sc.Env, field(sc.Field)))
		}
	}
	lines = append(lines, h.Notes...)
	var out []string
	for _, l := range strings.Split(strings.Join(lines, "\n"), "\n") {
		out = append(out, strings.TrimRight("# "+l, " "))
	}
	return strings.Join(out, "\n")
}

func field(label string) string {
	if label == "" {
		return "the password field"
	}
	return fmt.Sprintf("the %q field", label)
}

// name is the flow's name: the header's, else the first page title the
// recording saw, else its first host.
func (b *builder) name(h Header) string {
	if h.Name != "" {
		return h.Name
	}
	for _, e := range b.entries {
		if e.Title != "" {
			return e.Title
		}
	}
	for _, e := range b.entries {
		for _, u := range []string{e.URLBefore, e.Action.URL, e.URLAfter} {
			if host := hostOf(u); host != "" {
				return "recorded on " + host
			}
		}
	}
	return "recorded flow"
}

// vars is the vars mapping: base, then each secret read from its
// environment variable.
func (b *builder) vars() *yaml.Node {
	vars := &yaml.Node{Kind: yaml.MappingNode}
	if b.base != "" {
		vars.Content = append(vars.Content, str("base"), lit(b.base))
	}
	for _, sc := range b.secrets.list {
		vars.Content = append(vars.Content, str(sc.Var), tmpl(part{text: "env." + sc.Env, expr: true}))
	}
	return vars
}

// obstaclePolicy is the flow's obstacles mapping, so a replay passes what
// the recording passed: a verdict the recording went on past (a step
// followed it) continues, or hands off when the recording handed the page
// to the person for that obstacle. It is nil when that is the default
// policy (low verdicts continue). A comment lists the verdicts, each once.
func (b *builder) obstaclePolicy() *yaml.Node {
	last := -1
	if len(b.replay) > 0 {
		last = b.replay[len(b.replay)-1]
	}
	type key struct{ typ, conf string }
	var order []key
	where, handed := map[key]string{}, map[key]bool{}
	for _, p := range b.passed {
		k := key{p.typ, p.conf}
		if p.entry >= last || (k.conf != "high" && k.conf != "low") {
			continue // nothing was replayed after it: not passed
		}
		if _, ok := where[k]; !ok {
			order = append(order, k)
			where[k] = p.where
		}
		handed[k] = handed[k] || p.handoff
	}
	policy := map[string]string{}
	var seen []string
	for _, k := range order {
		what := fmt.Sprintf("%s (%s) on %s", k.typ, k.conf, b.shortURL(where[k]))
		switch {
		case handed[k]:
			policy[k.conf] = "handoff"
			what += ", handed to the person"
		case policy[k.conf] == "":
			policy[k.conf] = "continue"
		}
		seen = append(seen, what)
	}
	if policy["low"] == "continue" {
		delete(policy, "low") // the default
	}
	if len(policy) == 0 {
		return nil
	}
	m := flowMap()
	for _, conf := range []string{"high", "low"} {
		if how := policy[conf]; how != "" {
			m.Content = append(m.Content, str(conf), str(how))
		}
	}
	m.LineComment = "passed while recording: " + strings.Join(seen, "; ")
	return m
}

// shortURL is u with the base origin left out, for a comment.
func (b *builder) shortURL(u string) string {
	if u == "" {
		return "a page"
	}
	if orig, path, tail := splitURL(u); orig != "" && orig == b.base {
		return path + tail
	}
	return u
}
