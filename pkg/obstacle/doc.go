// Package obstacle classifies a page as an obstacle an agent cannot get past
// on its own — a login wall, a CAPTCHA, or an access-denied / rate-limit page —
// from the inputs the extension gathers during extract. It implements
// docs/protocol.md#obstacles.
//
// The classifier is a pure function: Detect(Input) returns nil or an
// *Obstacle{Type, Confidence, Message}, the exact object that travels on the
// wire as extract's "obstacle". Explain returns the same verdict together
// with the layer that fired and every signal it saw, for `bua obstacle` and
// for debugging; FormatText renders it for humans. ParseInput reads either
// the JSON of `bua extract --json` or a bare inputs object.
//
// The classifier's data, its patterns, needles, labels, thresholds and
// verdicts, is one file, extension/schema/obstacle.rules.json, which `go
// generate` writes as this package's tables (rules_gen.go) and as the
// extension's (extension/src/generated/obstacle-rules.js), where
// extension/src/read/obstacle.js runs it with the same steps as Explain here:
// a pattern, a threshold or a message is edited once. The steps themselves
// exist in both languages, since bua obstacle classifies offline, with no
// browser or daemon, and extract classifies in the extension; the vectors
// in testdata/obstacle/*.json hold both to the same verdicts.
//
// Layers, cheapest first; the first to fire wins:
//
//	L1 captcha (high)        captcha iframe or captcha URL; challenge phrases
//	L2 access_denied (high)  403 / forbidden / 429 / rate limit / blocked as a
//	                         headline, in a short page, in the title or URL
//	L3 auth_wall (high)      password field plus auth URL or auth title
//	L4 auth_wall (high|low)  two or more distinct auth signals (high), or one
//	                         on a short page (low)
//
// The design is biased toward false negatives: reporting a wall that is not
// there stops an agent that could have continued, which costs more than
// letting it discover the wall itself. Hence the page-size gates: markdown
// of ShortPageChars or more is not scanned for free-text phrases, and from
// ContentPageChars on only unambiguous signals (captcha frame or URL,
// challenge boilerplate, L3) count — such a page has content to use.
package obstacle
