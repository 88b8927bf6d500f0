package bridge_test

// splitLayouts: Windows keeps config and state in %LOCALAPPDATA%\bua and
// the runtime dir inside it (pkg/home/dirs_windows.go), or all three in
// BUA_HOME, never apart.
const splitLayouts = false

// noSplitLayouts says why Windows has no such layouts.
const noSplitLayouts = "Windows keeps bua's dirs in one folder (pkg/home/dirs_windows.go)"
