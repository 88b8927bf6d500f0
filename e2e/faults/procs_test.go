//go:build linux

package faults

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bua-dev/bua/pkg/browser"
	bhome "github.com/bua-dev/bua/pkg/home"
)

// homeProcs lists the live processes (zombies left out: a killed
// daemon's children are reparented to an init that may never reap them)
// that belong to a managed browser on profile: those whose command line
// names it, and every member of the process groups pgids.
func homeProcs(profile string, pgids ...int) []int {
	var pids []int
	for _, pg := range pgids {
		pids = append(pids, browser.GroupMembers(pg)...)
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || slices.Contains(pids, pid) || !browser.Alive(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		if strings.Contains(string(cmdline), profile) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// browserMains lists the browser main processes on profile: its command
// line names the profile and, unlike its helpers, has no --type=.
func browserMains(profile string) []int {
	var mains []int
	for _, pid := range homeProcs(profile) {
		raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		args := strings.Split(string(raw), "\x00")
		if slices.Contains(args, "--user-data-dir="+profile) && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--type=") }) {
			mains = append(mains, pid)
		}
	}
	return mains
}

// listeningTCP lists the TCP ports (v4 and v6) that processes pids listen
// on: home.ListeningSockets, matched against each process's fds.
func listeningTCP(pids []int) []int {
	ports := bhome.ListeningSockets() // "socket:[inode]" -> port
	var found []int
	for _, pid := range pids {
		fds, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/fd/*")
		for _, fd := range fds {
			if link, err := os.Readlink(fd); err == nil {
				if p, ok := ports[link]; ok && !slices.Contains(found, p) {
					found = append(found, p)
				}
			}
		}
	}
	return found
}
