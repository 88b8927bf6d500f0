package e2e

import "testing"

// TestExtractLegacyCharset: pages that declare a legacy charset in a meta
// tag (the fixture server sends no charset parameter, like many real
// servers) extract with the right characters.
func TestExtractLegacyCharset(t *testing.T) {
	for _, tc := range []struct {
		page, title, h1, para string
	}{
		{
			"charset-windows-1252.html",
			"Café crème — legacy charset",
			"# Café crème — ½ prix",
			"“Smart quotes” cost €5 at the naïve café; æsthetics ™.",
		},
		{
			"charset-iso-8859-1.html",
			"Grüße aus Köln",
			"# Grüße aus Köln",
			"Schöne Straße, § 5 ½, 20 °C × 2.",
		},
	} {
		t.Run(tc.page, func(t *testing.T) {
			r := extract(t, openTab(t, tc.page))
			if r.Title != tc.title {
				t.Errorf("title = %q, want %q", r.Title, tc.title)
			}
			if want := tc.h1 + "\n\n" + tc.para; r.Markdown != want {
				t.Errorf("markdown = %q, want %q", r.Markdown, want)
			}
		})
	}
}
