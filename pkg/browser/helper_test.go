package browser

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// These tests need processes that stand in for a browser and its helpers
// on every OS, with nothing but the test binary: TestMain turns the binary
// into one when helperEnv names a part, before the test flags are parsed
// (a stand-in's --user-data-dir would fail them).
const helperEnv = "BUA_BROWSER_TEST_PROC"

// Parts a stand-in plays.
const (
	partTree         = "tree"          // starts a helper (partSleep), then sleeps
	partTreeStubborn = "tree-stubborn" // ignores SIGTERM, and so does its helper
	partSleep        = "sleep"         // sleeps
	partExit         = "exit"          // exits at once
	partLauncher     = "launcher"      // launches a partTree browser (Windows: launch_windows_test.go)
	partCheckParent  = "check-parent"  // prints Check's verdict on its parent's group
)

// helperLife bounds a stand-in's life should its test die first.
const helperLife = 60 * time.Second

func TestMain(m *testing.M) {
	switch part := os.Getenv(helperEnv); part {
	case "":
		os.Exit(m.Run())
	case partExit:
		os.Exit(0)
	case partLauncher:
		runLauncher()
	case partCheckParent:
		parent := os.Getppid()
		if err := GroupOf(parent).Check(); err != nil {
			os.Stdout.WriteString(err.Error())
		} else {
			os.Stdout.WriteString("allowed")
		}
		os.Exit(0)
	case partTree, partTreeStubborn:
		child := partSleep
		if part == partTreeStubborn {
			ignoreTerm()
			child = partSleep + "-stubborn"
		}
		helper := exec.Command(os.Args[0])
		helper.Env = append(os.Environ(), helperEnv+"="+child)
		_ = helper.Start()
	case partSleep + "-stubborn":
		ignoreTerm()
	}
	time.Sleep(helperLife)
	os.Exit(0)
}

// helperCmd is the test binary playing part, with args on its command
// line as a browser's flags are.
func helperCmd(part string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+part)
	return cmd
}

// startGroup starts a stand-in playing part as the leader of a group of
// its own (newGroup: a process group on Unix, a tree on Windows), reaped
// in the background, so the test can stop the group as a process that did
// not launch it would. It returns once the stand-in's helper runs.
func startGroup(t *testing.T, part string, args ...string) int {
	t.Helper()
	cmd := helperCmd(part, args...)
	newGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pid := cmd.Process.Pid
	g := GroupOf(pid)
	t.Cleanup(func() { _ = g.Kill() })
	deadline := time.Now().Add(5 * time.Second)
	for len(GroupMembers(pid)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(GroupMembers(pid)); n < 2 {
		t.Fatalf("group %d has %d members, want the stand-in and its helper", pid, n)
	}
	return pid
}
