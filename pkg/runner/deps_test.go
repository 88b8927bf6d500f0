package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: the runner needs the wire types and a Requester only
// (pkg/protocol); the daemon, its WebSocket library and the table renderer
// stay out of its build.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, banned := range []string{"github.com/gorilla/websocket", "github.com/bua-dev/bua/pkg/bridge", "github.com/google/uuid"} {
		for _, dep := range strings.Fields(string(out)) {
			if dep == banned {
				t.Errorf("pkg/runner depends on %s", banned)
			}
		}
	}
}
