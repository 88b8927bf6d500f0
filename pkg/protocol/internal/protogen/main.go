// Command protogen writes every file generated from the protocol schema,
// extension/schema/protocol.schema.json, the one source of the protocol:
// the Go constants, types and validators of package protocol, the
// extension's constants and validators, and the agent tool's inputSchema
// (gen.Outputs lists them). `go generate ./pkg/protocol` runs it; CI runs
// it and fails on a diff.
//
// Usage: protogen -root DIR, DIR being the repository's root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bua-dev/bua/pkg/protocol/internal/protogen/gen"
)

func main() {
	root := flag.String("root", "", "the repository's root")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if root == "" {
		return fmt.Errorf("usage: protogen -root DIR")
	}
	outs, err := gen.Outputs(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) })
	if err != nil {
		return err
	}
	for _, o := range outs {
		if err := os.WriteFile(filepath.Join(root, o.Path), o.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
