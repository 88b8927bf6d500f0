// Package browser finds a Chromium-family executable and launches it with
// bua's extension loaded, for `bua browser start` and the end-to-end suite.
//
// Find looks in $BUA_CHROME, then PATH, then the usual macOS app bundles.
// Launch starts the browser in its own process group with a throwaway or
// persistent profile, --load-extension, and --remote-debugging-port=0 so
// benchmarks can reach the raw CDP endpoint (Process.DevToolsURL). Stop
// sends SIGTERM to the whole group, SIGKILL after a grace period, and reaps.
//
// Branded Google Chrome 137 and later ignores --load-extension, so Find
// refuses it unless nothing else is installed, with an error saying to use
// Chromium or Chrome for Testing (ErrBrandedChrome).
package browser
