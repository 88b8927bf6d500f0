package e2e

import (
	"fmt"
	"testing"
)

// BenchmarkExtractNoFrames and BenchmarkExtractFrames time a whole-page
// extract (median-ms) on a page without iframes (form.html) and on the
// frames fixture (frames/page.html: a same-origin frame and an
// out-of-process one), to show what reading frames costs: nothing where
// there are none (no command goes to a child session), one more evaluate
// per out-of-process frame, sent to all of them at once, where there are.
func BenchmarkExtractNoFrames(b *testing.B) { benchExtractPage(b, "form.html") }
func BenchmarkExtractFrames(b *testing.B)   { benchExtractPage(b, "frames/page.html") }

func benchExtractPage(b *testing.B, path string) {
	cl := benchClient(b)
	tab := benchTabAt(b, cl, path)
	extract := fmt.Sprintf(`{"type":"extract","tabId":%d}`, tab)
	benchRequest(b, cl, extract) // attach and warm up outside the timing
	timeMedian(b, func() { benchRequest(b, cl, extract) })
}
