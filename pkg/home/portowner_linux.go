package home

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListeningSockets maps each listening TCP socket (v4 and v6) on this
// machine, by the name its fds link to ("socket:[INODE]"), to its port,
// from /proc/net/tcp{,6}. It is empty where that cannot be read.
func ListeningSockets() map[string]int {
	socks := map[string]int{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st ... uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, ok := strings.Cut(fields[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil {
				socks["socket:["+fields[9]+"]"] = int(p)
			}
		}
		f.Close()
	}
	return socks
}

// PortOwner names the process listening on TCP port, as "pid N (comm)",
// from ListeningSockets and the fds in /proc/*/fd. It returns "" when
// that cannot be known: another user's process, or no /proc.
func PortOwner(port int) string {
	inodes := map[string]bool{}
	for sock, p := range ListeningSockets() {
		if p == port {
			inodes[sock] = true
		}
	}
	if len(inodes) == 0 {
		return ""
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && inodes[link] {
			pidDir := filepath.Dir(filepath.Dir(fd))
			comm, _ := os.ReadFile(filepath.Join(pidDir, "comm"))
			return fmt.Sprintf("pid %s (%s)", filepath.Base(pidDir), strings.TrimSpace(string(comm)))
		}
	}
	return ""
}
