package e2e

import (
	"reflect"
	"testing"
)

// imageLinks are the links of testdata/sites/imagelinks.html: the inline
// <a> shapes real pages wrap their images in (a logo with whitespace around
// its image, a tight thumbnail, an image with a caption, a link that wraps
// over lines, a link around a block, a block image, a link inside an
// inline wrapper, a picture), each with the accessible name extract gives
// it.
var imageLinks = []struct{ id, name string }{
	{"logo", "Site logo"},
	{"tight", "Tight thumbnail"},
	{"captioned", "Read more"},
	{"wrapped", "a link whose text wraps over several lines of the paragraph"},
	{"card", "A card: an inline link around a block"},
	{"blockimg", "Block image"},
	{"inwrapper", "Wrapped image"},
	{"picture", "Picture"},
}

// TestClickImageLinks clicks each image link of the fixture, by selector
// and by uid, and checks that the page got one trusted click on that very
// link. Issue 21: the stability check compared an inline link's border box
// (its own line box, the height of its font) with its content quads (the
// image it wraps), which never agree, so such a click waited out its whole
// deadline and failed "not stable (it moved between two reads)". The
// --timeout here is short so that a regression fails in seconds, not
// minutes; a ready link is clicked in milliseconds.
func TestClickImageLinks(t *testing.T) {
	tab := openTab(t, "imagelinks.html")
	uids := extract(t, tab)
	for _, by := range []string{"selector", "uid"} {
		t.Run(by, func(t *testing.T) {
			for _, l := range imageLinks {
				evaluate(t, tab, "window.clicks = []; return true")
				target := map[string]any{"selector": "#" + l.id}
				if by == "uid" {
					target = map[string]any{"uid": uidOf(t, uids, "link", l.name)}
				}
				a := map[string]any{"type": "click", "tabId": tab}
				for k, v := range target {
					a[k] = v
				}
				if _, e, _ := request(t, a, "--timeout", "3s"); e != nil {
					t.Errorf("click %s %v: %s: %s", l.id, target, e.Code, e.Message)
					continue
				}
				if got := evaluate(t, tab, "return window.clicks"); !reflect.DeepEqual(got, []any{l.id}) {
					t.Errorf("click %s %v: the page saw clicks %v, want [%s]", l.id, target, got, l.id)
				}
			}
		})
	}
}
