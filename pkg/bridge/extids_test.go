package bridge_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/home"
)

// storeID stands for an ID the Chrome Web Store gave the extension.
const storeID = "abcdefghijklmnopabcdefghijklmnop"

// TestStoreExtensionIDs: a store ID named in the configuration pairs as
// the pinned ID does (the whole handshake, acked), and the pinned ID still
// pairs; an ID not configured, one a letter off, and the configured ID
// with a suffix or with a prefix cut get the existing rejection, HTTP 403
// before any upgrade: each Origin is compared whole.
func TestStoreExtensionIDs(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{StoreExtensionIDs: []string{storeID}})
	for _, origin := range []string{"chrome-extension://" + storeID, extension.Origin} {
		e, err := bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken, Origin: origin})
		if err != nil {
			t.Fatalf("hello from Origin %s: %v, want ack", origin, err)
		}
		e.Close()
	}

	addr := h.Daemon.Addr()
	for _, tc := range []struct{ name, origin string }{
		{"NotConfigured", "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba"},
		{"OneLetterOff", "chrome-extension://abcdefghijklmnopabcdefghijklmnoo"},
		{"Suffix", "chrome-extension://" + storeID + "a"},
		{"SuffixPath", "chrome-extension://" + storeID + "/"},
		{"Prefix", "chrome-extension://" + storeID[:31]},
		{"OtherScheme", "moz-extension://" + storeID},
		{"Uppercase", "chrome-extension://" + strings.ToUpper(storeID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "http://"+addr+"/ws/browser", nil)
			req.Header.Set("Origin", tc.origin)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body strings.Builder
			buf := make([]byte, 512)
			n, _ := resp.Body.Read(buf)
			body.Write(buf[:n])
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body.String(), "Origin is not the paired bua extension") {
				t.Errorf("Origin %s: %d %q, want 403 and the Origin rejection", tc.origin, resp.StatusCode, body.String())
			}
			_, err = bridgetest.Dial(context.Background(), bridgetest.Options{URL: h.URL(), Token: h.UserToken, Origin: tc.origin})
			if err == nil || !strings.Contains(err.Error(), "403") {
				t.Errorf("hello from Origin %s: %v, want HTTP 403", tc.origin, err)
			}
		})
	}
}

// TestStoreExtensionIDsChecked: the daemon refuses to start with an entry
// that is not an extension ID, naming it.
func TestStoreExtensionIDsChecked(t *testing.T) {
	for _, bad := range []string{"", "abc", storeID + "a", "abcdefghijklmnopabcdefghijklmnoq", strings.ToUpper(storeID), "chrome-extension://" + storeID} {
		_, err := bridge.New(bridge.Config{Dirs: home.Dirs{Config: t.TempDir()}, StoreExtensionIDs: []string{bad}})
		if err == nil || !strings.Contains(err.Error(), bridge.EnvExtensionIDs) {
			t.Errorf("New with store ID %q: %v, want an error naming %s", bad, err, bridge.EnvExtensionIDs)
		}
	}
}

// TestParseExtensionIDs: BUA_EXTENSION_IDS is IDs separated by commas,
// spaces and empty entries allowed; anything else is an error naming the
// entry and the variable.
func TestParseExtensionIDs(t *testing.T) {
	other := "ponmlkjihgfedcbaponmlkjihgfedcba"
	for in, want := range map[string][]string{
		"":                             nil,
		" , ":                          nil,
		storeID:                        {storeID},
		storeID + "," + other + ",":    {storeID, other},
		" " + storeID + " ,\t" + other: {storeID, other},
	} {
		got, err := bridge.ParseExtensionIDs(in)
		if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("ParseExtensionIDs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{
		storeID + ",nope",
		storeID + ";" + other,
		storeID + " " + other,
		"abcdefghijklmnopabcdefghijklmnoq",
		strings.ToUpper(storeID),
		"chrome-extension://" + storeID,
		storeID + "*",
	} {
		_, err := bridge.ParseExtensionIDs(in)
		if err == nil || !strings.Contains(err.Error(), bridge.EnvExtensionIDs) || !strings.Contains(err.Error(), "is not a Chrome extension ID") {
			t.Errorf("ParseExtensionIDs(%q) = %v, want an error naming the entry and %s", in, err, bridge.EnvExtensionIDs)
		}
	}
}
