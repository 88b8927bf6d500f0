package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stdio client may write its requests and close its input at once (a
// one-shot client, a test harness: `printf '...' | bua mcp`). The SDK
// ends the connection on the input's EOF and cancels every request still
// in flight, so such a client got initialize answered and nothing after
// it. Serve therefore holds the EOF back from the SDK until
// every request it read has been answered: it counts the requests on the
// way in and the responses on the way out, by JSON-RPC id. A call still
// running Options.Drain after the input closed is cancelled (in the
// browser too) and answered as such; then the EOF goes through and the
// server ends.

// defaultDrain is Options.Drain's default: long enough for a quick
// action to finish, short enough that a host which closed its input to
// stop the server (MCP's stdio shutdown) sees it go before it sends
// SIGTERM a few seconds later.
const defaultDrain = 3 * time.Second

// cancelledWait is how long, once the drain cancelled the calls still
// running, Serve waits for their answers before it ends anyway.
const cancelledWait = 2 * time.Second

// pending is the set of requests read and not yet answered, by id (the
// id's JSON text).
type pending struct {
	mu   sync.Mutex
	ids  map[string]struct{}
	none chan struct{} // closed when ids empties; nil while nobody waits
}

func newPending() *pending { return &pending{ids: map[string]struct{}{}} }

func (p *pending) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids[id] = struct{}{}
}

func (p *pending) done(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.ids, id)
	if len(p.ids) == 0 && p.none != nil {
		close(p.none)
		p.none = nil
	}
}

// empty is closed once no request is pending (at once when none is).
func (p *pending) empty() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	if p.none == nil {
		p.none = make(chan struct{})
	}
	return p.none
}

// count is how many requests are pending.
func (p *pending) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ids)
}

// lines splits a byte stream into newline-delimited messages and gives
// each whole one to each. A line longer than the SDK's own limit (which
// ends the connection) is not kept.
type lines struct {
	buf  []byte
	over bool // the current line went past the limit: skipped to its end
	each func([]byte)
}

func (l *lines) write(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.keep(b)
			return
		}
		l.keep(b[:i])
		if !l.over {
			l.each(l.buf)
		}
		l.buf, l.over = l.buf[:0], false
		b = b[i+1:]
	}
}

func (l *lines) keep(b []byte) {
	if l.over {
		return
	}
	if len(l.buf)+len(b) > mcp.DefaultMaxLineLength {
		l.buf, l.over = l.buf[:0], true
		return
	}
	l.buf = append(l.buf, b...)
}

// flush gives a last line with no newline to each.
func (l *lines) flush() {
	if len(l.buf) > 0 && !l.over {
		l.each(l.buf)
	}
	l.buf, l.over = l.buf[:0], false
}

// message is what the drain needs of a JSON-RPC message: its id (raw
// JSON; absent in a notification) and whether it is a request (it has a
// method) or a response.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages decodes line, one JSON-RPC message or a batch of them; nothing
// when it is neither (the SDK answers that).
func messages(line []byte) []message {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var batch []message
		_ = json.Unmarshal(line, &batch)
		return batch
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []message{m}
}

// hasID reports whether m carries an id (null is none: a notification
// has none, and a response to a request that could not be read has
// null).
func (m message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// drainReader is Serve's input: it notes each request it passes on, and
// holds the input's end back until wait returns.
type drainReader struct {
	in    io.Reader
	lines lines
	wait  func()
	ended bool
}

func newDrainReader(in io.Reader, p *pending, wait func()) *drainReader {
	r := &drainReader{in: in, wait: wait}
	r.lines.each = func(line []byte) {
		for _, m := range messages(line) {
			if m.Method != "" && m.hasID() {
				p.add(string(m.ID))
			}
		}
	}
	return r
}

// Read implements io.Reader. The requests in what it returns are pending
// before the SDK sees them, so none can be answered before it is noted.
func (r *drainReader) Read(b []byte) (int, error) {
	if r.ended {
		return 0, io.EOF
	}
	n, err := r.in.Read(b)
	r.lines.write(b[:n])
	if err == io.EOF {
		r.lines.flush()
		if n > 0 {
			// Give the SDK the last bytes first; the next Read waits.
			return n, nil
		}
		r.ended = true
		r.wait()
	}
	return n, err
}

// answerWriter is Serve's output: it notes each response written.
type answerWriter struct {
	out   io.Writer
	mu    sync.Mutex // the SDK writes one message at a time; this keeps lines whole regardless
	lines lines
}

func newAnswerWriter(out io.Writer, p *pending) *answerWriter {
	w := &answerWriter{out: out}
	w.lines.each = func(line []byte) {
		for _, m := range messages(line) {
			if m.Method == "" && m.hasID() {
				p.done(string(m.ID))
			}
		}
	}
	return w
}

// Write implements io.Writer; a response counts as answered once it is
// written.
func (w *answerWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.out.Write(b)
	w.lines.write(b[:n])
	return n, err
}

func (w *answerWriter) Close() error { return nil }

// drain waits, once the input ended, until every request read has been
// answered, or ctx ends; a call still running after grace is cancelled
// with cancel, and its answer waited for a little longer.
func drain(ctx context.Context, p *pending, grace time.Duration, cancel func()) {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.empty():
		return
	case <-ctx.Done():
		return
	case <-t.C:
	}
	cancel()
	t.Reset(cancelledWait)
	select {
	case <-p.empty():
	case <-ctx.Done():
	case <-t.C:
	}
}
