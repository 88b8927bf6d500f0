// Package stackmap names the extension's source files in its stack
// frames. Chrome runs the service worker as one bundle,
// extension/src/generated/worker.js, and each page script as a function
// whose frames carry the script's sourceURL, bua-page-<marker>.js
// (internal/bundle writes both, with a source map beside each); Chrome
// does not apply source maps to Error.stack, so a frame reads
// "at navigate (chrome-extension://<id>/src/generated/worker.js:4711:13)".
// The daemon passes what the extension reports through JSON before anyone
// prints it, and the frame reads "at navigate (src/actions/nav.js:137:13)".
package stackmap

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"sync"

	"github.com/bua-dev/bua/extension"
	"github.com/go-sourcemap/sourcemap"
)

// frame is a location in one of the extension's bundles as V8 prints it
// in a stack: the worker bundle's URL (the extension's ID is any, so a
// build with another key maps too) or a page script's sourceURL, then
// line and column, both 1-based.
var frame = regexp.MustCompile(`chrome-extension://[a-p]{32}/src/(generated/worker\.js):(\d+):(\d+)|\b(bua-page-[a-z_]+\.js):(\d+):(\d+)`)

// generated is where the bundles and their maps are, in the extension's
// files (extension.FS) and so in a map's paths to its sources.
const generated = "src/generated"

// Text returns s with every frame of the extension's bundles in it
// mapped to its source: the module's path under the extension's folder,
// its line and column ("src/actions/nav.js:137:13"). A frame no map
// covers stays as it is.
func Text(s string) string {
	if !mayHold([]byte(s)) {
		return s
	}
	return frame.ReplaceAllStringFunc(s, mapFrame)
}

// JSON returns raw, a JSON value, with every frame in its strings mapped
// as Text maps it, and every other byte as it was (raw itself when it
// holds no frame). Rewriting the bytes is safe: a frame and what it
// becomes hold no character JSON escapes. A worker frame becomes shorter;
// a page script's may grow by a few characters, so a text the extension
// clipped to its limit may end past it (schema traceEvent text).
func JSON(raw []byte) []byte {
	if !mayHold(raw) {
		return raw
	}
	return frame.ReplaceAllFunc(raw, func(b []byte) []byte { return []byte(mapFrame(string(b))) })
}

// mayHold is a cheap test that b may hold a frame, so the answers that
// hold none (nearly all) pay no regular expression.
func mayHold(b []byte) bool {
	return bytes.Contains(b, []byte("/src/generated/worker.js:")) || bytes.Contains(b, []byte("bua-page-"))
}

// mapFrame maps one location frame matched.
func mapFrame(loc string) string {
	m := frame.FindStringSubmatch(loc)
	bundle, line, col := m[1], m[2], m[3]
	if bundle == "" {
		bundle, line, col = m[4], m[5], m[6]
	}
	l, _ := strconv.Atoi(line)
	c, _ := strconv.Atoi(col)
	src, ok := Source(path.Base(bundle), l, c)
	if !ok {
		return loc
	}
	return src
}

// Source maps line and column (1-based, as a stack prints them) of
// bundle, the name of a file in the extension's generated folder
// ("worker.js", "bua-page-extract.js"), to "path:line:column" of the
// module they came from, the path relative to the extension's folder
// ("src/actions/nav.js:137:13"). ok is false when bundle has no map or
// the map nothing there.
func Source(bundle string, line, column int) (loc string, ok bool) {
	c := consumer(bundle)
	if c == nil || line < 1 || column < 1 {
		return "", false
	}
	file, _, l, col, ok := c.Source(line, column-1)
	if !ok || file == "" {
		return "", false
	}
	return fmt.Sprintf("%s:%d:%d", path.Join(generated, file), l, col+1), true
}

var (
	mu        sync.Mutex
	consumers = map[string]*sourcemap.Consumer{}
)

// consumer is bundle's source map, read from the embedded extension once
// (nil when it has none, or a broken one: a frame is then left as it is).
func consumer(bundle string) *sourcemap.Consumer {
	mu.Lock()
	defer mu.Unlock()
	if c, seen := consumers[bundle]; seen {
		return c
	}
	var c *sourcemap.Consumer
	if raw, err := fs.ReadFile(extension.FS(), path.Join(generated, bundle+".map")); err == nil {
		c, _ = sourcemap.Parse("", raw)
	}
	consumers[bundle] = c
	return c
}
