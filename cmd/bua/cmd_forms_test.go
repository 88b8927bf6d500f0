package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TestSelectCommand: select sends one of value, label or index as a list
// (repeated flags, never split on commas), prints the values selected,
// and refuses a mix or none before sending anything.
func TestSelectCommand(t *testing.T) {
	h, ext := startFake(t)
	ext.Handle(protocol.ActionSelectOption, func(a protocol.Action) (any, *protocol.Error) {
		return protocol.SelectOptionResult{Values: append([]string{"x"}, a.Value...)}, nil
	})
	tests := []struct {
		args   []string
		code   int
		want   protocol.Action // the fields checked: Value, Label, Index
		stdout string
	}{
		{[]string{"select", "e3", "--value", "a", "--value", "b, c"}, 0, protocol.Action{Value: protocol.OneOrMany[string]{"a", "b, c"}}, `selected "x", "a", "b, c"`},
		{[]string{"select", "#s", "--label", "Doe, John"}, 0, protocol.Action{Label: protocol.OneOrMany[string]{"Doe, John"}}, `selected "x"`},
		{[]string{"select", "#s", "--index", "0", "--index", "4"}, 0, protocol.Action{Index: protocol.OneOrMany[int]{0, 4}}, ""},
		{[]string{"select", "#s", "--value", "a", "--label", "A"}, exitUsage, protocol.Action{}, ""},
		{[]string{"select", "#s"}, exitUsage, protocol.Action{}, ""},
		{[]string{"select", "#s", "--index", "-1"}, exitUsage, protocol.Action{}, ""},
		{[]string{"select", "--value", "a"}, exitUsage, protocol.Action{}, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			before := len(ext.Requests())
			r := runCLI(t, h, "", tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", r.code, tt.code, r.stderr)
			}
			reqs := ext.Requests()
			if tt.code != 0 {
				if len(reqs) != before {
					t.Fatalf("sent %+v, want nothing sent", reqs[len(reqs)-1])
				}
				return
			}
			got := reqs[len(reqs)-1]
			if got.Type != protocol.ActionSelectOption || !reflect.DeepEqual(got.Value, tt.want.Value) || !reflect.DeepEqual(got.Label, tt.want.Label) || !reflect.DeepEqual(got.Index, tt.want.Index) {
				t.Fatalf("sent %+v, want value %v label %v index %v", got, tt.want.Value, tt.want.Label, tt.want.Index)
			}
			if tt.stdout != "" && !strings.Contains(r.stdout, tt.stdout) {
				t.Fatalf("stdout %q, want %q", r.stdout, tt.stdout)
			}
		})
	}
}

// TestUploadCommand: upload resolves relative paths against the working
// directory, and a missing file is refused (exit 2) naming its path,
// before anything reaches the extension.
func TestUploadCommand(t *testing.T) {
	h, ext := startFake(t)
	wd, _ := os.Getwd()
	r := runCLI(t, h, "", "upload", "input[type=file]", "cmd_forms_test.go")
	reqs := ext.Requests()
	if r.code != 0 || len(reqs) == 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := reqs[len(reqs)-1]; got.Type != protocol.ActionUpload || !reflect.DeepEqual([]string(got.Files), []string{filepath.Join(wd, "cmd_forms_test.go")}) {
		t.Fatalf("sent %+v", got)
	}
	before := len(reqs)
	r = runCLI(t, h, "", "upload", "e2", "no-such-file.pdf")
	want := filepath.Join(wd, "no-such-file.pdf")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no file at "+want) || len(ext.Requests()) != before {
		t.Fatalf("missing file: exit %d, stderr %q, sent %d; want exit 2 naming %s, nothing sent", r.code, r.stderr, len(ext.Requests())-before, want)
	}
	if r := runCLI(t, h, "", "upload", "e2"); r.code != exitUsage {
		t.Fatalf("no FILE: exit %d, want 2", r.code)
	}
}

// TestClickDownloadCommand: click --download DIR sends download: true and
// puts the file in DIR: moved out of bua's own downloads folder (the
// managed browser's), copied from anywhere else (a person's).
func TestClickDownloadCommand(t *testing.T) {
	h, ext := startFake(t)
	managed := filepath.Join(h.Dirs.State, "downloads")
	person := t.TempDir()
	for _, tt := range []struct {
		name, src string
		moved     bool
	}{
		{"managed", filepath.Join(managed, "report.csv"), true},
		{"person", filepath.Join(person, "report.csv"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Dir(tt.src), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tt.src, []byte("a,b\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			ext.Handle(protocol.ActionClick, func(a protocol.Action) (any, *protocol.Error) {
				if !a.Download {
					return nil, protocol.Errorf(protocol.CodeInvalidAction, "no download: true")
				}
				return map[string]any{"ok": true, "tabId": 4, "download": map[string]any{"path": tt.src, "filename": "report.csv", "size": 4, "mime": "text/csv"}}, nil
			})
			dir := filepath.Join(t.TempDir(), "out")
			r := runCLI(t, h, "", "--json", "click", "#export", "--download", dir)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			var res protocol.OKResult
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Download == nil {
				t.Fatalf("stdout %q (%v)", r.stdout, err)
			}
			dst := filepath.Join(dir, "report.csv")
			if res.Download.Path != dst || len(res.Download.SHA256) != 64 {
				t.Fatalf("download %+v, want path %s and a sha256", res.Download, dst)
			}
			if b, err := os.ReadFile(dst); err != nil || string(b) != "a,b\n" {
				t.Fatalf("%s: %q %v", dst, b, err)
			}
			if _, err := os.Stat(tt.src); os.IsNotExist(err) != tt.moved {
				t.Fatalf("source left in place: %v, want moved %v", err == nil, tt.moved)
			}
		})
	}
	// Without --download, no download: true is sent.
	if r := runCLI(t, h, "", "press", "Enter"); r.code != 0 {
		t.Fatalf("press: exit %d", r.code)
	}
	if last := ext.Requests()[len(ext.Requests())-1]; last.Type != protocol.ActionPressKey || last.Download {
		t.Fatalf("press sent %+v, want press_key without download", last)
	}
}

// TestDeliverDownloadName: a file Chrome renamed "report (1).bin" in bua's
// own folder because report.bin was there already reaches DIR as
// report.bin; a name that only looks like that keeps it.
func TestDeliverDownloadName(t *testing.T) {
	managed := t.TempDir()
	for _, tt := range []struct {
		earlier, got, want string
	}{
		{"report.bin", "report (1).bin", "report.bin"},
		{"", "minutes (2).txt", "minutes (2).txt"},
		{"notes", "notes (3)", "notes"},
	} {
		if tt.earlier != "" {
			if err := os.WriteFile(filepath.Join(managed, tt.earlier), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		src := filepath.Join(managed, tt.got)
		if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		res, err := deliverDownload(json.RawMessage(`{"ok":true,"download":{"path":`+strconvQuote(src)+`,"filename":"x","size":1}}`), dir, managed)
		if err != nil {
			t.Fatal(err)
		}
		var r protocol.OKResult
		if json.Unmarshal(res, &r); r.Download.Path != filepath.Join(dir, tt.want) || r.Download.Filename != tt.want {
			t.Errorf("%s: delivered as %+v, want %s", tt.got, r.Download, tt.want)
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
