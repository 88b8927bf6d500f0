package e2e

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// BlockedDomain is seeded into the managed browser's blocklist. Chromium
// resolves every *.localhost name to loopback, so the fixture server is
// reachable under it without touching /etc/hosts.
const BlockedDomain = "blocked.localhost"

var (
	buaBin   string   // the binary built by TestMain
	buaEnv   []string // the environment every bua command runs with
	sitePort int      // the fixture server's port on 127.0.0.1
	buaHome  string
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	harness.RequireBrowser("e2e")
	tmp := harness.TempDir("bua")
	defer os.RemoveAll(tmp)
	buaBin = harness.BuildBua("..", tmp)
	buaHome = filepath.Join(tmp, "h")
	if err := os.MkdirAll(buaHome, 0o700); err != nil {
		log.Fatal(err)
	}
	// The DevTools wrapper gives this package's browser a CDP port of its
	// own, for the tests that drive the options page and time the raw CDP
	// floor; bua launches browsers without one.
	buaEnv = append(os.Environ(), "BUA_HOME="+buaHome, "BUA_LISTEN=127.0.0.1:0", "BUA_CHROME="+harness.DevToolsChrome(tmp))
	port, stop := harness.ServeSites("../testdata/sites")
	defer stop()
	sitePort = port

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	out, code := bua(ctx, "browser", "start", "--headless", "--block", BlockedDomain)
	cancel()
	if code != 0 {
		dumpLogs()
		log.Fatalf("e2e: bua browser start exited %d:\n%s", code, out)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if out, code := bua(ctx, "browser", "stop"); code != 0 {
			log.Printf("e2e: bua browser stop exited %d:\n%s", code, out)
		}
		if out, code := bua(ctx, "stop"); code != 0 {
			log.Printf("e2e: bua stop exited %d:\n%s", code, out)
		}
	}()

	code = m.Run()
	if code != 0 {
		dumpLogs()
	}
	return code
}

// bua runs the built binary and returns its output (stdout, then stderr)
// and exit code.
func bua(ctx context.Context, args ...string) (string, int) {
	r := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, args...)
	return r.Output(), r.Code
}

func dumpLogs() { harness.DumpLogs(buaHome) }

// siteURL is path on the fixture server, e.g. siteURL("form.html").
func siteURL(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(sitePort) + "/" + path
}

// hostURL is path on the fixture server under another loopback host name,
// e.g. hostURL("sub.blocked.localhost", "index.html").
func hostURL(host, path string) string {
	return "http://" + host + ":" + strconv.Itoa(sitePort) + "/" + path
}
