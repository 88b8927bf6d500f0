// Command workerbundle writes the extension's service worker as one file:
// background.js and every module it imports (Bundle). Chrome starts a
// one-file worker sooner than a graph of modules it fetches one by one, on
// the cold start's critical path (docs/cold-start.md#what-a-cold-start-overlaps).
//
//	go run ./internal/workerbundle -root extension/src -entry background.js -out extension/src/generated/worker.js
//
// pkg/protocol/generate.go runs it after the constants module it bundles.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", "", "folder the modules' paths are relative to")
	entry := flag.String("entry", "", "the worker's entry module, under -root")
	out := flag.String("out", "", "file to write")
	flag.Parse()
	if *root == "" || *entry == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "workerbundle: -root, -entry and -out are required")
		os.Exit(2)
	}
	b, err := Bundle(os.DirFS(*root), *entry)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "workerbundle:", err)
		os.Exit(1)
	}
}
