package stackmap

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/bua-dev/bua/extension"
)

// where is the 1-based line and column at which needle first starts in
// lines, or 0, 0.
func where(lines []string, needle string) (int, int) {
	for i, l := range lines {
		if c := strings.Index(l, needle); c >= 0 {
			return i + 1, c + 1
		}
	}
	return 0, 0
}

// sourceLine is the 1-based line of needle in the extension's module mod.
func sourceLine(t *testing.T, mod, needle string) int {
	t.Helper()
	raw, err := os.ReadFile("../../extension/" + mod)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := where(strings.Split(string(raw), "\n"), needle)
	if l == 0 {
		t.Fatalf("%s has no %q", mod, needle)
	}
	return l
}

// TestWorkerFrame: a frame in the worker bundle, where navigate's load
// error is thrown, maps to that line of src/actions/nav.js, in a stack as
// Chrome prints it and in JSON as the trace carries it.
func TestWorkerFrame(t *testing.T) {
	const needle = "throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `the page could not be loaded"
	bundle, err := fs.ReadFile(extension.FS(), "src/generated/worker.js")
	if err != nil {
		t.Fatal(err)
	}
	line, col := where(strings.Split(string(bundle), "\n"), needle)
	if line == 0 {
		t.Fatalf("worker.js has no %q", needle)
	}
	want := fmt.Sprintf("src/actions/nav.js:%d:", sourceLine(t, "src/actions/nav.js", needle))
	stack := fmt.Sprintf("BridgeError: the page could not be loaded\n    at navigate (chrome-extension://%s/src/generated/worker.js:%d:%d)\n    at async run (chrome-extension://%s/src/generated/worker.js:1:1)", extension.ID, line, col+6, extension.ID)
	got := Text(stack)
	if !strings.Contains(got, "at navigate ("+want) || strings.Contains(got, "worker.js:"+fmt.Sprint(line)) {
		t.Errorf("Text mapped the frame to\n%s\nwant it at %s…", got, want)
	}
	raw, _ := json.Marshal(map[string]any{"events": []map[string]any{{"kind": "action", "text": stack}}})
	var back struct{ Events []struct{ Text string } }
	if err := json.Unmarshal(JSON(raw), &back); err != nil || back.Events[0].Text != got {
		t.Errorf("JSON: %v, text %q, want %q", err, back.Events[0].Text, got)
	}
}

// TestPageFrame: a frame in a page script, named by its sourceURL, maps
// to the page module it came from, through that script's own map.
func TestPageFrame(t *testing.T) {
	const needle = "function collectElements("
	page, err := fs.ReadFile(extension.FS(), "src/generated/page.js")
	if err != nil {
		t.Fatal(err)
	}
	// The EXTRACT script's lines, each a JSON string on a line of its own.
	_, rest, _ := strings.Cut(string(page), "export const EXTRACT = [\n")
	body, _, _ := strings.Cut(rest, "].join(")
	var script []string
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		var s string
		if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(l), ",")), &s); err != nil {
			t.Fatalf("page.js line %q: %v", l, err)
		}
		script = append(script, s)
	}
	if !strings.HasSuffix(strings.Join(script, "\n"), "//# sourceURL=bua-page-extract.js\n}") {
		t.Fatal("the EXTRACT script does not end with its sourceURL")
	}
	line, col := where(script, needle)
	want := fmt.Sprintf("src/page/elements.js:%d:", sourceLine(t, "src/page/elements.js", needle))
	got := Text(fmt.Sprintf("TypeError: x\n    at collectElements (bua-page-extract.js:%d:%d)", line, col))
	if !strings.Contains(got, "at collectElements ("+want) {
		t.Errorf("Text mapped the page frame to %q, want it at %s…", got, want)
	}
}

// TestLeavesTheRest: text with no frame of ours is returned as it is, and
// so is a frame past the end of the bundle.
func TestLeavesTheRest(t *testing.T) {
	for _, s := range []string{
		"Error: boom\n    at f (https://example.com/app.js:1:2)",
		"at g (chrome-extension://" + extension.ID + "/src/generated/worker.js:999999:1)",
		"at h (bua-page-nosuch.js:3:4)",
	} {
		if got := Text(s); got != s {
			t.Errorf("Text(%q) = %q", s, got)
		}
	}
}
