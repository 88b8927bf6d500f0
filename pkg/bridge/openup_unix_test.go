//go:build unix

package bridge_test

import (
	"os"
	"testing"
)

// openUp opens path to other users, as a file left by an older bua or
// another tool may be: 0644.
func openUp(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
