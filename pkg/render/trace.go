package render

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// TraceLine is one trace event, as `bua trace` prints it and an agent
// reads it: time, kind, level or status, then the text or URL.
// Page-supplied text is made safe for a terminal: control characters (an
// ANSI escape a page logged) are shown escaped, and a multi-line message
// (a stack) is kept on one line.
func TraceLine(ev protocol.TraceEvent) string {
	ms := int64(math.Round(ev.T))
	when := time.UnixMilli(ms).Format("15:04:05.000")
	var mark, rest string
	switch ev.Kind {
	case protocol.TraceConsole:
		mark, rest = ev.Level, ev.Text
	case protocol.TraceDialog:
		mark, rest = ev.Level, ev.Text
		if ev.Answer != "" { // bua answered it (schema traceEvent answer)
			how := ev.Answer + " by " + ev.Action
			if rest = strings.TrimSpace(rest); rest != "" {
				how = rest + ": " + how
			}
			rest = how
		}
	case protocol.TraceException:
		mark, rest = "uncaught", ev.Text
		if ev.URL != "" {
			rest += " (" + ev.URL + ")"
		}
	case protocol.TraceRequest:
		mark = "failed"
		if ev.Status != 0 {
			mark = fmt.Sprint(ev.Status)
		}
		rest = strings.TrimSpace(ev.Method + " " + ev.URL)
		if ev.ErrorText != "" {
			rest += ": " + ev.ErrorText
		}
	case protocol.TraceNavigate:
		mark, rest = "-", ev.URL
	case protocol.TraceAction:
		mark = "ok"
		switch {
		case ev.Code != "":
			mark = ev.Code
		case ev.Level != "":
			mark = ev.Level
		}
		rest = fmt.Sprintf("%s %dms", ev.Action, ev.DurationMs)
		if ev.Text != "" { // an internal_error's stack (schema traceEvent text)
			rest += ": " + ev.Text
		}
	default:
		mark, rest = ev.Level, ev.Text
	}
	if mark == "" {
		mark = "-"
	}
	return fmt.Sprintf("%s %-10s %-8s %s", when, ev.Kind, mark, TerminalSafe(rest))
}

// TerminalSafe keeps s on one line and shows control characters as Go
// escapes (\x1b), so a page cannot move the cursor or recolour the
// terminal of whoever reads its trace.
func TerminalSafe(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if i > 0 {
			b.WriteString(" ⏎ ")
			line = strings.TrimLeft(line, " \t")
		}
		for _, r := range line {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				q := fmt.Sprintf("%+q", string(r))
				b.WriteString(q[1 : len(q)-1])
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
