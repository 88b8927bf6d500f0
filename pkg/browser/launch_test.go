package browser

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/internal/wine"

	"github.com/bua-dev/bua/extension"
)

// TestLaunch starts real headless Chromium with the real extension and
// checks what bua relies on: the extension's service worker runs (so
// --load-extension took), no DevTools port opens, the browser can be
// recorded and recognised, and Stop ends the whole process group.
func TestLaunch(t *testing.T) {
	exe, err := Find(os.Getenv)
	if err != nil && wine.Detected() {
		t.Skip("Wine has no Windows Chromium: the workflow's Windows job (.github/workflows/ci.yml) runs this with Chrome for Testing; TestLaunchJob runs here")
	}
	if err != nil {
		t.Fatalf("this test needs a real browser (CI installs one): %v", err)
	}
	dir := t.TempDir()
	// A bare TCP listener stands in for the daemon: the extension's upgrade
	// request arriving here proves Chrome loaded it, its worker ran and it
	// read pairing.json. No WebSocket is needed for that.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	upgrades := make(chan *http.Request, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					upgrades <- req
				}
			}()
		}
	}()
	pairing := []byte(`{"kind":"managed","url":"ws://` + ln.Addr().String() + `/ws/browser","token":"` + strings.Repeat("0", 64) + `"}`)
	extDir, err := extension.WriteTo(filepath.Join(dir, "ext"), map[string][]byte{"pairing.json": pairing})
	if err != nil {
		t.Fatal(err)
	}
	log := &syncbuf.Buffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := Launch(ctx, Options{Exec: exe, Headless: true, ProfileDir: filepath.Join(dir, "profile"), ExtensionDir: extDir, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = p.Stop(context.Background())
		}
	}()
	if p.Pid() <= 0 {
		t.Fatalf("Pid = %d", p.Pid())
	}

	select {
	case req := <-upgrades:
		if req.URL.Path != "/ws/browser" || req.Header.Get("Origin") != extension.Origin || !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			t.Errorf("extension dialled %s with Origin %q, Upgrade %q", req.URL.Path, req.Header.Get("Origin"), req.Header.Get("Upgrade"))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the extension never dialled the pairing URL: --load-extension did not take, or its worker failed\nbrowser log:\n%s", log.String())
	}

	// No DevTools port: Chromium writes DevToolsActivePort once it
	// listens on one, and bua drives the browser through the extension.
	profile := filepath.Join(dir, "profile")
	if _, err := os.Stat(filepath.Join(profile, "DevToolsActivePort")); !os.IsNotExist(err) {
		t.Errorf("DevToolsActivePort in the profile (%v): the browser opened a DevTools port", err)
	}

	// The record tells this browser from any other process.
	rec, err := Identify(p.Pid(), profile)
	if err != nil || !rec.Alive() {
		t.Fatalf("Identify = %+v, %v; want a live record", rec, err)
	}
	if _, err := Identify(p.Pid(), profile+"-other"); err == nil {
		t.Error("Identify accepted a profile the browser does not use")
	}

	pid := p.Pid()
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	stopped = true
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	// The whole group is gone: no live member left.
	if m := GroupMembers(pid); len(m) > 0 {
		t.Errorf("process group %d still has members %v after Stop", pid, m)
	}
	if rec.Alive() {
		t.Error("the record still reads as alive after Stop")
	}
	if err := p.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestLaunchNeedsProfile(t *testing.T) {
	if _, err := Launch(context.Background(), Options{Exec: os.Args[0]}); err == nil {
		t.Fatal("Launch without ProfileDir succeeded")
	}
}
