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
	return &compiled{
		doc:     doc,
		message: c.MustCompile(schemaURL),
		action:  c.MustCompile(schemaURL + "#/$defs/action"),
	}
})

type compiled struct {
	doc     any
	message *jsonschema.Schema
	action  *jsonschema.Schema
}

func messageSchema() *jsonschema.Schema { return schemas().message }
func actionSchema() *jsonschema.Schema  { return schemas().action }

// validate checks data against sch and turns the first meaningful failure
// into an invalid_action error that names the field and what is expected.
func validate(sch *jsonschema.Schema, data []byte) *Error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return Errorf(CodeInvalidAction, "message is not valid JSON: %v", err)
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
