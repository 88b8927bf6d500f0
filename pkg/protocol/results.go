package protocol

// The result types (OKResult, ExtractResult, ...) are generated from the
// schema's result defs into types_gen.go; their methods are here.

// Cut reports whether the element list holds fewer elements than the page has.
func (r ExtractResult) Cut() bool { return r.ElementsTotal > len(r.Elements) }
