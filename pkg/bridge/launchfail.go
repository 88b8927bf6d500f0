package bridge

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/bua-dev/bua/pkg/protocol"
)

// A managed browser that exits before its extension says hello fails the
// request that launched it at once (waitManaged watches its process), with
// why in its own words: its exit status and the last lines of
// browser/browser.log, its stderr. Without this the request would wait out
// ManagedConnectTimeout and say only that nothing connected.

// logTailLines and logTailBytes bound what of the browser's log an error
// quotes, and logLineMax each line: Chromium's last lines say why it quit,
// and an error message is no place for a whole log.
const (
	logTailLines = 6
	logTailBytes = 64 << 10
	logLineMax   = 240
)

// noDisplayMarks are what Chromium (X11, Ozone, Wayland) and GTK print when
// they find no display to open a window on.
var noDisplayMarks = []string{
	"Missing X server or $DISPLAY",
	"cannot open display",
	"Can't open display",
	"Failed to connect to Wayland display",
}

// launchError is the error of a managed browser that exited with exitErr
// (nil: status 0) before its extension connected: bridge_unavailable with
// reason browser_exited, or no_display when a browser with a window found
// no display (DISPLAY and WAYLAND_DISPLAY unset on Linux, or its log says
// so). logPath is its stderr.
func launchError(exitErr error, headless bool, logPath string, getenv func(string) string) *protocol.Error {
	status := "exit status 0"
	if exitErr != nil {
		status = exitErr.Error()
	}
	tail := readTail(logPath)
	var lines []string
	for _, l := range strings.Split(tail, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the managed browser exited at launch (%s), before its extension connected", status)
	if len(lines) == 0 {
		fmt.Fprintf(&b, "; its log (%s) is empty", logPath)
	} else {
		fmt.Fprintf(&b, "; the last lines of its log (%s):", logPath)
		for _, l := range lines {
			if len(l) > logLineMax {
				l = l[:logLineMax] + "…"
			}
			b.WriteString("\n    " + l)
		}
	}
	reason := protocol.ReasonBrowserExited
	if why := noDisplay(headless, tail, getenv); why != "" {
		reason = protocol.ReasonNoDisplay
		fmt.Fprintf(&b, "\nA browser with a window needs a display, and %s: run `bua browser start --headless`, or give it one (run bua under Xvfb: `xvfb-run bua browser start`)", why)
	}
	e := protocol.Errorf(protocol.CodeBridgeUnavailable, "%s", b.String())
	e.Reason = reason
	return e
}

// noDisplay says why a browser with a window had no display, or "": its
// log says it could not open one, or, on Linux (macOS needs no DISPLAY),
// neither DISPLAY nor WAYLAND_DISPLAY is set.
func noDisplay(headless bool, log string, getenv func(string) string) string {
	if headless {
		return ""
	}
	for _, m := range noDisplayMarks {
		if strings.Contains(log, m) {
			return fmt.Sprintf("it found none (its log says %q)", m)
		}
	}
	if runtime.GOOS == "linux" && getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return "there is none (DISPLAY and WAYLAND_DISPLAY are unset)"
	}
	return ""
}

// readTail is the last logTailBytes of the file at path, "" when it does
// not read.
func readTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > logTailBytes {
		_, _ = f.Seek(-logTailBytes, io.SeekEnd)
	}
	data, _ := io.ReadAll(io.LimitReader(f, logTailBytes))
	return string(data)
}
