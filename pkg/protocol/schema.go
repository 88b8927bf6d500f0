package protocol

import (
	"errors"
	"fmt"
	"sync"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/schema"
)

// SchemaJSON is the protocol schema document, as `bua schema` prints it.
func SchemaJSON() []byte { return extension.Schema }

// schemas compiles the protocol schema on first use: a command that sends
// nothing never pays for it.
var schemas = sync.OnceValue(func() *compiled {
	root, err := schema.Compile(extension.Schema)
	if err != nil {
		panic(fmt.Sprintf("protocol schema: %v", err)) // embedded: a build bug
	}
	action, err := root.Sub("#/$defs/action", "action")
	if err != nil {
		panic(fmt.Sprintf("protocol schema: %v", err))
	}
	return &compiled{message: root, action: action}
})

type compiled struct {
	message *schema.Schema
	action  *schema.Schema
}

func messageSchema() *schema.Schema { return schemas().message }
func actionSchema() *schema.Schema  { return schemas().action }

// validate decodes data, checks it against sch and returns the decoded
// value. A failure is invalid_action whose message names the field and what
// is expected, in the same words the extension's validator uses.
func validate(sch *schema.Schema, data []byte) (any, *Error) {
	v, err := sch.ValidateJSON(data)
	if err != nil {
		e := &Error{Code: CodeInvalidAction, Message: err.Error()}
		errors.As(err, &e.Schema)
		return nil, e
	}
	return v, nil
}
