package protocol

// The Go constants (generated.go) and the extension's constants module come
// from the one schema; CI fails when either is stale. The extension's
// one-file worker bundles that constants module with the rest of its
// sources, so it is written after it, here.
//go:generate go run ./internal/protogen -schema ../../extension/schema/protocol.schema.json -go generated.go -js ../../extension/src/generated/protocol.js
//go:generate go run ../../internal/workerbundle -root ../../extension/src -entry background.js -out ../../extension/src/generated/worker.js
