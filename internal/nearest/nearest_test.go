package nearest

import "testing"

func TestWord(t *testing.T) {
	words := []string{"button", "checkbox", "steps", "secrets"}
	tests := []struct {
		s       string
		maxDist int
		want    string
	}{
		{"buton", 2, "button"},
		{"step", 2, "steps"},
		{"secret", 2, "secrets"},
		{"chekbox", 1, "checkbox"},
		{"zzzzzz", 2, ""},
		{"", 2, ""},
	}
	for _, tt := range tests {
		if got := Word(tt.s, words, tt.maxDist); got != tt.want {
			t.Errorf("Word(%q, %d) = %q, want %q", tt.s, tt.maxDist, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
