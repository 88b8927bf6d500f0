package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/bua-dev/bua/pkg/protocol"
)

// maxToolsList is the most characters `bua mcp`'s default tools/list may
// take, as bench/peers measures it (docs/decisions/agent-answers.md): the tool sits in every request an agent makes, so an action
// added later keeps to this figure, or goes behind --caps.
const maxToolsList = 8600

// TestToolsListSize: the default tools/list result, as bench/peers counts
// it (the JSON-RPC result as sent, parsed and written back compact by
// JSON.stringify: Unicode code points, no HTML escapes), is at most
// maxToolsList characters.
func TestToolsListSize(t *testing.T) {
	srv, err := New(Options{Requester: noRequests{}})
	if err != nil {
		t.Fatal(err)
	}
	lines := serveLines(t, srv, 0, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	raw := answerTo(t, lines, 2)
	n := jsChars(t, raw)
	t.Logf("tools/list: %d characters (at most %d)", n, maxToolsList)
	if n > maxToolsList {
		t.Errorf("tools/list is %d characters, over the %d an agent's tool may take (docs/decisions/agent-answers.md): shorten the schema's x-agent texts, or put the addition behind --caps", n, maxToolsList)
	}
}

// jsChars is the length of result as JSON.stringify(JSON.parse(result))
// writes it, in code points: what bench/peers' chars() counts.
func jsChars(t *testing.T, result json.RawMessage) int {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // JSON.stringify writes <, > and & as they are
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return utf8.RuneCount(bytes.TrimRight(b.Bytes(), "\n"))
}

// noRequests is a Requester for tests that send no action.
type noRequests struct{}

func (noRequests) Request(context.Context, protocol.Action) (json.RawMessage, *protocol.Error) {
	return nil, protocol.Errorf(protocol.CodeInternalError, "no requests in this test")
}
