package protocol

// The Go constants (generated.go) and the extension's constants module come
// from the one schema; CI fails when either is stale.
//go:generate go run ./internal/protogen -schema ../../extension/schema/protocol.schema.json -go generated.go -js ../../extension/src/generated/protocol.js
