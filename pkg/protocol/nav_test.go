package protocol

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/bua-dev/bua/extension"
)

// TestNavEnums: the hand-written WaitUntilValues and DialogPolicies, which
// the CLI checks its flags against, are the schema's own enums, in order.
func TestNavEnums(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(extension.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	for def, got := range map[string][]string{"waitUntil": WaitUntilValues, "dialogPolicy": DialogPolicies} {
		if want := doc.Defs[def].Enum; fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Errorf("$defs/%s enum %v, Go has %v", def, want, got)
		}
	}
	for _, a := range []Action{
		{Type: ActionNavigate, URL: "https://a.test/", WaitUntil: WaitUntilNetworkIdle, Dialogs: DialogsAccept},
		{Type: ActionOpenTab, URL: "https://a.test/", WaitUntil: WaitUntilCommit},
		CloseTab(3),
	} {
		if err := a.Validate(); err != nil {
			t.Errorf("%+v: %v", a, err)
		}
	}
}
