package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// GenerateTool returns the agent tool's inputSchema (Model.Tool) for the
// schema document.
func GenerateTool(doc []byte) ([]byte, error) {
	m, err := Read(doc)
	if err != nil {
		return nil, err
	}
	return m.Tool()
}

// Tool renders the agent tool's inputSchema: docs/protocol.md#actions: one
// browser tool, one action per call, its inputSchema generated from the
// schema. It is flat, because Claude's and OpenAI's
// tool APIs refuse a top-level oneOf, anyOf or allOf: a required action
// whose enum lists every action, and the union of the actions' params
// (their protocol names, one short description each). The action's
// description gives each action's params, so the model knows which go
// together; the tool's server checks each call against the action's own
// schema branch. Params marked x-agent: false are the server's to set;
// actions marked so are a person's (bua record's), never offered.
func (m *Model) Tool() ([]byte, error) {
	var props []*toolProp
	byName := map[string]*toolProp{}
	var lines []string
	var names []string
	for _, a := range m.Actions {
		if a.NoAgent {
			continue
		}
		names = append(names, a.Name)
		lines = append(lines, a.Name+a.signature()+": "+summary(a.Agent, a.Description))
		for _, p := range a.Params {
			if p.AgentSkip {
				continue
			}
			pr := byName[p.Name]
			if pr == nil {
				pr = &toolProp{name: p.Name, kind: p.Kind, item: p.Item}
				byName[p.Name] = pr
				props = append(props, pr)
			}
			if pr.kind != p.Kind || pr.item != p.Item {
				return nil, fmt.Errorf("agent tool: param %s is a %s in one action and a %s in %s: the tool's flat schema needs one type per name", p.Name, pr.kind+pr.item, p.Kind+p.Item, a.Name)
			}
			pr.merge(p, a.Name)
		}
	}

	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("{\n  \"type\": \"object\",\n  \"required\": [\"action\"],\n  \"properties\": {\n")
	w("    \"action\": {\n      \"type\": \"string\",\n      \"enum\": %s,\n      \"description\": %s\n    }", jsonText(names), jsonText(strings.Join(lines, "\n")))
	for _, pr := range props {
		pr.write(w)
	}
	w("\n  }\n}\n")
	var check map[string]any
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		return nil, fmt.Errorf("agent tool: %v", err) // a bug here, not in the schema
	}
	return b.Bytes(), nil
}

// toolProp is one property of the tool's flat schema: a param over every
// action that has it.
type toolProp struct {
	name    string
	kind    string
	item    string
	enum    []string
	descs   []string   // distinct short descriptions, in order
	actions [][]string // the actions each of descs came from
}

// merge adds action's param p to pr: the enum values pr lacks, and its
// short description, or action to those that share it.
func (pr *toolProp) merge(p Param, action string) {
	for _, e := range p.Enum {
		if !slices.Contains(pr.enum, e) {
			pr.enum = append(pr.enum, e)
		}
	}
	d := paramSummary(p.Agent, p.Description)
	if d == "" {
		return
	}
	if i := slices.Index(pr.descs, d); i >= 0 {
		pr.actions[i] = append(pr.actions[i], action)
	} else {
		pr.descs = append(pr.descs, d)
		pr.actions = append(pr.actions, []string{action})
	}
}

// write writes pr's entry of the tool's properties through w; each
// description names its actions when they differ.
func (pr *toolProp) write(w func(format string, args ...any)) {
	w(",\n    %s: {", jsonText(pr.name))
	switch pr.kind {
	case "list":
		w("\"type\": \"array\", \"items\": {\"type\": %s}", jsonText(pr.item))
	default:
		w("\"type\": %s", jsonText(pr.kind))
	}
	// A long enum (role's ninety roles) costs more than it helps: the
	// server's check names the allowed values when one is wrong.
	if len(pr.enum) > 0 && len(pr.enum) <= maxToolEnum {
		w(", \"enum\": %s", jsonText(pr.enum))
	}
	var parts []string
	for i, d := range pr.descs {
		if len(pr.descs) > 1 {
			d = strings.Join(pr.actions[i], ", ") + ": " + d
		}
		parts = append(parts, d)
	}
	if len(parts) > 0 {
		w(", \"description\": %s", jsonText(strings.Join(parts, "; ")))
	}
	w("}")
}

// maxToolEnum is the longest enum the tool's schema spells out.
const maxToolEnum = 12

// signature is the action's params as the tool's description lists them:
// "(uid|selector|role [name nth frame force])", required first, optional
// in brackets; tabId only where it is required.
func (a Action) signature() string {
	var req, opt []string
	target := map[string]bool{}
	if a.Target {
		target = map[string]bool{"uid": true, "selector": true, "role": true}
		t := "uid|selector|role"
		if a.TargetOptional {
			opt = append(opt, t)
		} else {
			req = append(req, t)
		}
	}
	if len(a.OneOf) > 0 {
		req = append(req, strings.Join(a.OneOf, "|"))
	}
	for _, p := range a.Params {
		switch {
		case p.AgentSkip, target[p.Name], slices.Contains(a.OneOf, p.Name):
		case p.Name == "tabId" && !p.Required:
		case p.Required:
			req = append(req, p.Name)
		default:
			opt = append(opt, p.Name)
		}
	}
	s := strings.Join(req, " ")
	if len(opt) > 0 {
		if s != "" {
			s += " "
		}
		s += "[" + strings.Join(opt, " ") + "]"
	}
	return "(" + s + ")"
}

// summary is an action's line in the tool: its x-agent, else the first
// sentence of its description without asides about the protocol's
// versions.
func summary(agent, desc string) string {
	if agent != "" {
		return agent
	}
	return firstSentence(aside.ReplaceAllString(desc, ""))
}

// paramSummary is a param's description in the tool: its x-agent, else
// the first clause of its description's first sentence, without any
// parenthetical and without the final full stop.
func paramSummary(agent, desc string) string {
	if agent == "" {
		for {
			short := paren.ReplaceAllString(desc, "")
			if short == desc {
				break
			}
			desc = short
		}
		agent, _, _ = strings.Cut(firstSentence(desc), "; ")
	}
	if strings.HasSuffix(agent, "...") {
		return agent
	}
	return strings.TrimSuffix(agent, ".")
}

var (
	// aside is a parenthetical about the protocol's history, not the action.
	aside = regexp.MustCompile(`\s*\([^()]*(?:pure addition|x-[a-z]|v4|§)[^()]*\)`)
	// paren is any innermost parenthetical.
	paren = regexp.MustCompile(`\s*\([^()]*\)`)
)

// firstSentence is s up to its first full stop followed by a space (not
// e.g.'s, i.e.'s or an ellipsis's), or all of s.
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '.' || (i+1 < len(s) && s[i+1] != ' ') || (i > 0 && s[i-1] == '.') {
			continue
		}
		if strings.HasSuffix(s[:i], "e.g") || strings.HasSuffix(s[:i], "i.e") {
			continue
		}
		return s[:i+1]
	}
	return strings.TrimSpace(s)
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and lists of strings only
	}
	return strings.TrimSuffix(b.String(), "\n")
}
