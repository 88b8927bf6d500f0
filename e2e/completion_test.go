package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCompletionProtocol runs the built binary the way the bash and zsh
// scripts from `bua completion` do: the words typed so far plus
// --generate-bash-completion, expecting one candidate per line.
func TestCompletionProtocol(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--generate-bash-completion"}, []string{"click", "extract", "doctor", "browser", "run"}},
		{[]string{"browser", "--generate-bash-completion"}, []string{"start", "stop"}},
		{[]string{"extension", "--generate-bash-completion"}, []string{"path", "id"}},
	} {
		out, code := bua(ctx, tt.args...)
		if code != 0 {
			t.Fatalf("%q: exit %d", tt.args, code)
		}
		lines := "\n" + out
		for _, w := range tt.want {
			if !strings.Contains(lines, "\n"+w+"\n") {
				t.Errorf("%q: no candidate %q in:\n%s", tt.args, w, out)
			}
		}
	}
}
