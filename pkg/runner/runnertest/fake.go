// Package runnertest is a scripted fake bridge.Requester for runner tests:
// per-action handlers, a record of every request, and helpers that build
// the protocol's result shapes.
package runnertest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/bua-dev/bua/pkg/bridge"
)

// Handler answers one request: a result value (encoded to JSON) or an error.
type Handler func(ctx context.Context, a bridge.Action) (any, *bridge.Error)

// Fake implements bridge.Requester. An action without a handler answers
// {"ok": true}. Safe for concurrent use.
type Fake struct {
	mu       sync.Mutex
	handlers map[bridge.ActionType]Handler
	requests []bridge.Action
}

// New returns a Fake with no handlers.
func New() *Fake { return &Fake{handlers: map[bridge.ActionType]Handler{}} }

// On sets the handler for typ and returns f for chaining.
func (f *Fake) On(typ bridge.ActionType, h Handler) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[typ] = h
	return f
}

// Request records a and runs its handler. A done ctx answers timeout, as
// the pool does when the deadline passes.
func (f *Fake) Request(ctx context.Context, a bridge.Action) (json.RawMessage, *bridge.Error) {
	f.mu.Lock()
	f.requests = append(f.requests, a)
	h := f.handlers[a.Type]
	f.mu.Unlock()
	if ctx.Err() != nil {
		return nil, bridge.Errorf(bridge.CodeTimeout, "%s: deadline passed", a.Type)
	}
	if h == nil {
		return json.RawMessage(`{"ok":true}`), nil
	}
	v, berr := h(ctx, a)
	if berr != nil {
		return nil, berr
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, bridge.Errorf(bridge.CodeInternalError, "fake: %v", err)
	}
	return raw, nil
}

// Requests returns a copy of every request so far, in order.
func (f *Fake) Requests() []bridge.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]bridge.Action(nil), f.requests...)
}

// Types returns the type of every request so far, in order.
func (f *Fake) Types() []string {
	var out []string
	for _, a := range f.Requests() {
		out = append(out, string(a.Type))
	}
	return out
}

// Sequence answers the i-th call with steps[i], repeating the last one.
func Sequence(steps ...Handler) Handler {
	var mu sync.Mutex
	i := 0
	return func(ctx context.Context, a bridge.Action) (any, *bridge.Error) {
		mu.Lock()
		h := steps[min(i, len(steps)-1)]
		i++
		mu.Unlock()
		return h(ctx, a)
	}
}

// Result always answers v.
func Result(v any) Handler {
	return func(context.Context, bridge.Action) (any, *bridge.Error) { return v, nil }
}

// Fail always answers code with message.
func Fail(code bridge.ErrorCode, message string) Handler {
	return func(context.Context, bridge.Action) (any, *bridge.Error) {
		return nil, bridge.Errorf(code, "%s", message)
	}
}

// Hang waits until ctx is done, then answers timeout.
func Hang() Handler {
	return func(ctx context.Context, a bridge.Action) (any, *bridge.Error) {
		<-ctx.Done()
		return nil, bridge.Errorf(bridge.CodeTimeout, "%s timed out", a.Type)
	}
}

// Page builds an extract result from (role, name) pairs, uids e0, e1, ...
// in order, all visible.
func Page(pairs ...string) bridge.ExtractResult {
	r := bridge.ExtractResult{Markdown: "# page", Text: "page", Elements: []bridge.Element{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Elements = append(r.Elements, bridge.Element{UID: "e" + itoa(len(r.Elements)), Role: pairs[i], Name: pairs[i+1]})
	}
	return r
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
