package protocol

import (
	"encoding/json"
	"testing"
)

func TestCheckStateJSON(t *testing.T) {
	for _, tc := range []struct {
		wire string
		want CheckState
		bad  bool
	}{
		{wire: `true`, want: Checked},
		{wire: `false`, want: Unchecked},
		{wire: `"mixed"`, want: Mixed},
		{wire: `"true"`, bad: true},
		{wire: `1`, bad: true},
		{wire: `null`, bad: true},
	} {
		var e Element
		err := json.Unmarshal([]byte(`{"uid":"e0","role":"checkbox","checked":`+tc.wire+`}`), &e)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: read as %q, want an error", tc.wire, e.Checked)
			}
			continue
		}
		if err != nil || e.Checked != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.wire, e.Checked, err, tc.want)
			continue
		}
		out, err := json.Marshal(e)
		if want := `{"uid":"e0","role":"checkbox","checked":` + tc.wire + `}`; err != nil || string(out) != want {
			t.Errorf("%s: wrote %s %v, want %s", tc.wire, out, err, want)
		}
	}
	if out, _ := json.Marshal(Element{UID: "e1", Role: "button"}); string(out) != `{"uid":"e1","role":"button"}` {
		t.Errorf("a button carries no state: %s", out)
	}
}
