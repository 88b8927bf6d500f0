package recording

import (
	"context"
	"encoding/json"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Poll is how long one record_read waits for a step before it answers
// none: the reads of a recording where nothing happens cost one request
// per Poll, and a stop from the popup is heard at once either way (it
// ends the read's wait).
const Poll = 5 * time.Second

// StopTimeout bounds the stop after the caller's context ended (Ctrl-C):
// record_stop and the reads of the last steps.
const StopTimeout = 15 * time.Second

// Session is one recording under way, started on TabID.
type Session struct {
	Req   protocol.Requester
	TabID int
	// Started is record_start's answer: the tab's URL and title then.
	Started protocol.RecordStartResult
	// OnStep, when set, is called with each step as it is read.
	OnStep func(protocol.RecordedStep)
	// OnDropped, when set, is called with how many steps the extension no
	// longer held when they were read (a reader that fell far behind).
	OnDropped func(n int)

	steps []protocol.RecordedStep
	since int
}

// Start starts recording tab tabID (record_start). Its error is the
// extension's: the tab is closed, blocked, stopped, already recorded, or
// the extension has no record feature (invalid_action, reason refused).
func Start(ctx context.Context, req protocol.Requester, tabID int) (*Session, *protocol.Error) {
	raw, err := req.Request(ctx, protocol.Action{Type: protocol.ActionRecordStart, TabID: &tabID})
	if err != nil {
		return nil, err
	}
	s := &Session{Req: req, TabID: tabID}
	if jerr := json.Unmarshal(raw, &s.Started); jerr != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "record_start answered %s: %v (a bug in the extension)", raw, jerr)
	}
	return s, nil
}

// Collect reads the recording's steps until it ends by itself (the
// person's Stop in the popup, its last tab closed, its session ended) or
// ctx ends (Ctrl-C), when it stops it (record_stop) and reads the steps
// still under way, on a context of its own bounded by StopTimeout. It
// returns every step read, in order, and why the recording ended; on an
// error, the steps read so far and the error.
func (s *Session) Collect(ctx context.Context) ([]protocol.RecordedStep, protocol.RecordEndReason, *protocol.Error) {
	for ctx.Err() == nil {
		ended, reason, err := s.read(ctx, Poll)
		switch {
		case ended:
			return s.steps, reason, nil
		case err != nil && ctx.Err() == nil:
			return s.steps, "", err
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	if _, err := s.Req.Request(sctx, protocol.Action{Type: protocol.ActionRecordStop, TabID: &s.TabID}); err != nil {
		return s.steps, "", err
	}
	for {
		ended, reason, err := s.read(sctx, time.Millisecond)
		if ended || err != nil {
			return s.steps, reason, err
		}
	}
}

// read reads the steps since the last read, waiting up to wait for one.
func (s *Session) read(ctx context.Context, wait time.Duration) (bool, protocol.RecordEndReason, *protocol.Error) {
	ms, since := int(wait/time.Millisecond), s.since
	raw, err := s.Req.Request(ctx, protocol.Action{Type: protocol.ActionRecordRead, TabID: &s.TabID, SinceSeq: &since, TimeoutMs: &ms})
	if err != nil {
		return false, "", err
	}
	var r protocol.RecordReadResult
	if jerr := json.Unmarshal(raw, &r); jerr != nil {
		return false, "", protocol.Errorf(protocol.CodeInternalError, "record_read answered %.200s: %v (a bug in the extension)", raw, jerr)
	}
	if r.Dropped > 0 && s.OnDropped != nil {
		s.OnDropped(r.Dropped)
	}
	for _, st := range r.Steps {
		s.steps = append(s.steps, st)
		if s.OnStep != nil {
			s.OnStep(st)
		}
	}
	if r.NextSeq > s.since {
		s.since = r.NextSeq
	}
	return r.Ended, r.Reason, nil
}
