package bridge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestVectors runs every shared protocol vector; the extension's node tests
// run the same files, so the two validators cannot drift apart.
func TestVectors(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) < 20 {
			t.Fatalf("%s: only %d vectors", dir, len(files))
		}
		for _, f := range files {
			t.Run(dir+"/"+strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				m, perr := Decode(data)
				if dir == "valid" {
					if perr != nil {
						t.Fatalf("Decode: %v", perr)
					}
					if m.Type == "" {
						t.Fatal("decoded message has no type")
					}
					return
				}
				if perr == nil {
					t.Fatalf("Decode accepted an invalid vector as %q", m.Type)
				}
				if got, want := perr.Code, CodeInvalidAction; got != want {
					t.Fatalf("code = %q, want %q", got, want)
				}
				if perr.Message == "" {
					t.Fatal("empty error message")
				}
			})
		}
	}
}

func TestActionValidateMessages(t *testing.T) {
	tests := []struct {
		name   string
		action Action
		want   string // substring of the error message; "" means valid
	}{
		{"OK", Click(Target{UID: "e3"}), ""},
		{"BothTargets", Action{Type: ActionClick, UID: "e1", Selector: "#a"}, "Exactly one of selector or uid"},
		{"NoTarget", Action{Type: ActionHover}, "Exactly one of selector or uid"},
		{"JavascriptURL", Navigate("javascript:alert(1)"), "url"},
		{"TimeoutTooLong", WaitFor(Target{Selector: "#x"}, 61e9), "timeoutMs"},
		{"BadKey", PressKey("Hyper+a"), "key"},
		{"EmptyExpression", Evaluate(" "), "expression"},
		{"ScrollSideways", Scroll("left", 0), "direction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.action.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate accepted an invalid action")
			}
			if !strings.Contains(err.Message, tt.want) {
				t.Fatalf("message %q does not mention %q", err.Message, tt.want)
			}
		})
	}
}

func TestContract(t *testing.T) {
	for _, c := range append(Codes, CodeBridgeUnavailable) {
		info, ok := Contract[c]
		if !ok {
			t.Errorf("%s: no contract row", c)
			continue
		}
		if info.Hint == "" || info.Retry == "" {
			t.Errorf("%s: empty hint or retry", c)
		}
	}
	if got, want := (&Error{Code: CodeDomainBlocked}).ExitCode(), ExitBlocked; got != want {
		t.Errorf("domain_blocked exit = %d, want %d", got, want)
	}
	if got, want := (&Error{Code: CodeTimeout}).ExitCode(), ExitTimeout; got != want {
		t.Errorf("timeout exit = %d, want %d", got, want)
	}
	if got, want := (&Error{Code: CodeBridgeUnavailable}).ExitCode(), ExitUnavailable; got != want {
		t.Errorf("bridge_unavailable exit = %d, want %d", got, want)
	}
	if !strings.Contains(Contract[CodeElementStale].Hint, "bua extract") {
		t.Error("element_stale hint must tell the user to run bua extract")
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"e3": {UID: "e3"}, "e120": {UID: "e120"}, "#e3": {Selector: "#e3"},
		"email": {Selector: "email"}, "e3 a": {Selector: "e3 a"},
	} {
		if got := ParseTarget(in); got != want {
			t.Errorf("ParseTarget(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// TestFastPathAgrees proves the dispatching fast path accepts exactly what
// the full schema accepts, on every shared vector and on each vector's
// action alone.
func TestFastPathAgrees(t *testing.T) {
	cs := schemas()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", "*", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			continue // not JSON: neither path sees it
		}
		full := cs.message.Validate(inst) == nil
		if fast := fastValid(cs, inst, false); fast && !full {
			t.Errorf("%s: fast path accepts what the schema rejects", filepath.Base(f))
		} else if full && !fast {
			t.Errorf("%s: fast path misses a valid message (falls back, slower)", filepath.Base(f))
		}
		if m, ok := inst.(map[string]any); ok && m["action"] != nil {
			full := cs.action.Validate(m["action"]) == nil
			if fast := fastValid(cs, m["action"], true); fast != full {
				t.Errorf("%s: action fast=%v full=%v", filepath.Base(f), fast, full)
			}
		}
	}
}
