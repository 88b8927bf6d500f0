// Command bundle writes the extension's generated bundles with esbuild
// (github.com/evanw/esbuild), from its ES modules:
//
//	go run ./internal/bundle -ext extension
//
// It writes these files, all committed, since the binary embeds them (a
// test fails while any is stale):
//
//   - src/generated/page.js: the page scripts (src/page), each a function
//     declaration as text, which the worker sends into pages (Pages),
//     and each script's source map, src/generated/bua-page-<marker>.js.map;
//   - src/generated/recorder-early.js: the recorder's content script
//     (EarlyRecorder);
//   - src/generated/worker.js: the service worker, background.js and every
//     module it imports, page.js included, as one file (Worker). Chrome
//     starts a one-file worker sooner than a graph of modules it fetches
//     one by one, on the cold start's critical path
//     (docs/cold-start.md#what-a-cold-start-overlaps), and its source
//     map, src/generated/worker.js.map.
//
// pkg/protocol/generate.go runs it after the constants module the worker
// bundles.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	ext := flag.String("ext", "", "the extension's folder (holding manifest.json and src)")
	flag.Parse()
	if *ext == "" {
		fmt.Fprintln(os.Stderr, "bundle: -ext is required")
		os.Exit(2)
	}
	if err := write(*ext); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// write writes page.js and the page scripts' maps, the early recorder,
// then the worker, which imports page.js.
func write(ext string) error {
	src, err := filepath.Abs(filepath.Join(ext, "src"))
	if err != nil {
		return err
	}
	for _, build := range []func(string) ([]file, error){Pages, EarlyRecorder, Worker} {
		files, err := build(src)
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(src, "generated", f.Name), f.Data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
