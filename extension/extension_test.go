package extension

import "testing"

func TestID(t *testing.T) {
	got, err := IDFromKey(PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if want := ID; got != want {
		t.Fatalf("ID from manifest key = %q, constant ID = %q: regenerate one from the other", got, want)
	}
}
