package devbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bua-dev/bua/internal/wine"
)

// TestBuild builds bua as the harness does and runs it: a static binary
// (no dynamic section to load) that answers --version, calling itself a
// development build of the checkout's commit. The binary's name
// has .exe where the OS needs it.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil && wine.Detected() {
		t.Skip("no Go toolchain under Wine: the Linux run builds, and the Windows runner of .github/workflows/ci.yml builds bua.exe")
	}
	out := Binary(t.TempDir(), runtime.GOOS)
	if runtime.GOOS == "windows" != strings.HasSuffix(out, ".exe") {
		t.Fatalf("binary %s on %s", out, runtime.GOOS)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := Build(context.Background(), root, out, "", ""); err != nil {
		t.Fatal(err)
	}
	v, err := exec.Command(out, "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "bua ") {
		t.Fatalf("bua --version: %q, %v", v, err)
	}
	// Not the release's build: it says so, and names the commit Go
	// stamped from the checkout (when git is there to read it).
	if !strings.Contains(string(v), "-dev ") || !strings.HasSuffix(string(v), "development build)\n") {
		t.Errorf("bua --version of a development build: %q, want a -dev version and \"development build\"", v)
	}
	if head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil && len(head) >= 7 {
		if want := "(commit " + string(head[:7]); !strings.Contains(string(v), want) {
			t.Errorf("bua --version of a development build: %q, want %q", v, want)
		}
	}
	if runtime.GOOS == "linux" {
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// A dynamically linked ELF names its interpreter.
		if strings.Contains(string(data[:min(len(data), 4096)]), "/lib64/ld-linux") {
			t.Error("the binary is dynamically linked: CGO_ENABLED=0 did not take")
		}
	}
}
