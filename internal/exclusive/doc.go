// Package exclusive listens on a TCP address that no other process may
// bind beside the listener: the daemon's WebSocket port and, on Windows,
// the CLI's link. On Windows a second socket can bind a port already in
// use unless the first set SO_EXCLUSIVEADDRUSE (listen_windows.go), so a
// process of another user could take over connections meant for bua's;
// on Unix the kernel refuses a second bind of a listening port to any
// other user already (listen_other.go).
package exclusive
