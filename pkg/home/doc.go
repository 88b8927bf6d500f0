// Package home keeps every file bua owns behind one small API: the tokens,
// the CLI's link to the daemon (a unix socket, or on Windows loopback TCP
// and the link file that carries its key), the daemon's lock, logs and
// event log, and the managed browser's profile. It is the one place that
// knows each OS's folders ($BUA_HOME, XDG, %LOCALAPPDATA%), what private
// means there (0600 files in 0700 directories; an owner SID and a DACL),
// and how the link's two ends prove each other: files named _unix.go and
// _windows.go hold what differs (docs/platforms.md).
package home
