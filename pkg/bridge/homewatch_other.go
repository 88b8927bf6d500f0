//go:build !linux

package bridge

// watchDirs watches nothing off Linux: the daemon's periodic home check
// (HomeCheckInterval) alone notices a deleted home there.
func watchDirs([]string, func()) (stop func()) { return func() {} }
