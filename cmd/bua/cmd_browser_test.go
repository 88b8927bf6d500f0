package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/bridge/bridgetest"
	"github.com/bua-dev/bua/pkg/browser"
	"github.com/bua-dev/bua/pkg/home"
)

// TestOrphanWithoutDaemon: with the daemon gone, status reports the
// browser it left, and `bua browser stop` (or `bua stop`) stops that
// browser's whole group and removes its record.
func TestOrphanWithoutDaemon(t *testing.T) {
	for _, stop := range [][]string{{"browser", "stop"}, {"stop"}} {
		t.Run(strings.Join(stop, " "), func(t *testing.T) {
			dir, err := os.MkdirTemp("", "bua") // short: the socket path must fit
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			dirs := home.Dirs{Config: dir, State: dir, Runtime: dir}
			env := map[string]string{"BUA_HOME": dir}
			pid := bridgetest.StartOrphan(t, dirs)

			r := runCLIEnv(t, nil, env, "", "status")
			if r.code != exitUnavailable || !strings.Contains(r.stdout, "orphan (pid "+strconv.Itoa(pid)) || !strings.Contains(r.stdout, "bua browser stop") {
				t.Fatalf("status: exit %d\n%s\nwant 4 and the orphan's pid %d with how to stop it", r.code, r.stdout, pid)
			}
			r = runCLIEnv(t, nil, env, "", "status", "--json")
			var st struct {
				Daemon  string `json:"daemon"`
				Managed struct {
					Running bool `json:"running"`
					Orphan  bool `json:"orphan"`
					PID     int  `json:"pid"`
				} `json:"managed"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Daemon != "down" || !st.Managed.Orphan || !st.Managed.Running || st.Managed.PID != pid {
				t.Fatalf("status --json = %s (%v): want daemon down and the orphan %d", r.stdout, err, pid)
			}

			start := time.Now()
			r = runCLIEnv(t, nil, env, "", stop...)
			if r.code != 0 || !strings.Contains(r.stdout, "managed browser stopped (pid "+strconv.Itoa(pid)) {
				t.Fatalf("%v: exit %d\n%s%s", stop, r.code, r.stdout, r.stderr)
			}
			if m := browser.GroupMembers(pid); len(m) > 0 {
				t.Fatalf("after %v: group %d still has %v", stop, pid, m)
			}
			if _, err := os.Stat(dirs.BrowserRecord()); !os.IsNotExist(err) {
				t.Fatalf("record left after %v: %v", stop, err)
			}
			t.Logf("%v stopped the orphan in %s", stop, time.Since(start).Round(time.Millisecond))

			r = runCLIEnv(t, nil, env, "", "status")
			if strings.Contains(r.stdout, "orphan") {
				t.Fatalf("status after stop still reports an orphan:\n%s", r.stdout)
			}
			if r = runCLIEnv(t, nil, env, "", "browser", "stop"); r.code != 0 || !strings.Contains(r.stdout, "no managed browser") {
				t.Fatalf("second browser stop: exit %d\n%s", r.code, r.stdout)
			}
		})
	}
}
