package browser

import (
	"bufio"
	"context"
	"os"

	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLaunchJob: Launch puts the browser, helpers and all, in its job
// object from the first instruction (it starts suspended), and Stop
// terminates the job: no process of the tree is left. The browser is the
// test binary playing one (partTree), with Launch's own flags.
func TestLaunchJob(t *testing.T) {
	t.Setenv(helperEnv, partTree) // for the browser Launch starts
	profile := filepath.Join(t.TempDir(), spaced, "profile")
	p, err := Launch(context.Background(), Options{Exec: os.Args[0], ProfileDir: profile, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.sys.job == 0 {
		t.Fatal("the browser was not put in a job object")
	}
	pid := p.Pid()
	waitMembers(t, pid, 2)
	if _, err := Identify(pid, profile); err != nil {
		t.Errorf("Identify: %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if m := GroupMembers(pid); len(m) > 0 {
		t.Fatalf("the tree still has %v after Stop", m)
	}
}

// TestJobEndsWithLauncher: when the process that launched the browser
// dies (a daemon killed from Task Manager, or crashed), its job handle
// closes and the browser's whole tree ends with it: no orphan. The
// launcher is the test binary playing one (partLauncher).
func TestJobEndsWithLauncher(t *testing.T) {
	launcher := helperCmd(partLauncher, filepath.Join(t.TempDir(), "profile"))
	out, err := launcher.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := launcher.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		launcher.Process.Kill()
		t.Fatalf("the launcher said %q (%v, %v)", line, err, perr)
	}
	waitMembers(t, pid, 2)
	if err := launcher.Process.Kill(); err != nil { // TerminateProcess
		t.Fatal(err)
	}
	_ = launcher.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for len(GroupMembers(pid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if m := GroupMembers(pid); len(m) > 0 {
		_ = GroupOf(pid).Kill()
		t.Fatalf("the browser's tree outlived its launcher: %v", m)
	}
}

// waitMembers waits until the tree under pid has n live members.
func waitMembers(t *testing.T, pid, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(GroupMembers(pid)) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if m := GroupMembers(pid); len(m) < n {
		t.Fatalf("the tree under %d has %v, want %d members", pid, m, n)
	}
}

// runLauncher plays partLauncher: it launches a stand-in browser on the
// profile in os.Args[1], prints its pid, and waits to be killed.
func runLauncher() {
	os.Setenv(helperEnv, partTree)
	p, err := Launch(context.Background(), Options{Exec: os.Args[0], ProfileDir: os.Args[1], Headless: true})
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString(strconv.Itoa(p.Pid()) + "\n")
	time.Sleep(helperLife)
	os.Exit(0)
}

// TestOwnTreeRefused: a process may not signal a tree it runs inside,
// here its parent's: a child of this test checks its parent's group. (On
// Unix, TestGroupCheck's own-group row covers this: a child shares its
// parent's process group, which is not named by the parent's pid.)
func TestOwnTreeRefused(t *testing.T) {
	out, err := helperCmd(partCheckParent).Output()
	if err != nil || !strings.Contains(string(out), "own process group") {
		t.Fatalf("the child's Check of its parent's group: %q, %v; want a refusal saying own process group", out, err)
	}
}
