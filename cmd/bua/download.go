package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// deliverDownload puts the finished download a result reports into dir
// and returns the result with download.path and filename naming it there.
// A file the managed browser saved (under managedDir, bua's own) is moved;
// one in a person's downloads folder is copied, leaving theirs in place.
// A file of that name in dir is replaced.
func deliverDownload(res json.RawMessage, dir, managedDir string) (json.RawMessage, error) {
	var r map[string]any
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, fmt.Errorf("the result is not JSON: %v", err)
	}
	dl, _ := r["download"].(map[string]any)
	src, _ := dl["path"].(string)
	if src == "" {
		return nil, errors.New("the result reports no downloaded file: update the extension (`bua extension path`)")
	}
	name := filepath.Base(src)
	rel, rerr := filepath.Rel(managedDir, src)
	managed := rerr == nil && !strings.HasPrefix(rel, "..")
	if m := uniquified().FindStringSubmatch(name); managed && m != nil {
		// Chrome named it "report (1).bin" because an earlier report.bin
		// is still in bua's folder: DIR gets the name the site gave.
		if _, err := os.Stat(filepath.Join(filepath.Dir(src), m[1]+m[2])); err == nil {
			name = m[1] + m[2]
		}
	}
	dst := filepath.Join(dir, name)
	if dst != src {
		var err error
		if managed {
			err = moveFile(src, dst)
		} else {
			err = copyFile(src, dst)
		}
		if err != nil {
			return nil, fmt.Errorf("downloaded to %s, but could not put it in %s: %v", src, dir, err)
		}
	}
	dl["path"], dl["filename"] = dst, filepath.Base(dst)
	return json.Marshal(r)
}

// uniquified matches the " (N)" Chrome adds to a download's name when a
// file of that name is already in the folder: base, extension.
var uniquified = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+) \([0-9]+\)(\.[^. ]+)?$`) })

// moveFile renames src to dst, or copies and removes it across devices.
func moveFile(src, dst string) error {
	if os.Rename(src, dst) == nil {
		return nil
	}
	if err := copyFile(src, dst); err != nil {
		return err
	}
	return os.Remove(src)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
