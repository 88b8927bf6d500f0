package gen

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ProtocolDocPath is the repository's protocol reference; ProtocolHeadPath
// is its hand-written part, our prose on what the schema cannot say (the
// handshake, targets, obstacles, versioning), which the reference begins
// with. The rest of the page is written from the schema.
const (
	ProtocolDocPath  = "docs/protocol.md"
	ProtocolHeadPath = "docs/protocol.head.md"
)

// ProtocolDoc renders docs/protocol.md: head, then the reference written
// from the schema: messages, actions with their params and results, error
// codes with their retry meaning, reasons, events, features, the timeout
// ladder, close codes, keys and roles.
func ProtocolDoc(doc, head []byte) ([]byte, error) {
	m, err := Read(doc)
	if err != nil {
		return nil, err
	}
	root, err := decodeOrdered(doc)
	if err != nil {
		return nil, err
	}
	w := &docWriter{root: root.(*object), m: m}
	w.p("<!-- %s Edit %s for the prose, the schema for the rest. -->\n\n", strings.Replace(Header, "extension/schema/protocol.schema.json", "extension/schema/protocol.schema.json and "+ProtocolHeadPath, 1), ProtocolHeadPath)
	w.b.Write(bytes.TrimRight(head, "\n"))
	w.p("\n\n")
	w.messages()
	w.actions()
	w.errors()
	w.events()
	w.features()
	w.ladder()
	w.closeCodes()
	w.keys()
	if w.err != nil {
		return nil, w.err
	}
	return w.b.Bytes(), nil
}

type docWriter struct {
	root *object
	m    *Model
	b    bytes.Buffer
	err  error
}

func (w *docWriter) p(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (w *docWriter) def(name string) *object {
	defs, _ := w.root.get("$defs").(*object)
	d, _ := defs.get(name).(*object)
	if d == nil && w.err == nil {
		w.err = fmt.Errorf("no $defs/%s", name)
	}
	return d
}

// cite turns the page's own citations into links: docs/protocol.md#errors
// into #errors, docs/cancellation.md#cancellation into
// cancellation.md#cancellation.
var citeRe = regexp.MustCompile(`docs/([a-z]+)\.md#([a-z0-9_-]+)`)

// cell is text fit for a table cell: one line, pipes escaped, the page's
// citations linked.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
	return citeRe.ReplaceAllStringFunc(s, func(c string) string {
		sub := citeRe.FindStringSubmatch(c)
		if sub[1] == "protocol" {
			return "[#" + sub[2] + "](#" + sub[2] + ")"
		}
		return "[" + sub[1] + ".md#" + sub[2] + "](" + sub[1] + ".md#" + sub[2] + ")"
	})
}

func code(s string) string { return "`" + s + "`" }

// typeText says what a property holds, in the page's words.
func (w *docWriter) typeText(n *object) string {
	if n == nil {
		return ""
	}
	if ref, ok := n.get("$ref").(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		switch name {
		case "error":
			return "error ([errors](#errors))"
		case "action":
			return "action ([actions](#actions))"
		case "event":
			return "event ([events](#events))"
		case "errorCode":
			return "error code ([errors](#errors))"
		}
		return w.typeText(w.def(name))
	}
	if c, ok := n.m["const"]; ok {
		return "`" + stringify(c) + "`"
	}
	if enum, ok := n.get("enum").([]any); ok {
		if len(enum) > 12 {
			return fmt.Sprintf("one of %d strings", len(enum))
		}
		parts := make([]string, len(enum))
		for i, e := range enum {
			if s, ok := e.(string); ok {
				parts[i] = code(s)
			} else {
				parts[i] = code(stringify(e))
			}
		}
		return strings.Join(parts, ", ")
	}
	switch t := n.get("type").(type) {
	case string:
		if t == "array" {
			items, _ := n.get("items").(*object)
			return "list of " + w.typeText(items)
		}
		return t
	case []any:
		if len(t) == 2 && t[1] == "array" {
			items, _ := n.get("items").(*object)
			return fmt.Sprintf("%s, or a list of them", w.typeText(items))
		}
	}
	if len(n.keys) == 0 {
		return "any"
	}
	return "see below"
}

// description is a property's description, or its $ref def's.
func (w *docWriter) description(n *object) string {
	if d, _ := n.get("description").(string); d != "" {
		return d
	}
	if ref, ok := n.get("$ref").(string); ok {
		if d := w.def(strings.TrimPrefix(ref, "#/$defs/")); d != nil {
			s, _ := d.get("description").(string)
			return s
		}
	}
	return ""
}

// fields writes a table of n's properties, an inline object's or a list
// of objects' fields as dotted rows under it. skip names properties left
// out (an envelope's type).
func (w *docWriter) fields(n *object, head string, skip ...string) {
	if n == nil {
		return
	}
	if items, ok := n.get("items").(*object); ok && n.get("properties") == nil {
		w.p("A list; each item:\n\n")
		n = items
	}
	w.p("| %s | type | | what |\n| --- | --- | --- | --- |\n", head)
	w.rows(n, "", skip)
	w.p("\n")
}

func (w *docWriter) rows(n *object, prefix string, skip []string) {
	props, _ := n.get("properties").(*object)
	if props == nil {
		return
	}
	required := map[string]bool{}
	if r, ok := n.get("required").([]any); ok {
		for _, x := range r {
			s, _ := x.(string)
			required[s] = true
		}
	}
	for _, k := range props.keys {
		if slicesContains(skip, k) && prefix == "" {
			continue
		}
		prop, _ := props.get(k).(*object)
		req := "optional"
		if required[k] {
			req = "required"
		}
		if f, _ := prop.get("x-feature").(string); f != "" {
			req += ", feature " + code(f)
		}
		w.p("| %s | %s | %s | %s |\n", code(prefix+k), cell(w.typeText(prop)), req, cell(w.description(prop)))
		// An object's fields, or a list of objects' item fields, follow
		// as dotted rows; so do those of a def it names, but for the
		// error, action and event, which have sections of their own.
		inner := prop
		if ref, ok := prop.get("$ref").(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			if name == "error" || name == "action" || name == "event" {
				continue
			}
			inner = w.def(name)
		}
		items, _ := inner.get("items").(*object)
		if ref, ok := items.get("$ref").(string); ok {
			items = w.def(strings.TrimPrefix(ref, "#/$defs/"))
		}
		switch {
		case inner.get("properties") != nil:
			w.rows(inner, prefix+k+".", nil)
		case items.get("properties") != nil:
			w.rows(items, prefix+k+"[].", nil)
		}
	}
}

func (w *docWriter) messages() {
	w.p("## Messages\n\nEvery frame is a JSON object whose `type` is one of these; any other type is `invalid_action`.\n\n")
	for _, t := range w.m.MessageTypes {
		name := t
		if t == "event" {
			name = "eventMessage"
		}
		d := w.def(name)
		if d == nil {
			return
		}
		w.p("### %s message\n\n", code(t))
		if desc, _ := d.get("description").(string); desc != "" {
			w.p("%s\n\n", cell(desc))
		}
		w.fields(d, "field", "type")
	}
}

// results are the result defs an action answers with: its x-result, else
// result.NAME, else result.ok.
func (w *docWriter) results(name string) []string {
	d := w.def("action." + name)
	switch x := d.get("x-result").(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, s := range x {
			str, _ := s.(string)
			out = append(out, str)
		}
		return out
	}
	defs, _ := w.root.get("$defs").(*object)
	if defs.get("result."+name) != nil {
		return []string{"result." + name}
	}
	return []string{"result.ok"}
}

func (w *docWriter) actions() {
	w.p("## Actions\n\nA request carries one action; the action's `type` picks one of these. Each runs on one tab through the debugger (scope tab: one at a time per tab, after the blocklist and session checks) or through the tabs API (scope browser). An action whose `x-feature` names a feature is sent only to an extension whose hello lists it ([features](#features)). A tab-scope action's result also carries the `tabId` it ran on.\n\n")
	w.p("| action | scope | default budget | feature | reads only | what |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, a := range w.m.Actions {
		feature := ""
		if a.Feature != "" {
			feature = code(a.Feature)
		}
		reads := ""
		if a.Reads {
			reads = "yes"
		}
		w.p("| [%s](#action-%s) | %s | %s | %s | %s | %s |\n", code(a.Name), a.Name, a.Scope, seconds(a.BudgetMs), feature, reads, cell(summary("", a.Description)))
	}
	w.p("\n")
	for _, a := range w.m.Actions {
		d := w.def("action." + a.Name)
		w.p("### action %s\n\n%s\n\n", code(a.Name), cell(a.Description))
		var notes []string
		if a.Target {
			t := "Takes a target: exactly one of `uid`, `selector` or `role` ([targets](#targets))."
			if a.TargetOptional {
				t = "Takes at most one target: one of `uid`, `selector` or `role`, or none ([targets](#targets))."
			}
			notes = append(notes, t)
		}
		if len(a.OneOf) > 0 {
			notes = append(notes, "Takes exactly one of "+strings.Join(mapCode(a.OneOf), ", ")+".")
		}
		if a.Shorthand != "" {
			notes = append(notes, "A flow step's scalar form sets "+code(a.Shorthand)+".")
		}
		if a.NoFlowStep {
			notes = append(notes, "Never a flow step: flows reach it another way.")
		}
		if len(notes) > 0 {
			w.p("%s\n\n", strings.Join(notes, " "))
		}
		if props, _ := d.get("properties").(*object); props != nil && len(props.keys) > 0 {
			w.fields(d, "param")
		} else {
			w.p("No params.\n\n")
		}
		for _, r := range w.results(a.Name) {
			rd := w.def(r)
			if rd == nil {
				return
			}
			w.p("Result (%s):", code(r))
			if desc, _ := rd.get("description").(string); desc != "" {
				w.p(" %s", cell(desc))
			}
			w.p("\n\n")
			w.fields(rd, "field")
		}
	}
}

func (w *docWriter) errors() {
	ec := w.def("errorCode")
	desc, _ := ec.get("description").(string)
	w.p("## Errors\n\nA failed request's response, and a reject, carry `error`: `{code, message, reason?}`. Callers branch on the code, and on the reason within it, never on the message, which is for people. %s\n\n", cell(desc))
	w.p("| code | retry | what a caller does next |\n| --- | --- | --- |\n")
	for _, c := range w.m.Codes {
		w.p("| %s | %s | %s |\n", code(c.Name), c.Retry, cell(c.Next))
	}
	w.p("| %s | never | no browser is connected: the CLI's and the runner's own code, never on the wire |\n\n", code("bridge_unavailable"))
	w.p("### Reasons\n\nThe named reasons an error may carry beside its code (`error.reason`; it may also be a `net::` error name for a page that could not load).\n\n| reason | what it means |\n| --- | --- |\n")
	for _, r := range w.m.Reasons {
		w.p("| %s | %s |\n", code(r.Name), cell(r.Description))
	}
	w.p("\n")
}

func (w *docWriter) events() {
	ev := w.def("event")
	desc, _ := ev.get("description").(string)
	w.p("## Events\n\nThe extension sends `{type: \"event\", event}` unasked. %s\n\n", cell(desc))
	for _, e := range w.m.Events {
		w.p("### event %s\n\n", code(e))
		w.fields(w.def("event."+e), "field")
	}
	w.p("### Session end reasons\n\nWhy a session ended (`session_ended`'s `reason`): %s.\n\n", strings.Join(mapCode(w.m.EndReasons), ", "))
}

func (w *docWriter) features() {
	w.p("## Features\n\nWhat an extension may list in its hello's `caps.features`, beyond the actions in `caps.actions`. The daemon relies on a feature only when the hello lists it, so an extension that predates one keeps working; every one is a pure addition to v4.\n\n| feature | what it adds |\n| --- | --- |\n")
	for _, f := range w.m.Features {
		w.p("| %s | %s |\n", code(f.Name), cell(f.Description))
	}
	w.p("\n")
}

func (w *docWriter) ladder() {
	ladder, _ := w.root.get("x-ladder").(*object)
	desc, _ := ladder.get("description").(string)
	w.p("## Timeout ladder\n\n%s\n\n", cell(desc))
	w.p("| margin | ms |\n| --- | --- |\n| `settleMarginMs` | %d |\n| `replyMarginMs` | %d |\n\n", w.m.SettleMarginMs, w.m.ReplyMarginMs)
	w.p("Each action's default budget, level (1) when the caller sets no timeout, is in the [actions](#actions) table; `wait_for` adds its `timeoutMs` (default %d ms, at most %d ms).\n\n", w.m.WaitDefaultMs, w.m.WaitMaxMs)
}

func (w *docWriter) closeCodes() {
	cc, _ := w.root.get("x-closeCodes").(*object)
	desc, _ := cc.get("description").(string)
	w.p("## Close codes\n\n%s\n\n| name | code |\n| --- | --- |\n", cell(desc))
	for _, c := range w.m.CloseCodes {
		w.p("| %s | %d |\n", code(c.Name), c.Value)
	}
	w.p("\n")
}

func (w *docWriter) keys() {
	key := w.def("key")
	desc, _ := key.get("description").(string)
	w.p("## Keys\n\n%s\n\nNamed keys: %s. Modifiers: %s.\n\n", cell(desc), strings.Join(mapCode(w.m.NamedKeys), ", "), strings.Join(mapCode(w.m.Modifiers), ", "))
	role := w.def("role")
	rdesc, _ := role.get("description").(string)
	w.p("## Roles\n\n%s\n\n%s.\n", cell(rdesc), strings.Join(mapCode(w.m.Roles), ", "))
}

func mapCode(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return out
}

func seconds(ms int) string {
	if ms%1000 == 0 {
		return strconv.Itoa(ms/1000) + " s"
	}
	return strconv.Itoa(ms) + " ms"
}
