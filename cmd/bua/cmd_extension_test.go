package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
)

const testStoreID = "abcdefghijklmnopabcdefghijklmnop"

// TestExtensionID: `bua extension id` says which ID is which: the pinned
// one (unpacked, managed) first, then each store ID of BUA_EXTENSION_IDS;
// --quiet prints the IDs alone, --json both kinds; a malformed
// BUA_EXTENSION_IDS is a usage error naming the bad entry.
func TestExtensionID(t *testing.T) {
	r := runCLI(t, nil, "", "extension", "id")
	if r.code != 0 || r.stdout != extension.ID+"\tpinned\tunpacked (bua extension path), the managed browser\n" {
		t.Errorf("extension id: exit %d, stdout %q", r.code, r.stdout)
	}
	ids := map[string]string{"BUA_EXTENSION_IDS": testStoreID + ", ponmlkjihgfedcbaponmlkjihgfedcba"}
	r = runCLIEnv(t, nil, ids, "", "extension", "id")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], extension.ID+"\tpinned\t") ||
		lines[1] != testStoreID+"\tstore\t$BUA_EXTENSION_IDS (Chrome Web Store, Edge Add-ons)" || !strings.HasPrefix(lines[2], "ponmlkjihgfedcbaponmlkjihgfedcba\tstore\t") {
		t.Errorf("extension id with store IDs: exit %d, stdout %q", r.code, r.stdout)
	}
	if r = runCLIEnv(t, nil, ids, "", "extension", "id", "--quiet"); r.stdout != extension.ID+"\n"+testStoreID+"\nponmlkjihgfedcbaponmlkjihgfedcba\n" {
		t.Errorf("extension id --quiet: %q", r.stdout)
	}
	if r = runCLIEnv(t, nil, ids, "", "extension", "id", "--json"); !strings.Contains(r.stdout, `"pinned": "`+extension.ID+`"`) || !strings.Contains(r.stdout, `"`+testStoreID+`"`) {
		t.Errorf("extension id --json: %q", r.stdout)
	}
	if r = runCLI(t, nil, "", "extension", "id", "--json"); !strings.Contains(r.stdout, `"store": []`) {
		t.Errorf("extension id --json with no store IDs: %q", r.stdout)
	}
	r = runCLIEnv(t, nil, map[string]string{"BUA_EXTENSION_IDS": testStoreID + ",abcdefghijklmnopabcdefghijklmnoq"}, "", "extension", "id")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"abcdefghijklmnopabcdefghijklmnoq" is not a Chrome extension ID`) {
		t.Errorf("extension id with a bad entry: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestServeBadExtensionIDs: `bua serve` with a malformed BUA_EXTENSION_IDS
// stops at once, exit 2, naming the entry on stderr and in its log (where
// a command that auto-started it reads why).
func TestServeBadExtensionIDs(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"nope", testStoreID + "x", strings.ToUpper(testStoreID), "chrome-extension://" + testStoreID} {
		r := runCLIEnv(t, nil, map[string]string{"BUA_HOME": dir, "BUA_LISTEN": "127.0.0.1:0", "BUA_EXTENSION_IDS": bad}, "", "serve")
		if r.code != exitUsage || !strings.Contains(r.stderr, "BUA_EXTENSION_IDS: ") || !strings.Contains(r.stderr, "is not a Chrome extension ID") || !strings.Contains(r.stderr, bad) {
			t.Errorf("serve with BUA_EXTENSION_IDS=%q: exit %d, stderr %q; want exit 2 naming it", bad, r.code, r.stderr)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "daemon.log"))
	if err != nil || !strings.Contains(string(log), "daemon failed") || !strings.Contains(string(log), "is not a Chrome extension ID") {
		t.Errorf("daemon.log: %v\n%s", err, log)
	}
}
