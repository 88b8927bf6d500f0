package nearest

import "testing"

func TestWord(t *testing.T) {
	words := []string{"button", "checkbox", "steps", "secrets", "name", "base_url"}
	tests := []struct {
		s       string
		maxDist int
		want    string
	}{
		{"buton", 2, "button"},
		{"step", 2, "steps"},
		{"secret", 2, "secrets"},
		{"chekbox", 1, "checkbox"},
		{"nmae", 1, "name"},         // a transposition is one edit
		{"bsae_url", 1, "base_url"}, // in the middle too
		{"chcekbxo", 2, "checkbox"}, // two of them
		{"nmea", 1, ""},             // two swaps are two edits
		{"zzzzzz", 2, ""},
		{"", 2, ""},
	}
	for _, tt := range tests {
		if got := Word(tt.s, words, tt.maxDist); got != tt.want {
			t.Errorf("Word(%q, %d) = %q, want %q", tt.s, tt.maxDist, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"kitten", "sitting", 3},
		{"nmae", "name", 1},
		{"ab", "ba", 1},
		{"abc", "ca", 3}, // optimal string alignment: no edit of a swapped pair
		{"teh", "the", 1},
		{"", "abc", 3},
		{"abc", "", 3},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
