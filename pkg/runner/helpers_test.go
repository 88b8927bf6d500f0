package runner

import (
	"encoding/base64"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bua-dev/bua/pkg/runner/event"
	"github.com/bua-dev/bua/pkg/runner/progress"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func writeFile(tb interface {
	Fatal(...any)
	Helper()
}, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// printer is the progress printer `bua run` gives the runner, writing to
// w as to a file (no terminal, no colour).
func printer(w io.Writer) event.Sink { return progress.New(w, false, false) }

// scrubDir takes dir, and the / after it, out of a report written in it,
// leaving prefix in their place. Reports write every path slash-separated
// (ReportPath), in the messages they carry too, so only that form is
// scrubbed: a golden holds the same text on every OS, and a path a
// report left in the OS's form shows on Windows as a difference.
func scrubDir(s, dir, prefix string) string {
	return strings.ReplaceAll(s, filepath.ToSlash(dir)+"/", prefix)
}
