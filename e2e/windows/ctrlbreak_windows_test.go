package windows

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// TestCtrlBreak: Ctrl-Break (and Ctrl-C, which Windows delivers only to a
// whole console) stops `bua run` as SIGINT does on Unix: exit 130, the
// reports written. bua runs in a process group of its own, so the event
// reaches it alone.
func TestCtrlBreak(t *testing.T) {
	if hwnd, _, _ := procGetConsoleWindow.Call(); hwnd == 0 {
		// A job step may have no console; console events need one,
		// shared with bua.
		if r, _, err := procAllocConsole.Call(); r == 0 {
			t.Fatalf("no console to send Ctrl-Break through: %v", err)
		}
	}
	dir := t.TempDir()
	flow := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(flow, []byte("name: slow\nsteps:\n  - sleep: 60s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	cmd := exec.Command(buaBin, "run", flow, "--report", "json="+report)
	cmd.Env = append(os.Environ(), "BUA_HOME="+filepath.Join(dir, "h"), "BUA_LISTEN=127.0.0.1:0", "CI=true")
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	started := make(chan struct{})
	var seen strings.Builder
	go func() {
		for lines.Scan() {
			seen.WriteString(lines.Text() + "\n")
			// The flow's first line: it runs, and the sleep is next.
			if strings.HasPrefix(lines.Text(), "flow slow") {
				select {
				case <-started:
				default:
					close(started)
				}
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the flow never started:\n%s", seen.String())
	}
	time.Sleep(500 * time.Millisecond) // into the sleep
	// Wine 8 sends no console event to a process group ("Invalid
	// handle"): this runs on the Windows runner only.
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(cmd.Process.Pid)); err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("bua run did not stop within 15 s of Ctrl-Break")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after Ctrl-Break, want 130\n%s", code, seen.String())
	}
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), `"interrupted": true`) && !strings.Contains(string(data), `"interrupted":true`) {
		t.Errorf("the report after Ctrl-Break: %v\n%s", err, data)
	}
}

// procGetConsoleWindow is kernel32's GetConsoleWindow, which
// golang.org/x/sys/windows does not wrap.
var procGetConsoleWindow = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleWindow")

// procAllocConsole is kernel32's AllocConsole, likewise.
var procAllocConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("AllocConsole")
