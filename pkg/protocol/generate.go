package protocol

// The Go constants (generated.go), the extension's constants module and
// the agent tool's inputSchema (tool.json) come from the one schema; CI
// fails when any is stale. The extension's
// one-file worker bundles that constants module with the rest of its
// sources, so it is written after it, here, with the page scripts
// (internal/bundle, esbuild).
//go:generate go run ./internal/protogen -schema ../../extension/schema/protocol.schema.json -go generated.go -js ../../extension/src/generated/protocol.js -tool tool.json
//go:generate go run ../../internal/bundle -ext ../../extension
