package handoff

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/runnertest"
)

func captcha() protocol.ExtractResult {
	r := runnertest.Page()
	r.Obstacle = &protocol.Obstacle{Type: "captcha", Confidence: "high", Message: "A captcha is shown"}
	return r
}

// sent lists the fake's requests as "type[:state]@tab".
func sent(f *runnertest.Fake) []string {
	var out []string
	for _, a := range f.Requests() {
		s := string(a.Type)
		if a.State != "" {
			s += ":" + a.State
		}
		if a.TabID != nil {
			s += "@" + itoa(*a.TabID)
		}
		out = append(out, s)
	}
	return out
}

func itoa(i int) string { return string(rune('0' + i)) }

// noSleep records the waits instead of sleeping.
func noSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}
}

// TestWait covers how a handoff ends: what it sends, in order, and its
// outcome.
func TestWait(t *testing.T) {
	fail := func(code protocol.ErrorCode, reason string) runnertest.Handler {
		return func(context.Context, protocol.Action) (any, *protocol.Error) {
			return nil, &protocol.Error{Code: code, Message: "x", Reason: reason}
		}
	}
	tests := []struct {
		name     string
		extract  runnertest.Handler
		timeout  time.Duration
		wantSent []string
		resolved bool
		wantErr  protocol.ErrorCode
	}{
		{"ClearedOnThirdRead", runnertest.Sequence(runnertest.Result(captcha()), runnertest.Result(captcha()), runnertest.Result(runnertest.Page())), time.Minute,
			[]string{"handoff:requested@7", "extract@7", "extract@7", "extract@7", "handoff:resolved@7"}, true, ""},
		{"PassingErrorWaitsOn", runnertest.Sequence(fail(protocol.CodeTimeout, ""), runnertest.Result(runnertest.Page())), time.Minute,
			[]string{"handoff:requested@7", "extract@7", "extract@7", "handoff:resolved@7"}, true, ""},
		{"PersonPressedStop", fail(protocol.CodeInternalError, protocol.ReasonGlobalStop), time.Minute,
			[]string{"handoff:requested@7", "extract@7", "handoff:abandoned@7"}, false, protocol.CodeInternalError},
		{"TabClosed", fail(protocol.CodeTabNotFound, ""), time.Minute,
			[]string{"handoff:requested@7", "extract@7", "handoff:abandoned@7"}, false, protocol.CodeTabNotFound},
		// 250+500+1000+2000 ms of (recorded) waits pass 3 s: abandoned.
		{"TimeoutAbandons", runnertest.Result(captcha()), 0, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := runnertest.New().On(protocol.ActionExtract, tt.extract)
			var waits []time.Duration
			o := Options{Timeout: tt.timeout, Sleep: noSleep(&waits)}
			if tt.name == "TimeoutAbandons" {
				// Real time must pass for the deadline: short real sleeps.
				o.Timeout = 120 * time.Millisecond
				o.Sleep = nil
			}
			out, err := Wait(context.Background(), fake, 7, captcha().Obstacle, o)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.(*protocol.Error).Code != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if out.Resolved != tt.resolved {
				t.Fatalf("resolved = %v, want %v", out.Resolved, tt.resolved)
			}
			got := sent(fake)
			if tt.wantSent != nil && !slices.Equal(got, tt.wantSent) {
				t.Fatalf("sent %v, want %v", got, tt.wantSent)
			}
			if tt.name == "TimeoutAbandons" {
				if got[len(got)-1] != "handoff:abandoned@7" || out.Verdict == nil || out.Verdict.Type != "captcha" {
					t.Fatalf("sent %v, verdict %+v; want abandoned with the captcha verdict", got, out.Verdict)
				}
				if out.Waited < 120*time.Millisecond || out.Waited > 2*time.Second {
					t.Fatalf("waited %s, want about the 120ms timeout", out.Waited)
				}
			}
			if reqs := fake.Requests(); reqs[0].ObstacleType != "captcha" || reqs[0].Message != "A captcha is shown" {
				t.Fatalf("request %+v lacks the verdict", reqs[0])
			}
		})
	}
}

// TestWait_Backoff: reads come after 250 ms, then twice as long each time,
// capped at 2 s.
func TestWait_Backoff(t *testing.T) {
	reads := []runnertest.Handler{}
	for i := 0; i < 6; i++ {
		reads = append(reads, runnertest.Result(captcha()))
	}
	fake := runnertest.New().On(protocol.ActionExtract, runnertest.Sequence(append(reads, runnertest.Result(runnertest.Page()))...))
	var waits []time.Duration
	if _, err := Wait(context.Background(), fake, 1, nil, Options{Sleep: noSleep(&waits)}); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := []time.Duration{250 * ms, 500 * ms, 1000 * ms, 2000 * ms, 2000 * ms, 2000 * ms, 2000 * ms}
	if !slices.Equal(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
}

// TestWait_CtrlC: a caller that gives up (Ctrl-C) still hands the tab back.
func TestWait_CtrlC(t *testing.T) {
	fake := runnertest.New().On(protocol.ActionExtract, runnertest.Result(captcha()))
	ctx, cancel := context.WithCancel(context.Background())
	o := Options{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel() // the person's Ctrl-C lands while bua waits
		<-ctx.Done()
		return ctx.Err()
	}}
	out, err := Wait(ctx, fake, 4, captcha().Obstacle, o)
	if err == nil || out.Resolved {
		t.Fatalf("err %v resolved %v, want an error", err, out.Resolved)
	}
	if got := sent(fake); !slices.Equal(got, []string{"handoff:requested@4", "handoff:abandoned@4"}) {
		t.Fatalf("sent %v, want requested then abandoned", got)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, "off": ModeOff, "force": ModeForce} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("yes"); err == nil {
		t.Error("ParseMode(yes) succeeded, want an error")
	}
}
