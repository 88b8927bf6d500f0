package protocol

// GetTrace reads the tab's trace ring buffer from sequence number sinceSeq
// on (0: everything it still holds); a pure addition to v4, sent only to an
// extension whose hello lists the trace feature.
func GetTrace(sinceSeq int) Action {
	return Action{Type: ActionGetTrace, SinceSeq: &sinceSeq}
}

// The extension's trace bounds per tab (docs/extension.md §Trace): events,
// and UTF-8 bytes of the events' JSON. Rings are kept for at most
// TraceMaxTabs tabs. TraceEvent and TraceResult are generated from the
// schema (types_gen.go).
const (
	TraceMaxEvents = 500
	TraceMaxBytes  = 256 << 10
	TraceMaxTabs   = 16
)
