package main

import (
	"errors"

	"github.com/bua-dev/bua/pkg/home"
)

// dialTimed times the Unix socket's checks, which Windows' link (loopback
// TCP with a mutual proof, pkg/home/link_windows.go) does not have: the
// trace runs on Linux and macOS.
func dialTimed(home.Dirs, func(string, float64)) error {
	return errors.New("bench/trace times the Unix socket's checks: run it on Linux or macOS")
}
