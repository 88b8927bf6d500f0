package bridge

import (
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// MaxEventLog bounds the event log file; past it the log rotates to one
// ".1" file, so the daemon never fills a disk.
const MaxEventLog = 4 << 20

// EventRecord is one line of the event log (JSON lines).
type EventRecord struct {
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`
	// Browser is the name of the browser that sent it (names.go).
	Browser string         `json:"browser,omitempty"`
	Event   protocol.Event `json:"event"`
}

// eventLog appends events to a size-bounded file and fans them out to
// subscribers. A slow subscriber misses events rather than stalling the
// extension's read loop.
type eventLog struct {
	path string

	mu   sync.Mutex
	subs map[chan EventRecord]struct{}
}

func (l *eventLog) append(rec EventRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Log first, then fan out: a follower that sees an event can rely on
	// finding it in the file.
	err = l.write(line)
	for ch := range l.subs {
		select {
		case ch <- rec:
		default:
		}
	}
	return err
}

func (l *eventLog) write(line []byte) error {
	if fi, err := os.Stat(l.path); err == nil && fi.Size()+int64(len(line)) > MaxEventLog {
		_ = os.Rename(l.path, l.path+".1")
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

func (l *eventLog) subscribe() (chan EventRecord, func()) {
	ch := make(chan EventRecord, 64)
	l.mu.Lock()
	if l.subs == nil {
		l.subs = make(map[chan EventRecord]struct{})
	}
	l.subs[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.subs, ch)
		l.mu.Unlock()
	}
}
