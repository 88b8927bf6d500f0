// Command buaclient is the in-process side of bench/peers for bua: one
// long-lived bridge.Client, the way a Go program embeds bua, timing each
// action inside this process so that the pipe to the Node driver stays
// outside the figure (as Playwright's calls are timed inside Node).
//
// It reads one JSON command per line on stdin and answers one JSON line on
// stdout:
//
//	{"action": {...protocol v4 action...}, "n": 5}
//	→ {"ms": [1.23, ...], "result": {...last result...}}
//	→ {"error": {"code": "...", "message": "..."}}
//
// n (default 1) is how many times the action runs back to back; ms holds
// each run's wall time in milliseconds. The daemon is the one BUA_HOME
// names; buaclient never starts one, so a missing daemon is an error the
// driver reports rather than a cold start hidden inside a warm figure.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/bua-dev/bua/pkg/bridge"
	"github.com/bua-dev/bua/pkg/home"
	"github.com/bua-dev/bua/pkg/protocol"
)

// command is one line from the driver.
type command struct {
	Action json.RawMessage `json:"action"`
	N      int             `json:"n"`
}

// reply is one line to the driver: samples and the last result, or the
// protocol error that stopped the run.
type reply struct {
	Ms     []float64       `json:"ms,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *protocol.Error `json:"error,omitempty"`
}

// actionTimeout bounds one action; a 5,000-button extract on a loaded
// machine takes seconds, never this long.
const actionTimeout = 60 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "buaclient:", err)
		os.Exit(1)
	}
}

func run() error {
	dirs, err := home.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	cl, perr := bridge.Dial(ctx, bridge.ClientOptions{Dirs: dirs})
	cancel()
	if perr != nil {
		return fmt.Errorf("dial the daemon at %s: %v (start it with `bua serve`)", dirs.Link(), perr)
	}
	defer cl.Close()

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c command
		if err := json.Unmarshal(in.Bytes(), &c); err != nil || len(c.Action) == 0 {
			if err := out.Encode(reply{Error: protocol.Errorf(protocol.CodeInvalidAction, "buaclient: want {\"action\": {...}, \"n\": N}, got %q", in.Text())}); err != nil {
				return err
			}
			continue
		}
		if err := out.Encode(timed(cl, c)); err != nil {
			return err
		}
	}
	return in.Err()
}

// timed runs c.Action c.N times and times each run.
func timed(cl *bridge.Client, c command) reply {
	n := max(c.N, 1)
	r := reply{Ms: make([]float64, 0, n)}
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
		start := time.Now()
		res, err := cl.RequestRaw(ctx, c.Action, false)
		elapsed := time.Since(start)
		cancel()
		if err != nil {
			return reply{Error: err}
		}
		r.Ms = append(r.Ms, float64(elapsed.Microseconds())/1000)
		r.Result = res
	}
	return r
}
