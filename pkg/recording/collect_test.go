package recording

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// fakeExtension answers the record actions as the extension does: steps
// come when the test adds them, a read waits up to its timeoutMs for one,
// and record_stop ends the recording, after which a read answers ended.
type fakeExtension struct {
	mu      sync.Mutex
	steps   []protocol.RecordedStep
	ended   protocol.RecordEndReason
	wake    chan struct{}
	actions []protocol.Action
}

func newFake() *fakeExtension { return &fakeExtension{wake: make(chan struct{}, 16)} }

func (f *fakeExtension) add(s protocol.RecordedStep, end protocol.RecordEndReason) {
	f.mu.Lock()
	s.Seq = len(f.steps) + 1
	f.steps = append(f.steps, s)
	if end != "" {
		f.ended = end
	}
	f.mu.Unlock()
	f.wake <- struct{}{}
}

func (f *fakeExtension) Request(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	f.mu.Lock()
	f.actions = append(f.actions, a)
	f.mu.Unlock()
	switch a.Type {
	case protocol.ActionRecordStart:
		raw, _ := json.Marshal(protocol.RecordStartResult{OK: true, TabID: *a.TabID, URL: "http://h.test/"})
		return raw, nil
	case protocol.ActionRecordStop:
		f.mu.Lock()
		if f.ended == "" {
			f.ended = protocol.RecordStopped
		}
		f.mu.Unlock()
		raw, _ := json.Marshal(protocol.RecordStartResult{OK: true, TabID: *a.TabID, Ended: true})
		return raw, nil
	}
	since := *a.SinceSeq
	deadline := time.After(time.Duration(*a.TimeoutMs) * time.Millisecond)
	for {
		f.mu.Lock()
		r := protocol.RecordReadResult{NextSeq: max(since, 1), Steps: []protocol.RecordedStep{}}
		for _, s := range f.steps {
			if s.Seq >= since {
				r.Steps = append(r.Steps, s)
				r.NextSeq = s.Seq + 1
			}
		}
		r.Ended, r.Reason = f.ended != "", f.ended
		f.mu.Unlock()
		if len(r.Steps) > 0 || r.Ended {
			raw, _ := json.Marshal(r)
			return raw, nil
		}
		select {
		case <-f.wake:
		case <-deadline:
			raw, _ := json.Marshal(r)
			return raw, nil
		case <-ctx.Done():
			return nil, protocol.Errorf(protocol.CodeInternalError, "aborted by caller")
		}
	}
}

// TestCollectUntilStop: steps come as the person acts; Ctrl-C (the
// context's end) stops the recording, whose last step is still read, and
// the reason is stopped.
func TestCollectUntilStop(t *testing.T) {
	f := newFake()
	s, err := Start(context.Background(), f, 5)
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	s.OnStep = func(st protocol.RecordedStep) { seen = append(seen, st.Seq) }
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		f.add(protocol.RecordedStep{TabID: 5, Action: &protocol.Action{Type: protocol.ActionClick}}, "")
		time.Sleep(50 * time.Millisecond)
		cancel()
		// A step the stop flushed (the typing under way) comes after it.
		time.Sleep(20 * time.Millisecond)
		f.add(protocol.RecordedStep{TabID: 5, Action: &protocol.Action{Type: protocol.ActionPressKey, Key: "Enter"}}, "")
	}()
	steps, reason, cerr := s.Collect(ctx)
	if cerr != nil {
		t.Fatal(cerr)
	}
	if reason != protocol.RecordStopped {
		t.Errorf("reason %q, want stopped", reason)
	}
	if len(seen) != len(steps) {
		t.Errorf("OnStep saw %v, Collect returned %d steps", seen, len(steps))
	}
	stopped := false
	for _, a := range f.actions {
		stopped = stopped || a.Type == protocol.ActionRecordStop
	}
	if !stopped {
		t.Error("Ctrl-C sent no record_stop")
	}
	if len(steps) == 0 || steps[0].Action.Type != protocol.ActionClick {
		t.Errorf("steps %+v, want the click first", steps)
	}
}

// TestCollectEndsByItself: the popup's Stop ends the recording: Collect
// returns its steps and reason without a record_stop of its own.
func TestCollectEndsByItself(t *testing.T) {
	f := newFake()
	s, _ := Start(context.Background(), f, 5)
	go f.add(protocol.RecordedStep{TabID: 5, Landed: true, URL: "http://h.test/a"}, protocol.RecordUserStopped)
	steps, reason, err := s.Collect(context.Background())
	if err != nil || reason != protocol.RecordUserStopped || len(steps) != 1 {
		t.Fatalf("Collect = %d steps, %q, %v; want 1, user_stopped", len(steps), reason, err)
	}
	for _, a := range f.actions {
		if a.Type == protocol.ActionRecordStop {
			t.Error("a recording that ended by itself was stopped again")
		}
	}
}
