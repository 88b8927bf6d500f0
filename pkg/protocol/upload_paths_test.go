package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUploadPathPattern: upload's files take an absolute path as any OS
// bua runs on writes one, /… as well as a drive letter (either slash)
// and a UNC path, since one schema serves them all; the daemon then asks
// filepath.IsAbs of its own OS (pkg/bridge/files.go). The pattern alone
// is OS-independent, so this runs everywhere. A relative path, a
// drive-relative one (C:x) and a UNC path without its share are refused
// with the x-message, which names the three forms.
func TestUploadPathPattern(t *testing.T) {
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"/abs", "/tmp/report.pdf", true},
		{"drive letter", `C:\x\y.txt`, true},
		{"lowercase drive", `d:\x.txt`, true},
		{"forward-slash drive", "C:/x/y.txt", true},
		{"UNC", `\\srv\share\f.txt`, true},
		{"UNC, forward slashes", "//srv/share/f.txt", true},
		{"extended-length", `\\?\C:\x\y.txt`, true},
		{"relative", "report.pdf", false},
		{"relative with a folder", `docs\report.pdf`, false},
		{"dot-relative", "./report.pdf", false},
		{"drive-relative", "C:report.pdf", false},
		{"UNC without a share", `\\srv`, false},
		{"a lone backslash", `\x.txt`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(Upload(Target{Selector: "input"}, []string{tt.path}))
			if err != nil {
				t.Fatal(err)
			}
			verr := ValidateAction(raw)
			if tt.ok {
				if verr != nil {
					t.Fatalf("%s refused: %v", tt.path, verr)
				}
				return
			}
			if verr == nil {
				t.Fatalf("%s accepted, want refused", tt.path)
			}
			if !strings.Contains(verr.Message, `must be an absolute path (/…, C:\… or \\server\share\…)`) {
				t.Errorf("%s: message %q does not name the forms", tt.path, verr.Message)
			}
		})
	}
}
