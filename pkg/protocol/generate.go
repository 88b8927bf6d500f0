package protocol

// The Go constants (constants_gen.go) and validators (validate_gen.go), the
// extension's constants and validators modules and the agent tool's
// inputSchema (tool.json) come from the one schema (gen.Outputs lists
// them); CI fails when any is stale. The extension's one-file worker
// bundles those modules with the rest of its sources, so it is written
// after them, here, with the page scripts (internal/bundle, esbuild;
// its TestFresh is the bundles' drift test).
//go:generate go run ./internal/protogen -root ../..
//go:generate go run ../../internal/bundle -ext ../../extension
