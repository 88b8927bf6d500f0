package bridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The daemon shares the machine with the browser it drives (both listen on
// 127.0.0.1 only), so it checks the files an upload names and reads the
// file a download wrote, where the extension cannot: chrome.* gives it no
// way to stat or read a local file.

// checkUploadFiles refuses an upload whose files are not all existing
// regular files, with invalid_action naming the first that is not, before
// the action is sent: Chrome's DOM.setFileInputFiles takes any path and
// the page would only fail later, reading it.
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
