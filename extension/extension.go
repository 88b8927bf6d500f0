// Package extension embeds bua's Chrome MV3 extension (this folder) in the
// binary, so one executable can write it out for "Load unpacked" or for a
// managed browser's --load-extension, and so the daemon can pin the
// extension's Origin.
//
// The protocol schema lives here too (schema/protocol.schema.json): the
// single source from which `go generate` writes both sides' constants,
// types and validators (pkg/protocol/internal/protogen); `bua schema`
// prints it.
package extension

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// files holds the extension as Chrome loads it. Tests, node tooling, Go
// sources and the schema (the worker validates with code generated from
// it) are left out: Chrome rejects nothing of them, but users do not need
// them in their profile. The bundles' source maps (src/generated/*.map)
// are in: pkg/stackmap maps the extension's stack frames through them,
// and DevTools shows the worker's modules with worker.js.map.
//
//go:embed manifest.json src
var files embed.FS

// Schema is the protocol v4 JSON Schema (draft 2020-12), the single source
// of the protocol: message validation on both sides of the bridge is
// generated from it.
//
//go:embed schema/protocol.schema.json
var Schema []byte

// FS returns the extension's files, rooted at the folder Chrome loads.
func FS() fs.FS { return files }

// PublicKey returns the manifest's pinned "key": the base64 DER
// SubjectPublicKeyInfo from which Chrome derives the extension ID.
func PublicKey() string {
	var m struct {
		Key string `json:"key"`
	}
	raw, err := files.ReadFile("manifest.json")
	if err != nil {
		panic(err) // embedded at build time: absence is a build bug
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(fmt.Sprintf("extension/manifest.json: %v", err))
	}
	return m.Key
}

// Version is the version WriteTo writes into the manifest, which the
// extension reports as its clientVersion in hello: the source manifest's
// "version" (e.g. 0.1.0) and a fourth part, 1-65535, from a hash of every
// embedded file. Chrome keeps an extension's service worker from the last
// start in the profile and runs it again unless the manifest's version
// changed, so a rebuilt bua whose extension differs must say so; and
// `bua doctor` can tell a person's Chrome runs another build's extension.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	var m struct {
		Version string `json:"version"`
	}
	raw, _ := files.ReadFile("manifest.json")
	_ = json.Unmarshal(raw, &m)
	h := fnv.New32a()
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	return fmt.Sprintf("%s.%d", m.Version, 1+h.Sum32()%65535)
})

// WrittenVersion is the version of the extension WriteTo wrote into dir,
// or "" when dir holds none.
func WrittenVersion(dir string) string {
	var m struct {
		Version string `json:"version"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil || json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return m.Version
}

// manifest is manifest.json as WriteTo writes it: "version" set to
// Version(), and "version_name" to the source version people read.
func manifest() ([]byte, error) {
	raw, err := files.ReadFile("manifest.json")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["version_name"] = m["version"]
	m["version"] = Version()
	return json.MarshalIndent(m, "", "  ")
}

// IDFromKey derives a Chrome extension ID from a manifest key: the first 128
// bits of SHA-256 over the DER public key, each hex digit mapped 0-f to a-p.
func IDFromKey(key string) (string, error) {
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return "", fmt.Errorf("manifest key is not base64: %w", err)
	}
	sum := sha256.Sum256(der)
	var b strings.Builder
	for _, c := range fmt.Sprintf("%x", sum[:16]) {
		if c <= '9' {
			b.WriteRune('a' + (c - '0'))
		} else {
			b.WriteRune('a' + 10 + (c - 'a'))
		}
	}
	return b.String(), nil
}

// ID is the pinned extension ID. The daemon's default allowed Origin is
// "chrome-extension://" + ID; TestID keeps it in step with the manifest key.
const ID = "hfknkhfjieglpckamkjeghfifjpncaoi"

// Origin is the WebSocket Origin the bundled extension sends.
const Origin = "chrome-extension://" + ID

// WriteTo writes the extension into dir (created 0700 if missing), files at
// 0600, replacing what is there, and returns dir. Its manifest carries
// Version(), so Chrome runs this build's service worker, not one it kept. extra files (for example a
// managed browser's pairing.json) are written beside the manifest.
func WriteTo(dir string, extra map[string][]byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		data, err := files.ReadFile(p)
		if p == "manifest.json" {
			data, err = manifest()
		}
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		return "", err
	}
	for name, data := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}
