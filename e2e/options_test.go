package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOptionsPage opens the extension's own options page in the managed
// browser, over Chromium's DevTools socket (the protocol cannot open
// chrome-extension:// pages, by design), and proves what a person pairing
// their Chrome relies on: the page loads under the extension's CSP, shows
// the live connection state, and a one-time code from `bua pair --code`
// claims the user token from the daemon through the page's real code, with
// the extension's Origin. A code works once.
func TestOptionsPage(t *testing.T) {
	eval := extPage(t, "src/ui/options/options.html")

	deadline := time.Now().Add(10 * time.Second)
	for eval(`document.getElementById("state")?.dataset.state ?? ""`) != "connected" {
		if time.Now().After(deadline) {
			t.Fatalf("options page never showed connected: state %v", eval(`document.getElementById("state")?.textContent`))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if eval(`document.getElementById("managed").hidden`) != false {
		t.Error("a managed browser's options page must say its pairing is managed")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, code := bua(ctx, "pair", "--code", "--json")
	if code != 0 {
		t.Fatalf("bua pair --code: %d %s", code, out)
	}
	var pc struct{ Code, URL string }
	if err := json.Unmarshal([]byte(out), &pc); err != nil || pc.Code == "" {
		t.Fatalf("bua pair --code --json: %q", out)
	}
	tokenFile := filepath.Join(buaHome, "token")
	t.Cleanup(func() {
		// Leave the shared home as the other tests expect it: no user
		// pairing, nothing stored by the claim.
		os.Remove(tokenFile)
		eval(`chrome.storage.local.remove("bridge_config").then(() => true)`)
	})
	claim := fmt.Sprintf(`(async () => {
		const { createChromeApi } = await import("/src/core/chrome-api.js");
		const { claimCode } = await import("/src/transport/pairing.js");
		const r = await claimCode(createChromeApi(), %q, %q);
		const got = await chrome.storage.local.get("bridge_config");
		return { ok: r.ok, message: r.message || "", url: r.url || "", token: (got.bridge_config || {}).token || "" };
	})()`, pc.URL, strings.ToLower(pc.Code))
	got, _ := eval(claim).(map[string]any)
	want, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if got["ok"] != true || got["token"] != strings.TrimSpace(string(want)) || got["url"] != pc.URL {
		t.Fatalf("claim from the options page = %v, want the user token and %s", got, pc.URL)
	}
	again, _ := eval(claim).(map[string]any)
	if again["ok"] != false || !strings.Contains(fmt.Sprint(again["message"]), "used or expired") {
		t.Fatalf("second claim of a one-time code = %v, want refused", again)
	}
}
