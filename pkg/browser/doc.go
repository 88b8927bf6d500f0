// Package browser finds a Chromium-family executable and launches it with
// bua's extension loaded, for `bua browser start` and the end-to-end suite.
//
// Find looks in $BUA_CHROME, then PATH, then the usual macOS app bundles.
// Launch starts the browser in its own process group with a throwaway or
// persistent profile and --load-extension, and without a DevTools port: bua
// drives it through the extension only (a test that wants CDP of its own
// wraps the browser, e2e/harness.DevToolsChrome). Stop sends SIGTERM to the
// whole group, SIGKILL after a grace period, and reaps.
//
// A Record (Identify) writes a launched browser down so that a process
// other than its parent (a new daemon after a crash, `bua browser stop`
// with no daemon) can find it, tell it from a process that reused its pid,
// and stop its group (StopRecorded).
//
// Branded Google Chrome 137 and later ignores --load-extension, so Find
// refuses it unless nothing else is installed, with an error saying to use
// Chromium or Chrome for Testing (ErrBrandedChrome).
package browser
