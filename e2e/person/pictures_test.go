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

// Pictures are 800×600 CSS px at scale 1: the size docs/ shows them at.
const pictureW, pictureH = 800, 600

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

// savePicture checks that data is an 800×600 PNG and writes it to the
// artifacts dir as name, and with -update-docs to docs/name too.
func savePicture(t *testing.T, name string, data []byte) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", name, err)
	}
	if got := (image.Point{cfg.Width, cfg.Height}); got != (image.Point{pictureW, pictureH}) {
		t.Errorf("%s is %v, want %dx%d", name, got, pictureW, pictureH)
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
	savePicture(t, "options.png", p.png(pictureW, pictureH))
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
	savePicture(t, "popup.png", p.png(pictureW, pictureH))
}
