package protocol

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"BothTargets", Action{Type: ActionClick, UID: "e1", Selector: "#a"}, "needs exactly one of selector, uid or role"},
		{"NoTarget", Action{Type: ActionHover}, "needs exactly one of selector, uid or role"},
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

// TestValidateAction_Schema checks that a schema failure carries its field
// beside the message, and that the field never reaches the wire.
func TestValidateAction_Schema(t *testing.T) {
	err := ValidateAction([]byte(`{"type":"navigate"}`))
	if err == nil || err.Schema == nil {
		t.Fatalf("got %#v, want an error with Schema", err)
	}
	if got, want := err.Schema.Path, "action"; got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
	if got, want := err.Schema.Missing, "url"; got != want {
		t.Errorf("Missing = %q, want %q", got, want)
	}
	if got, want := err.Message, err.Schema.Error(); got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	b, _ := json.Marshal(err)
	if got, want := string(b), `{"code":"invalid_action","message":"action: missing required field \"url\""}`; got != want {
		t.Errorf("wire JSON = %s, want %s", got, want)
	}
}

// TestContract pins each code's retry meaning to docs/protocol.md#errors and
// checks that the contract speaks the protocol's terms, not the CLI's.
func TestContract(t *testing.T) {
	want := map[ErrorCode]Retry{
		CodeDomainBlocked:        RetryNever,
		CodeSessionNotFound:      RetryNever,
		CodeTabNotFound:          RetryIfTransient,
		CodeElementNotFound:      RetryReExtract,
		CodeElementStale:         RetryReExtract,
		CodeTimeout:              RetryIfTransient,
		CodeDebuggerAttachFailed: RetryIfTransient,
		CodeInvalidAction:        RetryNever,
		CodeInternalError:        RetryIfTransient,
		CodeBridgeUnavailable:    RetryNever,
	}
	if got, want := len(Codes)+1, len(want); got != want {
		t.Fatalf("%d codes, the test knows %d: add the new code's retry meaning here", got, want)
	}
	for _, c := range append(Codes, CodeBridgeUnavailable) {
		info, ok := Lookup(c)
		if !ok {
			t.Errorf("%s: no contract row", c)
			continue
		}
		if got := info.Retry; got != want[c] {
			t.Errorf("%s: retry = %v, want %v", c, got, want[c])
		}
		if info.Next == "" || strings.ContainsAny(info.Next, "`\n") || strings.Contains(info.Next, " --") {
			t.Errorf("%s: next %q must be one line in the protocol's terms, without CLI advice", c, info.Next)
		}
	}
	if _, ok := Lookup("no_such_code"); ok {
		t.Error("Lookup accepted an unknown code")
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

var update = flag.Bool("update", false, "rewrite testdata/protocol/messages.json")

// TestVectorMessages pins the exact error message for every invalid vector
// in testdata/protocol/messages.json. The extension's node tests compare
// their validator with the same file, so both sides refuse each message
// for the same reason in the same words. Malformed JSON is left out: the
// two JSON parsers phrase syntax errors differently.
func TestVectorMessages(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", "invalid", "*.json"))
	got := map[string]string{}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !json.Valid(data) {
			continue
		}
		_, err := Decode(data)
		if err == nil {
			t.Fatalf("%s accepted", f)
		}
		got[filepath.Base(f)] = err.Message
	}
	path := filepath.Join("..", "..", "testdata", "protocol", "messages.json")
	if *update {
		out, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/bridge -run VectorMessages -update)", err)
	}
	var want map[string]string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Errorf("messages.json has %d entries, vectors give %d", len(want), len(got))
	}
	for name, msg := range got {
		if want[name] != msg {
			t.Errorf("%s:\n got  %q\n want %q", name, msg, want[name])
		}
	}
}
