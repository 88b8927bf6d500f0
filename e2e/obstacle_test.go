package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/bua-dev/bua/pkg/obstacle"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestObstacleFixtures runs a real extract on every page in
// testdata/sites/obstacles and checks the verdict expected.json gives it:
// each obstacle page flagged, each clean page left alone. It then feeds the
// extract's own url, title, markdown, elements and captchaFrame to the Go
// classifier, which must reach exactly the extension's verdict: the shared
// vectors prove the twins agree on chosen inputs, this proves it on what a
// real page produces.
func TestObstacleFixtures(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "sites", "obstacles", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]*struct {
		Type       protocol.ObstacleType
		Confidence protocol.Confidence
	}
	if err := json.Unmarshal(raw, &expected); err != nil {
		t.Fatal(err)
	}
	pages := make([]string, 0, len(expected))
	for p := range expected {
		pages = append(pages, p)
	}
	sort.Strings(pages)
	if len(pages) < 9 {
		t.Fatalf("expected.json lists only %d pages", len(pages))
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			tab := openTab(t, "obstacles/"+page)
			var r protocol.ExtractResult
			mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
			want := expected[page]
			switch {
			case want == nil && r.Obstacle != nil:
				t.Errorf("clean page flagged: %+v", r.Obstacle)
			case want != nil && r.Obstacle == nil:
				t.Errorf("no verdict, want %s (%s)", want.Type, want.Confidence)
			case want != nil && (r.Obstacle.Type != want.Type || r.Obstacle.Confidence != want.Confidence):
				t.Errorf("verdict %s (%s), want %s (%s)", r.Obstacle.Type, r.Obstacle.Confidence, want.Type, want.Confidence)
			}
			goVerdict := obstacle.Detect(obstacle.Input{
				URL: r.URL, Title: r.Title, Markdown: r.Markdown, Elements: r.Elements, CaptchaFrame: r.CaptchaFrame,
			})
			if (goVerdict == nil) != (r.Obstacle == nil) || (goVerdict != nil && *goVerdict != *r.Obstacle) {
				t.Errorf("Go classifier disagrees with the extension on the real extract:\n go  %+v\n ext %+v", goVerdict, r.Obstacle)
			}
		})
	}
}
