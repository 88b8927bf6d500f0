package browser

import (
	"os"
	"testing"
	"time"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("Alive(own pid) = false")
	}
	for _, pid := range []int{0, -1} {
		if Alive(pid) {
			t.Errorf("Alive(%d) = true", pid)
		}
	}
	// A child that exits and is not yet reaped is a zombie: gone to Alive,
	// though signal 0 still reaches it.
	cmd := helperCmd(partExit)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	deadline := time.Now().Add(5 * time.Second)
	for Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid) {
		t.Errorf("Alive(%d) = true for a child that exited and is not reaped", pid)
	}
	_ = cmd.Wait()
	if Alive(pid) {
		t.Errorf("Alive(%d) = true after the child was reaped", pid)
	}
}
