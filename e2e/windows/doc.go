// Package windows holds the end-to-end tests that only a real Windows
// machine can run, in .github/workflows/ci.yml's Windows job: another
// local user squatting on bua's link (as e2e/faults' TestSquat does with
// setpriv on Linux), and Ctrl-Break ending `bua run` with exit 130. They
// are "verified on paper" (docs/platforms.md) until that job has run them.
package windows
