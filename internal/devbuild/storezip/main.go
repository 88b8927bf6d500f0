// Command storezip writes the extension's zip for the Chrome Web Store
// and Edge Add-ons: the files `bua extension path` writes out (the same
// embedded files, through extension.WriteTo, so the store gets what
// "Load unpacked" and the managed browser get), with manifest.json's
// "key" left out, since the stores refuse a manifest that has one and
// give the extension an ID of their own.
//
//	go run ./internal/devbuild/storezip -mtime 2026-12-07T14:00:15Z -o OUT.zip
//
// Every file gets the time -mtime names (the release's commit time) and
// mode 0644, in path order, so two runs over one commit write the same
// bytes. The release runs it from .goreleaser.yaml's before hooks.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bua-dev/bua/extension"
)

func main() {
	out := flag.String("o", "", "the zip to write (its folder is created)")
	mtime := flag.String("mtime", "", "every file's time, RFC 3339: the release's commit time")
	flag.Parse()
	if *out == "" || *mtime == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/devbuild/storezip -mtime RFC3339 -o OUT.zip")
		os.Exit(2)
	}
	t, err := time.Parse(time.RFC3339, *mtime)
	if err != nil {
		fmt.Fprintln(os.Stderr, "storezip: -mtime:", err)
		os.Exit(2)
	}
	if err := writeFile(*out, t); err != nil {
		fmt.Fprintln(os.Stderr, "storezip:", err)
		os.Exit(1)
	}
}

// writeFile writes the store zip to out whole or not at all.
func writeFile(out string, t time.Time) error {
	var buf bytes.Buffer
	if err := write(&buf, t); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// write writes the store zip to w: what extension.WriteTo writes, each
// file at time t and mode 0644, manifest.json without "key".
func write(w io.Writer, t time.Time) error {
	dir, err := os.MkdirTemp("", "bua-storezip-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := extension.WriteTo(dir, nil); err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	// WalkDir visits in lexical order: the zip's order is the paths'.
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if name == "manifest.json" {
			if data, err = withoutKey(data); err != nil {
				return err
			}
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: t.UTC()}
		h.SetMode(0o644)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	return zw.Close()
}

// withoutKey is manifest, as extension.WriteTo wrote it, without "key";
// the rest, "version" included, is unchanged, so the store's extension
// reports the version this build's binary bundles (bua doctor compares
// them).
func withoutKey(manifest []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if _, ok := m["key"]; !ok {
		return nil, errors.New(`manifest.json has no "key": nothing pins the unpacked extension's ID`)
	}
	delete(m, "key")
	return json.MarshalIndent(m, "", "  ")
}
