//go:build !linux

package home

// PortOwner names the process listening on TCP port; on this system it
// cannot be known, so it returns "".
func PortOwner(port int) string { return "" }
