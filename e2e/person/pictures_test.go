//go:build linux

package person

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The options page is pictured at 800×600 CSS px, scale 1; the popup, a
// narrow page, at 400 px wide and as tall as its content (200-600 px).
const (
	optionsW, optionsH = 800, 600
	popupW             = 400
)

// artifactsDir is where the suite saves its pictures: $BUA_ARTIFACTS, or
// e2e/person/out/ (gitignored), which outlives the test's temp dirs.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BUA_ARTIFACTS")
	if dir == "" {
		dir = "out"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// savePicture checks that data is a w×h PNG and writes it to the
// artifacts dir as name, and with -update-docs to docs/name too.
func savePicture(t *testing.T, name string, data []byte, w, h int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", name, err)
	}
	if got := (image.Point{cfg.Width, cfg.Height}); got != (image.Point{w, h}) {
		t.Errorf("%s is %v, want %dx%d", name, got, w, h)
	}
	paths := []string{filepath.Join(artifactsDir(t), name)}
	if *updateDocs {
		paths = append(paths, filepath.Join("..", "..", "docs", name))
	}
	for _, p := range paths {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("saved %s (%d bytes) to %v", name, len(data), paths)
}

// TestPictureOptions saves the options page as a paired person sees it:
// connected, in a tab of its own.
func TestPictureOptions(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	p := openOptions(t, c)
	p.front()
	p.waitTrue(10*time.Second, `document.querySelector("#state").dataset.state === "connected"`)
	savePicture(t, "options.png", p.png(optionsW, optionsH), optionsW, optionsH)
}

// TestPicturePopup saves the toolbar popup (action.default_popup, opened
// as a tab) while bua has a live session, which the popup lists
// (#sessions li[data-tab-id]).
func TestPicturePopup(t *testing.T) {
	c := devtools(t)
	ensurePaired(t, c)
	popup := manifestPage(t, "popup")
	if popup == "" {
		t.Fatal("the extension's manifest names no action.default_popup: there is no popup to picture")
	}
	tab, _ := openTab(t, siteURL("person/card.html?picture"))
	mustOK(t, "extract", bua(t, "extract", "--tab", strconv.Itoa(tab)))
	p := newPage(t, c, popup, map[string]any{"newWindow": true})
	p.front()
	p.waitTrue(10*time.Second, `document.querySelector("#state") && document.querySelector("#state").dataset.state === "connected" &&
		Boolean(document.querySelector('#sessions li[data-tab-id="`+strconv.Itoa(tab)+`"]'))`)
	p.png(popupW, 600) // lay the page out at the popup's width first
	// As tall as its content: the lowest bottom of the body's children,
	// plus a margin (the document is at least as tall as the viewport).
	h := int(p.eval(`Math.min(600, Math.max(200, Math.ceil(16 + Math.max(...[...document.body.children].map((e) => e.getBoundingClientRect().bottom)))))`).(float64))
	savePicture(t, "popup.png", p.png(popupW, h), popupW, h)
}
