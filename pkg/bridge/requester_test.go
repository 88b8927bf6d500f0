package bridge_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/protocol"
)

// deadLink answers every action and can be told the daemon closed it.
type deadLink struct{ dead bool }

func (l *deadLink) Request(context.Context, protocol.Action) (json.RawMessage, *protocol.Error) {
	return json.RawMessage(`{"ok":true}`), nil
}
func (l *deadLink) Close() error { return nil }
func (l *deadLink) Dead() bool   { return l.dead }

// TestRequester: it dials on the first action, not before; without Redial
// a dial's failure holds (Err) and a dead link is kept; with Redial a dead
// link is dialled again, until StopDialing.
func TestRequester(t *testing.T) {
	ctx := context.Background()
	dials := 0
	fail := protocol.Errorf(protocol.CodeBridgeUnavailable, "no daemon")
	once := bridge.NewRequester(bridge.RequesterOptions{Dial: func(context.Context) (bridge.Link, *protocol.Error) {
		dials++
		return nil, fail
	}})
	if once.Err() != nil || dials != 0 {
		t.Fatal("dialled before an action")
	}
	for range 2 {
		if _, err := once.Request(ctx, protocol.GetTabs()); err != fail {
			t.Fatalf("err %v, want the dial's", err)
		}
	}
	if dials != 1 || once.Err() != fail {
		t.Errorf("dials %d, Err %v: want one dial whose failure holds", dials, once.Err())
	}

	var links []*deadLink
	re := bridge.NewRequester(bridge.RequesterOptions{Redial: true, Dial: func(context.Context) (bridge.Link, *protocol.Error) {
		links = append(links, &deadLink{})
		return links[len(links)-1], nil
	}})
	for range 2 {
		if _, err := re.Request(ctx, protocol.GetTabs()); err != nil {
			t.Fatal(err)
		}
	}
	links[0].dead = true
	if _, err := re.Request(ctx, protocol.GetTabs()); err != nil || len(links) != 2 {
		t.Fatalf("after the daemon went away: %v, %d dials; want a second dial", err, len(links))
	}
	links[1].dead = true
	re.StopDialing()
	if _, err := re.Request(ctx, protocol.GetTabs()); err == nil || len(links) != 2 {
		t.Errorf("after StopDialing: %v, %d dials; want an error and no dial", err, len(links))
	}
}
