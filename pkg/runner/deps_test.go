package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps holds the dependency rules of docs/architecture.md#the-layers:
//   - pkg/protocol is a leaf: everything may import it, and it imports no
//     package of bua's, so its generated types and validators can never
//     pull a layer above into every build;
//   - the runner needs the wire types and a Requester only: the daemon, its
//     WebSocket library and the table renderer stay out of its build.
func TestDeps(t *testing.T) {
	const module = "github.com/bua-dev/bua/"
	tests := []struct {
		pkg    string // as go list takes it, from this directory
		self   string
		leaf   bool // no package of bua's but itself
		banned []string
	}{
		{pkg: "../protocol", self: module + "pkg/protocol", leaf: true},
		{pkg: ".", self: module + "pkg/runner", banned: []string{"github.com/gorilla/websocket", module + "pkg/bridge", "github.com/google/uuid"}},
	}
	for _, tt := range tests {
		t.Run(tt.self, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			for _, dep := range strings.Fields(string(out)) {
				if tt.leaf && strings.HasPrefix(dep, module) && dep != tt.self {
					t.Errorf("%s imports %s: it must import nothing of bua's", tt.self, dep)
				}
				for _, banned := range tt.banned {
					if dep == banned {
						t.Errorf("%s depends on %s", tt.self, banned)
					}
				}
			}
		})
	}
}
