// Command protogen writes the protocol's constants, in Go and in
// JavaScript, from extension/schema/protocol.schema.json, the one source of
// the protocol (protocol v4 §Message Envelope: "the schema is the API").
// `go generate ./pkg/protocol` runs it; CI runs it and fails on a diff.
//
// Usage: protogen -schema FILE -go FILE -js FILE [-tool FILE]
//
// -tool writes the agent tool's flat inputSchema (gen.Model.Tool), which
// `bua mcp` serves as its one tool's.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bua-dev/bua/pkg/protocol/internal/protogen/gen"
)

func main() {
	schemaPath := flag.String("schema", "", "the protocol schema (JSON)")
	goOut := flag.String("go", "", "the Go file to write")
	jsOut := flag.String("js", "", "the ES module to write")
	toolOut := flag.String("tool", "", "the agent tool's inputSchema (JSON) to write")
	flag.Parse()
	if err := run(*schemaPath, *goOut, *jsOut, *toolOut); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

func run(schemaPath, goOut, jsOut, toolOut string) error {
	if schemaPath == "" || goOut == "" || jsOut == "" {
		return fmt.Errorf("usage: protogen -schema FILE -go FILE -js FILE")
	}
	doc, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	goSrc, jsSrc, err := gen.Generate(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	if err := os.WriteFile(goOut, goSrc, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(jsOut, jsSrc, 0o644); err != nil {
		return err
	}
	if toolOut == "" {
		return nil
	}
	tool, err := gen.GenerateTool(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	return os.WriteFile(toolOut, tool, 0o644)
}
