package protocol

import "encoding/json"

// validate decodes data, checks it with check (validateMessageValue or
// validateActionValue, generated from the schema into validate_gen.go with
// SchemaError, their failure) and returns the decoded value. A failure is
// invalid_action whose message names the field and what is expected.
func validate(check func(any) *SchemaError, data []byte) (any, *Error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		se := &SchemaError{Reason: "message is not JSON: " + err.Error()}
		return nil, &Error{Code: CodeInvalidAction, Message: se.Error(), Schema: se}
	}
	if se := check(v); se != nil {
		return nil, &Error{Code: CodeInvalidAction, Message: se.Error(), Schema: se}
	}
	return v, nil
}
