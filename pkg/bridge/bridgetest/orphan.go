package bridgetest

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

// StartOrphan stands in for a managed browser whose daemon was killed: a
// process group led by a process whose command line names the home's
// profile as --user-data-dir, recorded in dirs.BrowserRecord as the
// daemon records its browser. It returns the group's pid; the group is
// killed when t ends.
func StartOrphan(t testing.TB, dirs home.Dirs) int {
	t.Helper()
	profile := filepath.Join(dirs.BrowserDir(), "profile")
	cmd := exec.Command("sh", "-c", "sleep 60 & wait", "sh", "--user-data-dir="+profile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	rec, err := browser.Identify(pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	if err := browser.WriteRecord(dirs.BrowserRecord(), rec); err != nil {
		t.Fatal(err)
	}
	return pid
}
