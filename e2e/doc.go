// Package e2e drives the real bua binary against real headless Chromium
// with the real extension loaded, over fixture pages in testdata/sites.
//
// TestMain builds bua once, starts one managed browser for the whole
// package (`bua browser start --headless --block blocked.localhost`) and
// stops it at the end; each test opens its own tabs and closes them. The
// browser is shared, so tests run one at a time and clean up their tabs.
// A missing Chromium fails the package: there is no skip.
//
// Budget: about 3.5 minutes on a 2-core machine (193 s measured in a clean
// CI run), of which the 30 s slow-load test runs in parallel with the
// others and the 40-page corpus takes 12-17 s. Waits longer than a second
// are only where a behaviour needs them (slow pages, settle, actionability
// timeouts), each bounded.
package e2e
