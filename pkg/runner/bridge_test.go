package runner

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestRun_ThroughDaemon runs a flow through the real daemon, over its unix
// socket, to the Go fake extension on a real WebSocket: the same path as
// `bua run`, with the recovery exercised on the wire.
func TestRun_ThroughDaemon(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	var clicks atomic.Int32
	ext.Handle(protocol.ActionOpenTab, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.OpenTabResult{TabID: 31, WindowID: 1, Domain: "example.com"}, nil
	})
	ext.Handle(protocol.ActionExtract, func(a protocol.Action) (any, *protocol.Error) {
		r := loginPage()
		r.TabID = a.TabID
		return r, nil
	})
	ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
		if clicks.Add(1) == 1 {
			return nil, protocol.Errorf(protocol.CodeElementStale, "uid %s is from an old page", a.UID)
		}
		return protocol.OKResult{OK: true, TabID: a.TabID}, nil
	})
	ext.Handle(protocol.ActionEvaluate, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.EvaluateResult{Type: "string", Value: "Dashboard", TabID: a.TabID}, nil
	})
	dir := writeFlows(t, map[string]string{"main.yaml": `
name: through the daemon
steps:
  - open_tab: http://example.com/login
  - extract: {}
    as: page
  - click: { uid: "${{ uid(page, 'button', '(?i)sign in') }}" }
  - evaluate: return document.title
  - assert: last.value == "Dashboard"
`})
	f, err := flow.Load(filepath.Join(dir, "main.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rec := (&Runner{Requester: h.Client(t)}).RunFlow(context.Background(), f)
	wantStatus(t, rec, report.StatusPassed)
	var seen []string
	for _, a := range ext.Requests() {
		tab := "-"
		if a.TabID != nil {
			tab = "31"
			if *a.TabID != 31 {
				tab = "?"
			}
		}
		seen = append(seen, string(a.Type)+"@"+tab)
	}
	if got, want := strings.Join(seen, ","), "open_tab@-,extract@31,click@31,extract@31,click@31,evaluate@31"; got != want {
		t.Errorf("extension saw %s\nwant          %s", got, want)
	}
}

// TestExamples_Lint keeps every example flow valid.
func TestExamples_Lint(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.yaml", "common/*.yaml", "selftest/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "flows", pat))
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found %d example flows, want at least 8", len(files))
	}
	for _, f := range files {
		if _, err := flow.Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}
