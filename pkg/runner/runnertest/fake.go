// Package runnertest is a scripted fake protocol.Requester for runner tests:
// per-action handlers, a record of every request, and helpers that build
// the protocol's result shapes.
package runnertest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Handler answers one request: a result value (encoded to JSON) or an error.
type Handler func(ctx context.Context, a protocol.Action) (any, *protocol.Error)

// Fake implements protocol.Requester. An action without a handler answers
// {"ok": true}. Safe for concurrent use.
type Fake struct {
	mu       sync.Mutex
	handlers map[protocol.ActionType]Handler
	requests []protocol.Action
}

// New returns a Fake with no handlers.
func New() *Fake { return &Fake{handlers: map[protocol.ActionType]Handler{}} }

// On sets the handler for typ and returns f for chaining.
func (f *Fake) On(typ protocol.ActionType, h Handler) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[typ] = h
	return f
}

// Request records a and runs its handler. A done ctx answers timeout, as
// the pool does when the deadline passes.
func (f *Fake) Request(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	f.mu.Lock()
	f.requests = append(f.requests, a)
	h := f.handlers[a.Type]
	f.mu.Unlock()
	if ctx.Err() != nil {
		return nil, protocol.Errorf(protocol.CodeTimeout, "%s: deadline passed", a.Type)
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
		return nil, protocol.Errorf(protocol.CodeInternalError, "fake: %v", err)
	}
	return raw, nil
}

// Requests returns a copy of every request so far, in order.
func (f *Fake) Requests() []protocol.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]protocol.Action(nil), f.requests...)
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
	return func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		mu.Lock()
		h := steps[min(i, len(steps)-1)]
		i++
		mu.Unlock()
		return h(ctx, a)
	}
}

// Result always answers v.
func Result(v any) Handler {
	return func(context.Context, protocol.Action) (any, *protocol.Error) { return v, nil }
}

// Fail always answers code with message.
func Fail(code protocol.ErrorCode, message string) Handler {
	return func(context.Context, protocol.Action) (any, *protocol.Error) {
		return nil, protocol.Errorf(code, "%s", message)
	}
}

// Hang waits until ctx is done, then answers timeout.
func Hang() Handler {
	return func(ctx context.Context, a protocol.Action) (any, *protocol.Error) {
		<-ctx.Done()
		return nil, protocol.Errorf(protocol.CodeTimeout, "%s timed out", a.Type)
	}
}

// Page builds an extract result from (role, name) pairs, uids e0, e1, ...
// in order, all visible.
func Page(pairs ...string) protocol.ExtractResult {
	r := protocol.ExtractResult{Markdown: "# page", Text: "page", Elements: []protocol.Element{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Elements = append(r.Elements, protocol.Element{UID: "e" + itoa(len(r.Elements)), Role: pairs[i], Name: pairs[i+1]})
	}
	return r
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
