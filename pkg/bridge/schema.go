package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/bua-dev/bua/extension"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaJSON is the protocol schema document, as `bua schema` prints it.
func SchemaJSON() []byte { return extension.Schema }

const schemaURL = "bua-protocol.json"

var schemas = sync.OnceValue(func() *compiled {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(extension.Schema))
	if err != nil {
		panic(fmt.Sprintf("protocol schema: %v", err)) // embedded: a build bug
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		panic(err)
	}
	// The fast path's copy differs in one place only: a request's action is
	// any object there, because fastValidate checks it by dispatch.
	relaxed := relaxRequestAction(doc)
	if err := c.AddResource(relaxedURL, relaxed); err != nil {
		panic(err)
	}
	cs := &compiled{
		doc:       doc,
		message:   c.MustCompile(schemaURL),
		action:    c.MustCompile(schemaURL + "#/$defs/action"),
		byMessage: branches(c, relaxedURL, relaxed, "message"),
		byAction:  branches(c, schemaURL, doc, "action"),
	}
	return cs
})

const relaxedURL = "bua-protocol-fast.json"

type compiled struct {
	doc     any
	message *jsonschema.Schema
	action  *jsonschema.Schema
	// byMessage and byAction map a "type" value to the schema its
	// if/then branch applies, so a valid message is checked against one
	// branch instead of evaluating every if.
	byMessage map[string]*jsonschema.Schema
	byAction  map[string]*jsonschema.Schema
}

func messageSchema() *jsonschema.Schema { return schemas().message }
func actionSchema() *jsonschema.Schema  { return schemas().action }

// branches compiles the then-schema of each allOf if/then branch of
// $defs/def, keyed by the "type" const its if tests.
func branches(c *jsonschema.Compiler, url string, doc any, def string) map[string]*jsonschema.Schema {
	node := doc.(map[string]any)["$defs"].(map[string]any)[def].(map[string]any)
	out := map[string]*jsonschema.Schema{}
	for _, b := range node["allOf"].([]any) {
		br := b.(map[string]any)
		typ := br["if"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["const"].(string)
		ref := br["then"].(map[string]any)["$ref"].(string)
		out[typ] = c.MustCompile(url + ref)
	}
	return out
}

// relaxRequestAction returns a deep copy of doc whose request.action is
// {"type": "object"}.
func relaxRequestAction(doc any) any {
	var cp any
	raw, _ := json.Marshal(doc)
	cp, _ = jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	req := cp.(map[string]any)["$defs"].(map[string]any)["request"].(map[string]any)
	req["properties"].(map[string]any)["action"] = map[string]any{"type": "object"}
	return cp
}

// fastValid reports whether inst is valid, by dispatching on "type" to one
// branch. false means "run the full schema": it may still be valid (an
// unknown shape the dispatch does not cover), and only the full schema
// phrases errors. TestFastPathAgrees runs every vector through both.
func fastValid(cs *compiled, inst any, isAction bool) bool {
	obj, ok := inst.(map[string]any)
	if !ok {
		return false
	}
	typ, _ := obj["type"].(string)
	if isAction {
		s := cs.byAction[typ]
		return s != nil && s.Validate(inst) == nil
	}
	s := cs.byMessage[typ]
	if s == nil || s.Validate(inst) != nil {
		return false
	}
	if typ == string(TypeRequest) {
		return fastValid(cs, obj["action"], true)
	}
	return true
}

// validate checks data against sch and turns the first meaningful failure
// into an invalid_action error that names the field and what is expected.
func validate(sch *jsonschema.Schema, data []byte) *Error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return Errorf(CodeInvalidAction, "message is not valid JSON: %v", err)
	}
	cs := schemas()
	if fastValid(cs, inst, sch == cs.action) {
		return nil
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errorf(CodeInvalidAction, "%v", err)
	}
	return Errorf(CodeInvalidAction, "%s", describe(ve))
}

// describe picks the deepest failure (the most specific field) and phrases
// it with the schema's own description of that field when it has one, so
// the messages come from the single source too.
func describe(ve *jsonschema.ValidationError) string {
	leaves := leafErrors(ve, nil)
	sort.SliceStable(leaves, func(i, j int) bool {
		return len(leaves[i].InstanceLocation) > len(leaves[j].InstanceLocation)
	})
	leaf := leaves[0]
	where := "message"
	if len(leaf.InstanceLocation) > 0 {
		where = strings.Join(leaf.InstanceLocation, ".")
	}
	msg := fmt.Sprintf("%s: %s", where, leaf.ErrorKind.LocalizedString(printer))
	if d := schemaDescription(leaf.SchemaURL); d != "" {
		msg += " (" + d + ")"
	}
	return msg
}

var printer = message.NewPrinter(language.English)

func leafErrors(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leafErrors(c, out)
	}
	return out
}

// schemaDescription walks the schema URL's JSON pointer and returns the
// description of the nearest node that has one, below the top level.
func schemaDescription(url string) string {
	_, ptr, ok := strings.Cut(url, "#")
	if !ok {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var nodes []any
	node := schemas().doc
	for _, p := range parts {
		m, ok := node.(map[string]any)
		if !ok {
			break
		}
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if node, ok = m[p]; !ok {
			break
		}
		nodes = append(nodes, node)
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		if m, ok := nodes[i].(map[string]any); ok {
			if d, ok := m["description"].(string); ok {
				return d
			}
		}
	}
	return ""
}

// Marshal encodes a message as JSON. Protocol types never fail to encode;
// an error here is a bug, reported rather than panicking.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }
