package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/internal/syncbuf"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestReadToken: only TokenLen hex characters are a token; anything else
// in the file (a byte, a cut or padded token, garbage) is ErrBadToken,
// whose message gives the length but never the content.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	good := bridge.NewToken()
	secret := "s3cr3t-" + strings.Repeat("z", 57)
	for _, tc := range []struct {
		name, data string
		want       string // the token, "" for none
		bad        bool
	}{
		{"a token", good + "\n", good, false},
		{"a token in capitals", strings.ToUpper(good), strings.ToUpper(good), false},
		{"a token with spaces around", "  " + good + " \n\n", good, false},
		{"empty", "", "", true},
		{"one byte", "a", "", true},
		{"one hex digit short", good[:63], "", true},
		{"one hex digit long", good + "a", "", true},
		{"64 characters, not hex", secret, "", true},
		{"two tokens", good + "\n" + good, "", true},
		{"binary garbage", "\x00\xff\xfe" + good[3:], "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			tok, err := bridge.ReadToken(path)
			if tok != tc.want || tc.bad != errors.Is(err, bridge.ErrBadToken) {
				t.Fatalf("ReadToken = %q, %v; want %q, bad %v", tok, err, tc.want, tc.bad)
			}
			if err != nil && strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error quotes the file: %v", err)
			}
		})
	}
	if tok, err := bridge.ReadToken(filepath.Join(dir, "none")); tok != "" || err != nil {
		t.Fatalf("missing file: %q, %v; want no token and no error", tok, err)
	}
	if _, err := bridge.ReadToken(dir); !errors.Is(err, bridge.ErrBadToken) {
		t.Fatalf("a directory: %v, want ErrBadToken", err)
	}
}

// TestHealToken: a bad managed token is replaced by a new one, once, with
// one log line; EnsureToken leaves a bad user token in place (the person
// replaces it with `bua pair`) and says so, unless asked to rotate.
func TestHealToken(t *testing.T) {
	for _, bad := range []string{"garbage!", "a", strings.Repeat("0", 63), strings.Repeat("g", 64)} {
		path := filepath.Join(t.TempDir(), "managed-token")
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := bridge.EnsureToken(path, false); !errors.Is(err, bridge.ErrBadToken) {
			t.Fatalf("EnsureToken over %q: %v, want ErrBadToken", bad, err)
		}
		if data, _ := os.ReadFile(path); string(data) != bad {
			t.Fatalf("EnsureToken rewrote a bad user token: %q", data)
		}
		var logs syncbuf.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		tok, err := bridge.HealToken(path, log)
		if err != nil || len(tok) != bridge.TokenLen {
			t.Fatalf("HealToken over %q = %q, %v", bad, tok, err)
		}
		if again, err := bridge.HealToken(path, log); again != tok || err != nil {
			t.Fatalf("second HealToken = %q, %v; want the healed %q", again, err, tok)
		}
		if n := strings.Count(logs.String(), "managed pairing token replaced"); n != 1 {
			t.Fatalf("logged %d times, want once:\n%s", n, logs.String())
		}
		if err := home.CheckPrivate(path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDaemonHealsManagedToken: a daemon that starts over a bad managed
// token (garbage, one byte, a wrong length) replaces it: the managed
// extension pairs with the new token, and the old content pairs nothing.
func TestDaemonHealsManagedToken(t *testing.T) {
	for _, bad := range []string{"\x00garbage\n", "a", strings.Repeat("ab", 20)} {
		t.Run(strings.TrimSpace(bad), func(t *testing.T) {
			dir, err := os.MkdirTemp("", "bua") // short: the socket path must fit
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			dirs := home.Dirs{Config: dir, State: dir, Runtime: dir}
			if err := os.WriteFile(dirs.ManagedTokenFile(), []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs syncbuf.Buffer
			h := bridgetest.StartDaemon(t, bridge.Config{Dirs: dirs, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			if len(h.ManagedToken) != bridge.TokenLen {
				t.Fatalf("managed token after start: %q", h.ManagedToken)
			}
			h.ConnectManaged(t)
			_, err = bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: strings.TrimSpace(bad)})
			var rej *bridgetest.RejectError
			if !errors.As(err, &rej) || rej.CloseCode != protocol.CloseBadToken {
				t.Fatalf("a hello with the old content: %v, want refused", err)
			}
			if n := strings.Count(logs.String(), "managed pairing token replaced"); n != 1 {
				t.Fatalf("the heal logged %d times, want once:\n%s", n, logs.String())
			}
		})
	}
}

// TestBadUserToken: with the user token file damaged and no extension
// connected, a request that only the person's browser may serve fails at
// once, saying to run `bua pair`, instead of after the connect grace; a
// hello is refused with the same advice.
func TestBadUserToken(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{ConnectGrace: 5 * time.Second})
	if err := os.WriteFile(h.Dirs.TokenFile(), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := h.Client(t).Request(context.Background(), protocol.GetTabs())
	if err == nil || err.Code != protocol.CodeBridgeUnavailable || !strings.Contains(err.Message, "bua pair") || !strings.Contains(err.Message, h.Dirs.TokenFile()) {
		t.Fatalf("err = %v, want bridge_unavailable naming the token file and `bua pair`", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("failed after %s, want at once (not after the 5s connect grace)", took)
	}
	if bridge.MayAutoLaunch(func(string) string { return "" }, h.Dirs) {
		t.Error("a damaged user token counts as no pairing: auto would launch a headless browser behind the person's back")
	}
	_, derr := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken})
	var rej *bridgetest.RejectError
	if !errors.As(derr, &rej) || rej.Reject == nil || !strings.Contains(rej.Reject.Error.Message, "token file is unreadable or malformed") {
		t.Fatalf("hello with the old token: %v, want a reject saying the token file is bad", derr)
	}
	// The one-byte file is no token: a hello carrying it is refused too.
	_, derr = bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: "x"})
	if !errors.As(derr, &rej) || rej.CloseCode != protocol.CloseBadToken {
		t.Fatalf("hello with the one-byte token: %v, want refused", derr)
	}
}

// TestUnknownBrowserRefused: a raw CLI frame whose browser is none of
// auto, user, managed, managed-N or a pairing's name is invalid_action,
// listing them, and nothing reaches an extension; the known names (and an
// absent one) are served.
func TestUnknownBrowserRefused(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	ext.HandleAll(bridgetest.OK)
	for _, tc := range []struct {
		browser string
		refused bool
	}{
		{`"bogus"`, true},
		{`"Managed"`, true},
		{`" user"`, true},
		{`""`, false},
		{`"auto"`, false},
		{`"user"`, false},
		{`"extension"`, false},
		{"", false},
	} {
		frame := `{"id":"1","op":"request","action":{"type":"get_tabs"}`
		if tc.browser != "" {
			frame += `,"browser":` + tc.browser
		}
		res := rawLink(t, h, frame+"}")
		if !tc.refused {
			if res.Error != nil {
				t.Errorf("browser %s: %v, want served", tc.browser, res.Error)
			}
			continue
		}
		if res.Error == nil || res.Error.Code != protocol.CodeInvalidAction || res.Error.Reason != protocol.ReasonRefused ||
			!strings.Contains(res.Error.Message, "auto, user, managed, managed-1 … managed-15") {
			t.Errorf("browser %s: %+v, want invalid_action (refused) listing auto, user, managed, managed-1 … managed-15", tc.browser, res.Error)
		}
	}
	if n := len(ext.Requests()); n != 5 {
		t.Fatalf("the extension got %d requests, want the 5 with a known browser", n)
	}
}

// linkAnswer is the part of a CLI link answer rawLink reads.
type linkAnswer struct {
	Error *protocol.Error `json:"error"`
}

// rawLink sends one frame on the CLI socket, as a client other than bua's
// own might, and reads the answer.
func rawLink(t *testing.T, h *bridgetest.Harness, frame string) linkAnswer {
	t.Helper()
	c, err := home.DialLink(context.Background(), h.Dirs)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(frame + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("read the answer: %v (so far %q)", err, line)
	}
	var res linkAnswer
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("answer %q: %v", line, err)
	}
	return res
}
