package bridge_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/protocol"
)

// TestUploadFilesChecked: the daemon refuses an upload naming a missing
// file or a directory before sending it, naming the path; files that exist
// go through as given.
func TestUploadFilesChecked(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	c := h.Client(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.txt")
	tests := []struct {
		name  string
		files []string
		want  string // "" when sent
	}{
		{"existing", []string{file}, ""},
		{"missing", []string{file, missing}, "no file at " + missing},
		{"directory", []string{dir}, dir + " is not a regular file"},
		{"none (clears)", []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(ext.Requests())
			_, err := c.Request(context.Background(), protocol.Upload(protocol.Target{Selector: "input"}, tt.files))
			sent := len(ext.Requests()) > before
			if tt.want == "" {
				if err != nil || !sent {
					t.Fatalf("err %v, sent %v: want sent", err, sent)
				}
				if got := ext.Requests()[before].Files; len(got) != len(tt.files) {
					t.Fatalf("sent files %v, want %v", got, tt.files)
				}
				return
			}
			if err == nil || err.Code != protocol.CodeInvalidAction || !strings.Contains(err.Message, tt.want) || sent {
				t.Fatalf("err %v, sent %v: want invalid_action containing %q, not sent", err, sent, tt.want)
			}
		})
	}
}

// TestDownloadHashed: a result reporting a finished download gains the
// file's sha256, read by the daemon; one whose file it cannot read keeps
// none, and its other fields.
func TestDownloadHashed(t *testing.T) {
	h := bridgetest.StartDaemon(t, bridge.Config{})
	ext := h.Connect(t)
	c := h.Client(t)
	file := filepath.Join(t.TempDir(), "report.csv")
	body := []byte("a,b\n1,2\n")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	for _, tt := range []struct{ path, want string }{
		{file, hex.EncodeToString(sum[:])},
		{file + ".gone", ""},
	} {
		ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
			if !a.Download {
				return nil, protocol.Errorf(protocol.CodeInternalError, "download not sent")
			}
			return map[string]any{"ok": true, "download": map[string]any{"path": tt.path, "filename": filepath.Base(tt.path), "size": len(body), "mime": "text/csv"}}, nil
		})
		a := protocol.Click(protocol.Target{Selector: "#export"})
		a.Download = true
		raw, err := c.Request(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		var r protocol.OKResult
		if jerr := json.Unmarshal(raw, &r); jerr != nil || r.Download == nil {
			t.Fatalf("result %s (%v)", raw, jerr)
		}
		if r.Download.SHA256 != tt.want || r.Download.Path != tt.path || r.Download.MIME != "text/csv" || r.Download.Size != int64(len(body)) {
			t.Errorf("download = %+v, want sha256 %q", r.Download, tt.want)
		}
	}
}
