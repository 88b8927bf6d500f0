package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/protocol"
)

// evaluateOne answers every action as an evaluate that gave 1, at once:
// what is left of a call is the MCP layer (BenchmarkCallEvaluate).
type evaluateOne struct{}

func (evaluateOne) Request(context.Context, protocol.Action) (json.RawMessage, *protocol.Error) {
	return json.RawMessage(`{"tabId":7,"type":"number","value":1}`), nil
}

// BenchmarkCallEvaluate is one evaluate through the MCP layer alone: the
// Go SDK's client and server in memory, this package's decode, checks and
// answer, and a Requester that answers at once. It is the part of `bua
// mcp`'s evaluate round trip (bench/peers, BENCHMARKS.md §bua mcp) that is
// neither the stdio pipe, the daemon nor the browser; -benchmem shows the
// SDK's JSON decoding, which allocates a fresh read buffer for every
// Unmarshal.
func BenchmarkCallEvaluate(b *testing.B) {
	srv, err := New(Options{Requester: evaluateOne{}})
	if err != nil {
		b.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"action": "evaluate", "expression": "return 1"}
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
