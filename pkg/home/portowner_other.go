//go:build !linux && !windows && !darwin

package home

// PortOwner names the process listening on TCP port; on this system it
// cannot be known, so it returns "".
func PortOwner(port int) string { return "" }

// ListeningSockets maps listening TCP sockets to their ports; on this
// system they cannot be read, so it is empty.
func ListeningSockets() map[string]int { return map[string]int{} }
