package protocol

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// ActionFrom is the one place loose input becomes an Action: an agent's
// tool call (pkg/mcpserver) and a flow step's evaluated params
// (pkg/runner) come through it. It sets each param through the field the
// schema gives it (Action.field, generated into actionfields_gen.go). typ names the action;
// params maps each param's JSON name to its value: json.RawMessage as
// an agent sent it, or a Go value (string, int, float64, bool, []any, as a
// flow's expressions give them), which is converted to the param's kind
// in the schema (ActionSpecs): "2" to 2 for an integer, "true" to true
// for a boolean, one item to a list of one. The param "target" stands for
// uid or selector, read by ParseTarget (a flow's and the CLI's form).
//
// The action is then checked against the schema, the same check the
// daemon makes of an action it did not know to be checked (bridge's
// request): a front end that builds every loose action here sends it on
// as checked, so each action is validated once. The failure is
// invalid_action, reason refused, its Schema naming the field
// ("action.url"); the returned Action is what the params built, so a
// caller can show the values a refused action had. A param the action
// does not take, or a value that cannot take its kind, is invalid_action
// too, without a reason.
func ActionFrom(typ string, params map[string]any) (Action, *Error) {
	a := Action{Type: ActionType(typ)}
	spec, ok := ActionSpecs[a.Type]
	if !ok {
		return a, Errorf(CodeInvalidAction, "unknown action %q", typ)
	}
	misfit := false // a raw value of the wrong JSON type
	for name, v := range params {
		if name == "target" && spec.Target {
			if t := ParseTarget(ParamString(v)); t.UID != "" {
				a.UID = t.UID
			} else {
				a.Selector = t.Selector
			}
			continue
		}
		p, ok := spec.Param(name)
		field := a.field(name)
		if !ok || field == nil {
			return a, Errorf(CodeInvalidAction, "%s takes no param %s", typ, name)
		}
		if raw, isRaw := v.(json.RawMessage); isRaw {
			misfit = misfit || json.Unmarshal(raw, field) != nil
			continue
		}
		c, err := coerceParam(p, v)
		if err != nil {
			return a, err
		}
		if !setField(field, c) {
			return a, Errorf(CodeInvalidAction, "%s: %s does not fit the action", typ, name)
		}
	}
	if misfit {
		return a, misfitError(typ, params)
	}
	return a, refused(a.Validate())
}

// misfitError is ActionFrom's refusal of raw params one of which does not
// decode into its field: the schema's words name it, as they would have
// had the daemon checked the raw action.
func misfitError(typ string, params map[string]any) *Error {
	obj := make(map[string]any, len(params)+1)
	for k, v := range params {
		obj[k] = v
	}
	obj["type"] = typ
	raw, err := json.Marshal(obj)
	if err == nil {
		if perr := refused(ValidateAction(raw)); perr != nil {
			return perr
		}
	}
	return Errorf(CodeInvalidAction, "the params do not fit %s", typ)
}

// setField sets the Action field that field points to (Action.field) to
// v, a value coerceParam made; false when v is not of the field's kind.
func setField(field, v any) bool {
	var ok bool
	switch f := field.(type) {
	case *string:
		*f, ok = v.(string)
	case **string:
		var s string
		s, ok = v.(string)
		*f = &s
	case **int:
		var i int
		i, ok = v.(int)
		*f = &i
	case *bool:
		*f, ok = v.(bool)
	case **bool:
		var b bool
		b, ok = v.(bool)
		*f = &b
	case *[]string:
		*f, ok = listOf[string](v)
	case *OneOrMany[string]:
		*f, ok = listOf[string](v)
	case *OneOrMany[int]:
		*f, ok = listOf[int](v)
	}
	return ok
}

// listOf is coerceParam's list as a []T.
func listOf[T any](v any) ([]T, bool) {
	items, ok := v.([]any)
	out := make([]T, len(items))
	for i, it := range items {
		if out[i], ok = it.(T); !ok {
			return nil, false
		}
	}
	return out, ok
}

// refused marks a schema failure as a refusal: nothing was sent.
func refused(e *Error) *Error {
	if e != nil {
		e.Reason = ReasonRefused
	}
	return e
}

// coerceParam converts a Go value to the kind the schema gives param p; a
// list param's items each to its item kind, one value standing for a
// list of one.
func coerceParam(p ParamSpec, v any) (any, *Error) {
	switch p.Kind {
	case KindList:
		items := ParamList(v)
		out := make([]any, len(items))
		for i, it := range items {
			c, err := coerceParam(ParamSpec{Name: fmt.Sprintf("%s[%d]", p.Name, i), Kind: p.Item}, it)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case KindInteger:
		i, ok := ParamInt(v)
		if !ok {
			return nil, Errorf(CodeInvalidAction, "%s: want an integer, got %T %v", p.Name, v, v)
		}
		return i, nil
	case KindBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		b, err := strconv.ParseBool(ParamString(v))
		if err != nil {
			return nil, Errorf(CodeInvalidAction, "%s: want true or false, got %v", p.Name, v)
		}
		return b, nil
	}
	return ParamString(v), nil
}

// ParamList is v as a list param's items, as ActionFrom reads one: a
// []any or []string as its items, any other value as a list of one. A
// flow reads upload's files the same way (pkg/flow AsList calls it).
func ParamList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return []any{v}
}

// ParamInt converts an integer, a whole JSON number or a numeric string
// to int, as ActionFrom reads an integer param; ok is false for anything
// else (a fraction, a word). The flow's expressions use it too
// (pkg/flow/expr ToInt), so a step's value and its action agree.
func ParamInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) {
			return int(x), true
		}
	case string:
		i, err := strconv.Atoi(x)
		return i, err == nil
	}
	return 0, false
}

// ParamString is v as a string param's text, as ActionFrom reads one: a
// string as is, nil as "", a number without exponent or trailing zeros, a
// bool as true or false, a list or an object as JSON. A flow's templates
// write values the same way (pkg/flow/expr Stringify calls it).
func ParamString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}
