//go:build unix

package bridge_test

// splitLayouts: the config, state and runtime dirs may live apart
// (XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR).
const splitLayouts = true

// noSplitLayouts says why an OS has no such layouts.
const noSplitLayouts = ""
