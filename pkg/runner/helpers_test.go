package runner

import (
	"encoding/base64"
	"flag"
	"os"
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
