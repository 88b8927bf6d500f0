//go:build unix

package main

import (
	"net"
	"time"

	"github.com/bua-dev/bua/pkg/home"
)

// dialTimed dials the daemon's link as a one-shot client does
// (pkg/home/link_unix.go: the directories' and socket's owner, connect,
// the peer's uid) and gives add each step's time in ms.
func dialTimed(dirs home.Dirs, add func(step string, ms float64)) error {
	t0 := time.Now()
	if err := dirs.CheckLink(true); err != nil {
		return err
	}
	t1 := time.Now()
	var d net.Dialer
	c, err := d.Dial("unix", dirs.Link())
	if err != nil {
		return err
	}
	defer c.Close()
	t2 := time.Now()
	if err := dirs.CheckServer(c); err != nil {
		return err
	}
	t3 := time.Now()
	add("client: CheckLink (directories, socket owner)", ms(t1.Sub(t0)))
	add("client: connect", ms(t2.Sub(t1)))
	add("client: CheckServer (peer uid)", ms(t3.Sub(t2)))
	return nil
}
