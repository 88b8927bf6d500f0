package bridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The daemon shares the machine with the browser it drives (both listen on
// 127.0.0.1 only), so it checks the files an upload names and reads the
// file a download wrote, where the extension cannot: chrome.* gives it no
// way to stat or read a local file.

// checkUploadFiles refuses an upload whose files are not all absolute
// paths of existing regular files, with invalid_action naming the first
// that is not, before the action is sent: Chrome's DOM.setFileInputFiles
// takes any path and the page would only fail later, reading it.
//
// "Absolute" is filepath.IsAbs on the OS the daemon runs on, which is the
// browser's too: the schema's pattern admits /…, C:\… and \\server\share\…
// on every OS (one schema serves them all), so C:\x passes it on Linux, where
// it is a relative name, and /x on Windows, where it has no drive. A
// relative path would be read against the daemon's working directory,
// which is not the caller's: the CLI and the flow runner resolve theirs
// before sending, so one that gets here comes from a raw request.
func checkUploadFiles(action json.RawMessage) *protocol.Error {
	if !bytes.Contains(action, []byte(`"files"`)) {
		return nil
	}
	var a struct {
		Type  protocol.ActionType `json:"type"`
		Files []string            `json:"files"`
	}
	if json.Unmarshal(action, &a) != nil || a.Type != protocol.ActionUpload {
		return nil
	}
	for _, f := range a.Files {
		if !filepath.IsAbs(f) {
			e := protocol.Errorf(protocol.CodeInvalidAction, "upload: %s is not an absolute path on this machine (%s), where the daemon reads the files: the request is at fault (bua upload, flow steps and bua mcp resolve relative paths before they send; a raw request must do it itself); send the file's absolute path, e.g. %s", f, runtime.GOOS, absExample())
			e.Reason = protocol.ReasonRefused
			return e
		}
		fi, err := os.Stat(f)
		var e *protocol.Error
		switch {
		case err != nil && os.IsNotExist(err):
			e = protocol.Errorf(protocol.CodeInvalidAction, "upload: no file at %s: check the path (files are read on the machine bua runs on)", f)
		case err != nil:
			e = protocol.Errorf(protocol.CodeInvalidAction, "upload: cannot read %s: %v", f, err)
		case !fi.Mode().IsRegular():
			e = protocol.Errorf(protocol.CodeInvalidAction, "upload: %s is not a regular file (a directory or device): name the files in it instead", f)
		}
		if e != nil {
			e.Reason = protocol.ReasonRefused
			return e
		}
	}
	return nil
}

// absExample is an absolute path as this OS writes one, for messages.
func absExample() string {
	if runtime.GOOS == "windows" {
		return `C:\Users\me\report.pdf`
	}
	return "/home/me/report.pdf"
}

// nonSlashUploadPath is the first of an upload's files that does not
// start with /, or "": the Windows paths (C:\…, \\server\share\…) that
// an extension without protocol.FeatureUploadWindowsPaths would refuse,
// its validator taking ^/ only (featureGate). action is the encoded
// action object.
func nonSlashUploadPath(action json.RawMessage) string {
	var a struct {
		Files []string `json:"files"`
	}
	if json.Unmarshal(action, &a) != nil {
		return ""
	}
	for _, f := range a.Files {
		if !strings.HasPrefix(f, "/") {
			return f
		}
	}
	return ""
}

// hashDownload adds download.sha256 to a result that reports a finished
// download (the schema's result.download), read from the file the browser
// wrote. A file it cannot read keeps no sha256, which the schema allows;
// the caller still has its path and size.
func hashDownload(result json.RawMessage) json.RawMessage {
	if !bytes.Contains(result, []byte(`"download"`)) {
		return result
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r["download"] == nil {
		return result
	}
	var d map[string]any
	if json.Unmarshal(r["download"], &d) != nil {
		return result
	}
	path, _ := d["path"].(string)
	sum, err := fileSHA256(path)
	if path == "" || err != nil {
		return result
	}
	d["sha256"] = sum
	if r["download"], err = json.Marshal(d); err != nil {
		return result
	}
	out, err := json.Marshal(r)
	if err != nil {
		return result
	}
	return out
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
