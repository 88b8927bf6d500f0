// Package home keeps every file bua owns behind one small API: the token,
// the CLI's unix socket, the daemon's lock, logs and event log, and the
// managed browser's profile. It is the one place that knows about XDG
// directories, $BUA_HOME, file modes (0600 files in 0700 directories) and
// unix socket limits, so a future Windows port changes this package only.
package home
