package gen

import (
	"encoding/json"
	"fmt"
)

// SchemaPath is the protocol schema, the one source of every output,
// relative to the repository root.
const SchemaPath = "extension/schema/protocol.schema.json"

// KeywordsPath holds a schema of every keyword the validators implement,
// and cases both languages must agree on.
const KeywordsPath = "testdata/protocol/keywords.json"

// Output is one generated file: its path relative to the repository root,
// and its content.
type Output struct {
	Path string
	Data []byte
}

// Outputs generates every file protogen writes from the sources that
// read returns (the protocol schema, the obstacle rules, the keywords
// schema, the protocol reference's prose) (paths relative to the repository root). `go generate
// ./pkg/protocol` writes them; pkg/protocol's TestGeneratedFresh compares
// them with the files on disk, so CI fails when one is stale.
func Outputs(read func(path string) ([]byte, error)) ([]Output, error) {
	doc, err := read(SchemaPath)
	if err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("%s: %w", SchemaPath, err) }
	goSrc, jsSrc, err := Generate(doc)
	if err != nil {
		return nil, wrap(err)
	}
	tool, err := GenerateTool(doc)
	if err != nil {
		return nil, wrap(err)
	}
	types, fields, err := goTypeFiles(doc)
	if err != nil {
		return nil, wrap(err)
	}
	vgo, err := ValidatorsGo(doc, "protocol", ProtocolEntries)
	if err != nil {
		return nil, wrap(err)
	}
	vjs, err := ValidatorsJS(doc, ProtocolEntries)
	if err != nil {
		return nil, wrap(err)
	}
	kw, err := read(KeywordsPath)
	if err != nil {
		return nil, err
	}
	var cases struct{ Schema json.RawMessage }
	if err := json.Unmarshal(kw, &cases); err != nil {
		return nil, fmt.Errorf("%s: %w", KeywordsPath, err)
	}
	entries := []Entry{{"validateValue", "", "", "checks a value against the keywords schema."}}
	kwgo, err := ValidatorsGo(cases.Schema, "kwtest", entries)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeywordsPath, err)
	}
	kwjs, err := ValidatorsJS(cases.Schema, entries)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeywordsPath, err)
	}
	rules, err := read(ObstacleRulesPath)
	if err != nil {
		return nil, err
	}
	obsGo, err := ObstacleGo(rules)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ObstacleRulesPath, err)
	}
	obsJS, err := ObstacleJS(rules)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ObstacleRulesPath, err)
	}
	head, err := read(ProtocolHeadPath)
	if err != nil {
		return nil, err
	}
	protoDoc, err := ProtocolDoc(doc, head)
	if err != nil {
		return nil, wrap(err)
	}
	return []Output{
		{"pkg/protocol/constants_gen.go", goSrc},
		{"pkg/protocol/types_gen.go", types},
		{"pkg/protocol/actionfields_gen.go", fields},
		{"pkg/protocol/validate_gen.go", vgo},
		{"pkg/protocol/tool.json", tool},
		{"extension/src/generated/protocol.js", jsSrc},
		{"extension/src/generated/validate.js", vjs},
		{ProtocolDocPath, protoDoc},
		{"pkg/obstacle/rules_gen.go", obsGo},
		{"extension/src/generated/obstacle-rules.js", obsJS},
		{"pkg/protocol/internal/kwtest/keywords_gen.go", kwgo},
		{"extension/test/helpers/keywords-validate.js", kwjs},
	}, nil
}
