// Package wine tells a test whether it runs under Wine, which runs bua's
// Windows test binaries on Linux in .ci/run (scripts/test-windows) but
// lacks some of what Windows has: a Windows Chromium, AF_UNIX, a second
// user. A test that needs one of those says so and skips under Wine only,
// naming what runs it instead; docs/testing.md lists each.
package wine
