package flowwriter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner"
	"github.com/bua-dev/bua/pkg/runner/report"
)

var update = flag.Bool("update", false, "rewrite the golden flows under testdata/flowwriter")

const goldenDir = "../../testdata/flowwriter"

// goldenLogs are the recordings under testdata/flowwriter, by name
// (NNN_name), each NNN_name.log.json beside the flow it writes,
// NNN_name.yaml, and the error Write returns, NNN_name.err (none when
// the flow is whole).
func goldenLogs(t *testing.T) map[string]Log {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.log.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings under %s: %v", goldenDir, err)
	}
	logs := map[string]Log{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields() // a misspelt field would be dropped unseen
		var lg Log
		if err := dec.Decode(&lg); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		logs[strings.TrimSuffix(filepath.Base(p), ".log.json")] = lg
	}
	return logs
}

// TestGolden writes each recording and compares the flow and the error
// with the goldens (-update rewrites them).
func TestGolden(t *testing.T) {
	for name, lg := range goldenLogs(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, lg.Header, lg.Entries)
			var inc *IncompleteError
			if err != nil && !errors.As(err, &inc) {
				t.Fatalf("Write: %v", err)
			}
			errText := ""
			if err != nil {
				errText = err.Error() + "\n"
			}
			golden(t, filepath.Join(goldenDir, name+".yaml"), buf.String())
			golden(t, filepath.Join(goldenDir, name+".err"), errText)
			var again bytes.Buffer
			_ = Write(&again, lg.Header, lg.Entries)
			if again.String() != buf.String() {
				t.Error("a second Write of the same recording wrote other bytes")
			}
		})
	}
}

// golden compares got with the file at path ("" stands for no file), or
// rewrites it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if got == "" {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		want, err = nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./pkg/flowwriter -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGoldenLints loads every golden flow as `bua lint` does: no error and
// no warning.
func TestGoldenLints(t *testing.T) {
	for name := range goldenLogs(t) {
		path := filepath.Join(goldenDir, name+".yaml")
		f, err := flow.Load(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if len(f.Warnings) > 0 {
			t.Errorf("%s: warnings:\n%s", path, f.Warnings.String())
		}
	}
}

// TestGoldenKeepsSecrets checks that no text typed into a password field
// shows in any golden flow, in any form.
func TestGoldenKeepsSecrets(t *testing.T) {
	for name, lg := range goldenLogs(t) {
		data, err := os.ReadFile(filepath.Join(goldenDir, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range lg.Entries {
			if e.Action.Type != protocol.ActionType_ || e.Action.Text == nil || !typedSecret(e) {
				continue
			}
			for _, f := range forms(*e.Action.Text) {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s.yaml holds the secret %q typed into %s", name, f, e.Action.Selector+e.Action.UID)
				}
			}
		}
	}
}

// typedSecret is the test's own reading of a password field: describe says
// so, or with none the selector names one.
func typedSecret(e Entry) bool {
	if e.Target != nil {
		return e.Target.InputType == "password" || strings.HasSuffix(e.Target.Autocomplete, "password") || strings.HasSuffix(e.Target.Autocomplete, "one-time-code")
	}
	return strings.Contains(e.Action.Selector, "pwd")
}

// TestGoldenReplays writes each recording whose flow is whole, runs the
// flow through the runner against
// a requester that answers with the recording's results, and checks the
// replay sends the recorded actions in order (a uid replaced by a locator,
// a secret read from the environment) with only the writer's own steps
// between them: a navigate to where the recording started, and wait_for
// urls that match where each navigation landed.
func TestGoldenReplays(t *testing.T) {
	for name, lg := range goldenLogs(t) {
		if _, err := os.Stat(filepath.Join(goldenDir, name+".err")); err == nil {
			continue // an incomplete flow needs a hand edit first
		}
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, lg.Header, lg.Entries); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name+".yaml")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := flow.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			rp := &replayer{t: t, secrets: map[string]bool{}}
			for _, e := range lg.Entries {
				if e.Action.Type == protocol.ActionType_ && e.Action.Text != nil && typedSecret(e) {
					rp.secrets[*e.Action.Text] = true
				}
				if replayedByTest(e.Action.Type) {
					rp.want = append(rp.want, e)
				}
			}
			r := &runner.Runner{Requester: rp, Getenv: func(name string) string { return "env:" + name }}
			rep := r.RunFlow(context.Background(), f)
			if rep.Status != report.StatusPassed {
				t.Fatalf("replay %s: %s", rep.Status, rep.Error)
			}
			if rp.next != len(rp.want) {
				t.Errorf("the replay sent %d of the %d recorded actions; the next not sent: %+v", rp.next, len(rp.want), rp.want[rp.next].Action)
			}
		})
	}
}

// replayedByTest is the test's own list of what a replay keeps: every
// action but the reads and handoff.
func replayedByTest(typ protocol.ActionType) bool {
	switch typ {
	case "extract", "screenshot", "get_tabs", "get_trace", "describe", "handoff":
		return false
	}
	return protocol.ActionSpecs[typ] != nil
}

// replayer is a protocol.Requester that answers a replay with the
// recording's results, matching each request to the next recorded action.
type replayer struct {
	t       *testing.T
	want    []Entry
	next    int
	secrets map[string]bool // the texts typed into password fields
}

func (r *replayer) Request(_ context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	why := "the recording has no more actions"
	if r.next < len(r.want) {
		e := r.want[r.next]
		if why = mismatch(a, e, r.secrets); why == "" {
			r.next++
			if len(e.Result) > 0 {
				return e.Result, nil
			}
			return json.RawMessage(`{"ok":true}`), nil
		}
	}
	// A step of the writer's own: a wait for where the last navigation
	// landed, or the navigate to where the recording started.
	switch {
	case a.Type == protocol.ActionWaitFor && a.URL != "":
		landed := ""
		if r.next > 0 {
			landed = r.want[r.next-1].URLAfter
		} else if len(r.want) > 0 {
			landed = r.want[0].URLBefore
		}
		if !globMatch(a.URL, landed) {
			r.t.Errorf("wait_for url %q does not match %q, where the navigation landed", a.URL, landed)
		}
	case a.Type == protocol.ActionNavigate && r.next == 0:
		if a.URL != r.want[0].URLBefore {
			r.t.Errorf("the replay starts at %q, the recording at %q", a.URL, r.want[0].URLBefore)
		}
	default:
		r.t.Errorf("unexpected request %+v: not the next recorded action (%d): %s", a, r.next, why)
	}
	return json.RawMessage(`{"ok":true}`), nil
}

// mismatch says how the replayed action a differs from the recorded e, or
// "" when it is e's replay: the same params but the target and tabId, a
// secret's text (typed into a password field anywhere in the recording)
// read from the environment, a uid replaced by a locator, a recorded
// selector or role target kept, and a tabId that names the tab the
// recording acted on.
func mismatch(a protocol.Action, e Entry, secrets map[string]bool) string {
	rec := e.Action
	if a.Type != rec.Type {
		return "type " + string(a.Type)
	}
	if rec.Type == protocol.ActionType_ && rec.Text != nil && secrets[*rec.Text] {
		if a.Text == nil || !strings.HasPrefix(*a.Text, "env:BUA_") {
			return "a secret's text does not come from a BUA_ environment variable"
		}
		a.Text = rec.Text
	}
	switch {
	case rec.UID != "" && a.UID != "":
		return "a uid went to the replay: " + a.UID
	case rec.UID != "" && a.Role == "" && a.Selector == "":
		return "no locator for uid " + rec.UID
	case rec.UID == "" && (a.Role != rec.Role || a.Name != rec.Name || a.Selector != rec.Selector || a.Frame != rec.Frame):
		return "the recorded target was not kept"
	}
	if a.TabID != nil {
		tab := rec.TabID
		if t := resultTab(e); t != nil && rec.Type != protocol.ActionCloseTab {
			tab = t
		}
		if tab == nil || *tab != *a.TabID {
			return "tabId names another tab"
		}
	}
	strip := func(x protocol.Action) string {
		x.UID, x.Selector, x.Role, x.Name, x.Nth, x.Frame, x.TabID = "", "", "", "", nil, "", nil
		b, _ := json.Marshal(x)
		return string(b)
	}
	if got, want := strip(a), strip(rec); got != want {
		return "params " + got + ", recorded " + want
	}
	return ""
}
