// Package kwtest holds validators that protogen generates from the
// keywords schema in testdata/protocol/keywords.json, and runs that file's
// cases against them. The extension's node tests run the same cases
// against the JavaScript that protogen writes from the same schema
// (extension/test/helpers/keywords-validate.js), so every keyword the
// protocol's validators implement is proved to read the same in both
// languages, beyond what the protocol schema happens to use.
package kwtest
