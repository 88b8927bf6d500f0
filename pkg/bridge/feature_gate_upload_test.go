package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestFeatureGateUploadWindowsPaths: an upload naming a file that does
// not start with / (a drive letter, a UNC path) goes only to an extension
// whose hello lists upload_windows_paths: an older one's validator takes
// ^/ only, and would call C:\x "not an absolute path". The refusal says
// the extension is older and what to do. A /… path goes to either, and
// the gate reads the paths alone, so it holds on every OS.
func TestFeatureGateUploadWindowsPaths(t *testing.T) {
	spec := protocol.ActionSpecs[protocol.ActionUpload]
	old := &Conn{Hello: protocol.Hello{ClientVersion: "0.9.0", Caps: &protocol.Caps{Features: []string{protocol.FeatureUpload}}}}
	cur := &Conn{Hello: protocol.Hello{ClientVersion: "1.0.0", Caps: &protocol.Caps{Features: []string{protocol.FeatureUpload, protocol.FeatureUploadWindowsPaths}}}}
	tests := []struct {
		name    string
		files   []string
		windows string // the path the refusal names; "" when an older extension is sent it
	}{
		{"drive letter", []string{`C:\x\y.txt`}, `C:\x\y.txt`},
		{"forward-slash drive", []string{"C:/x/y.txt"}, "C:/x/y.txt"},
		{"UNC", []string{`\\srv\share\f.txt`}, `\\srv\share\f.txt`},
		{"after a /abs", []string{"/tmp/a.txt", `D:\b.txt`}, `D:\b.txt`},
		{"/abs", []string{"/tmp/a.txt"}, ""},
		{"none (clears)", []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			action, jerr := json.Marshal(protocol.Upload(protocol.Target{Selector: "input"}, tt.files))
			if jerr != nil {
				t.Fatal(jerr)
			}
			if err := featureGate(cur, spec, action); err != nil {
				t.Errorf("to an extension with %s: %v", protocol.FeatureUploadWindowsPaths, err)
			}
			err := featureGate(old, spec, action)
			if tt.windows == "" {
				if err != nil {
					t.Errorf("to an older extension: %v, want sent", err)
				}
				return
			}
			if err == nil || err.Code != protocol.CodeInvalidAction || err.Reason != protocol.ReasonRefused {
				t.Fatalf("to an older extension: %+v, want invalid_action reason refused", err)
			}
			for _, want := range []string{"0.9.0", "is older than this bua", tt.windows, `"upload_windows_paths"`, "update it", "reload it"} {
				if !strings.Contains(err.Message, want) {
					t.Errorf("message %q does not say %q", err.Message, want)
				}
			}
		})
	}
}
