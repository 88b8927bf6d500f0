// Package e2e drives the real bua binary against real headless Chromium
// with the real extension loaded, over fixture pages in testdata/sites.
//
// TestMain builds bua once, starts one managed browser for the whole
// package (`bua browser start --headless --block blocked.localhost`) and
// stops it at the end; each test opens its own tabs and closes them. The
// browser is shared, so tests run one at a time and clean up their tabs.
// A missing Chromium fails the package: there is no skip.
package e2e
