package faults

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestSecondConnection: a second client connects with the managed
// pairing's right token (read from the home, as anything able to read it
// could). Per the pool (spec 001 §Shared pool, one connection per pairing)
// the newer replaces the older, which is closed with 4003; the real
// extension takes 4003 as final and stops reconnecting. While the second
// client holds the pairing, status shows it; once it goes, status and
// doctor say the extension was replaced, and an action fails at once with
// bridge_unavailable (exit 4) naming the way out, rather than waiting for
// a browser that will never say hello. Restarting the browser restores
// it. This one restarts its browser, so it has a home of its own.
func TestSecondConnection(t *testing.T) {
	t.Parallel()
	cmd, home := ownBrowser(t)
	before := status(t, cmd)

	ws, _, err := websocket.DefaultDialer.Dial("ws://"+before.Listen+"/ws/browser", http.Header{"Origin": {extensionOrigin}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	hello := map[string]any{"type": "hello", "protocolVersion": protocol.ProtocolVersion, "clientVersion": "second-client", "pairingToken": managedToken(t, home)}
	if err := ws.WriteJSON(hello); err != nil {
		t.Fatal(err)
	}
	var ack struct{ Type string }
	if err := ws.ReadJSON(&ack); err != nil || ack.Type != "ack" {
		t.Fatalf("second connection: %+v, %v: want ack (the token is right)", ack, err)
	}
	st := status(t, cmd)
	if len(st.Connections) != 1 || st.Connections[0].ClientVersion != "second-client" {
		t.Fatalf("connections = %+v: want only the second client, the extension replaced", st.Connections)
	}
	ws.Close()

	// The extension reconnects within 0.5-5 s after any other close; after
	// 4003 it must stay away.
	time.Sleep(3 * time.Second)
	st = status(t, cmd)
	if len(st.Connections) != 0 {
		t.Fatalf("connections = %+v after the second client left: the replaced extension came back, want it to stay away (close 4003 is final)", st.Connections)
	}
	sr := run(t, cmd, 10*time.Second, "status")
	if !strings.Contains(sr.Stdout, "replaced:") {
		t.Errorf("bua status does not say the extension was replaced:\n%s", sr.Output())
	}
	dr := run(t, cmd, 10*time.Second, "doctor")
	if !strings.Contains(dr.Output(), "was replaced") || !strings.Contains(dr.Output(), "bua browser stop") {
		t.Errorf("bua doctor does not explain the replacement:\n%s", dr.Output())
	}

	t0 := time.Now()
	r := run(t, cmd, 60*time.Second, "--json", "extract")
	took := time.Since(t0)
	e := failure(t, r)
	if e.Error.Code != "bridge_unavailable" || r.Code != 4 || !strings.Contains(e.Error.Message, "replaced") || !strings.Contains(e.Error.Message, "bua browser stop") {
		t.Errorf("extract: exit %d, %s %q: want exit 4, bridge_unavailable saying the extension was replaced and how to restart", r.Code, e.Error.Code, e.Error.Message)
	}
	if took > 5*time.Second {
		t.Errorf("extract failed after %s: want at once, not after waiting for the browser", took.Round(time.Millisecond))
	}

	t1 := time.Now()
	mustOK(t, "browser stop", run(t, cmd, 30*time.Second, "browser", "stop"))
	mustOK(t, "browser start", run(t, cmd, 90*time.Second, "browser", "start", "--headless"))
	mustOK(t, "open after the restart", run(t, cmd, 30*time.Second, "open", siteURL("form.html")))
	mustOK(t, "extract after the restart", run(t, cmd, 30*time.Second, "extract"))
	if st := status(t, cmd); len(st.Connections) != 1 {
		t.Errorf("connections after the restart = %+v, want the extension", st.Connections)
	}
	t.Logf("extract failed in %s: %s; the restart and the next extract took %s", took.Round(time.Millisecond), e.Error.Message, time.Since(t1).Round(time.Millisecond))
}
