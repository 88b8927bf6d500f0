package userflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Recording is a user flow as @puppeteer/replay's Schema.ts defines it
// (UserFlow): a title, the timeout of each step in ms (0: unset) and the
// steps in order.
type Recording struct {
	Title   string
	Timeout int
	Steps   []Step
}

// Step is one step of a recording. Type is the Recorder's step type
// (click, navigate, ...); the other fields are those of Schema.ts that the
// type uses, left zero when the recording does not set them. Raw is the
// step as written, for the fields the conversion only reports.
type Step struct {
	Index int    // 0-based position in the recording
	Line  int    // where the step starts in the file (1-based)
	Type  string // the step's type, as written
	// Target is "main" (or "") for the page the recording started on, else
	// the URL of another page (a popup) or of an out-of-process iframe.
	Target string
	// Frame is the index path of the frame in Target: [1, 0] is the first
	// child frame of the main frame's second child frame.
	Frame []int
	// Selectors are the alternatives that name the step's element, each a
	// path: one selector, or several that lead through shadow roots.
	Selectors [][]string
	// Timeout is the step's own timeout in ms (0: the recording's).
	Timeout        int
	AssertedEvents []AssertedEvent

	URL                       string   // navigate
	Button, DeviceType        string   // click, doubleClick
	OffsetX, OffsetY          *float64 // click, doubleClick
	Duration                  *float64 // click, doubleClick: ms between press and release
	Value                     string   // change
	Key                       string   // keyDown, keyUp
	X, Y                      *float64 // scroll
	Expression                string   // waitForExpression
	Operator                  string   // waitForElement: >=, == or <=
	Count                     *int     // waitForElement
	Visible                   *bool    // waitForElement
	Properties                json.RawMessage
	Attributes                map[string]string
	Name                      string // customStep
	Width, Height             int    // setViewport
	IsMobile, HasTouch        bool   // setViewport
	Download, Upload, Latency *float64
}

// AssertedEvent is a step's asserted event: the navigation it causes, to
// URL (when set), whose page has Title.
type AssertedEvent struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// ParseError is a recording Parse cannot read, with where (1-based line
// and column; 0 when unknown) and why. It is the recording's fault.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// maxRecording bounds what Parse reads: a Recorder file is kilobytes, and
// a file this big is not one.
const maxRecording = 32 << 20

// Parse reads a user flow. A file that is not JSON, not an object with a
// steps list, or has a step that is not an object with a type, or a field
// whose value does not fit its Schema.ts type, is a *ParseError naming the
// line and column. An unknown step type is not an error: Convert reports
// it by name.
func Parse(r io.Reader) (*Recording, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRecording+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxRecording {
		return nil, &ParseError{Msg: fmt.Sprintf("the file is over %d MiB: not a Chrome DevTools Recorder user flow", maxRecording>>20)}
	}
	at := func(off int64, msg string, args ...any) error {
		line, col := position(data, off)
		return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(msg, args...)}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, at(max(syn.Offset-1, 0), "not JSON: %s", syn.Error()) // Offset is past the bad byte
		case errors.As(err, &typ):
			return nil, at(0, "not a Chrome DevTools Recorder user flow: the file holds a JSON %s, not an object with title and steps", typ.Value)
		}
		return nil, at(0, "not JSON: %v", err)
	}
	offs := valueOffsets(data)
	rec := &Recording{}
	if t, ok := top["title"]; ok && json.Unmarshal(t, &rec.Title) != nil {
		return nil, at(offs.title, "title is not a string")
	}
	if t, ok := top["timeout"]; ok {
		ms, err := millis(t)
		if err != nil {
			return nil, at(offs.timeout, "%v", err)
		}
		rec.Timeout = ms
	}
	rawSteps, ok := top["steps"]
	if !ok {
		return nil, at(0, "not a Chrome DevTools Recorder user flow: it has no steps list")
	}
	var steps []json.RawMessage
	if err := json.Unmarshal(rawSteps, &steps); err != nil {
		return nil, at(offs.steps, "steps is not a list")
	}
	for i, raw := range steps {
		off := int64(0)
		if i < len(offs.step) {
			off = offs.step[i]
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, at(off, "step %d is not an object", i+1)
		}
		var typ string
		if json.Unmarshal(fields["type"], &typ) != nil || typ == "" {
			return nil, at(off, "step %d has no type", i+1)
		}
		line, _ := position(data, off)
		s := Step{Index: i, Line: line, Type: typ}
		if err := s.decode(fields); err != nil {
			return nil, at(off, "step %d (%s): %v", i+1, typ, err)
		}
		rec.Steps = append(rec.Steps, s)
	}
	return rec, nil
}

// offsets are where the top-level values of a recording start in its
// file: title, timeout, the steps list and each step.
type offsets struct {
	title, timeout, steps int64
	step                  []int64
}

// valueOffsets finds the offsets of a recording that json.Unmarshal
// accepted, by reading it again token by token (a later key of the same
// name wins, as in Unmarshal).
func valueOffsets(data []byte) offsets {
	var o offsets
	dec := json.NewDecoder(bytes.NewReader(data))
	start := func() int64 { // the next value's first byte
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return o
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return o
		}
		off := start()
		switch key {
		case "title":
			o.title = off
		case "timeout":
			o.timeout = off
		case "steps":
			o.steps = off
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return o
			}
			o.step = o.step[:0]
			for dec.More() {
				o.step = append(o.step, start())
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return o
				}
			}
			if _, err := dec.Token(); err != nil {
				return o
			}
			continue
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return o
		}
	}
	return o
}

// decode sets the step's fields from the JSON object fields, checking
// each against its Schema.ts type.
func (s *Step) decode(fields map[string]json.RawMessage) error {
	str := func(name string, dst *string) error { return stringField(fields, name, dst) }
	num := func(name string, dst **float64) error { return numberField(fields, name, dst) }
	var err error
	for _, e := range []error{
		str("target", &s.Target), str("url", &s.URL), str("button", &s.Button), str("deviceType", &s.DeviceType),
		str("value", &s.Value), str("key", &s.Key), str("expression", &s.Expression), str("operator", &s.Operator), str("name", &s.Name),
		num("offsetX", &s.OffsetX), num("offsetY", &s.OffsetY), num("duration", &s.Duration), num("x", &s.X), num("y", &s.Y),
		num("download", &s.Download), num("upload", &s.Upload), num("latency", &s.Latency),
	} {
		err = errors.Join(err, e)
	}
	if v, ok := fields["frame"]; ok && json.Unmarshal(v, &s.Frame) != nil {
		err = errors.Join(err, errors.New("frame is not a list of frame indexes"))
	}
	if v, ok := fields["selectors"]; ok {
		sels, e := selectorList(v)
		s.Selectors, err = sels, errors.Join(err, e)
	}
	if v, ok := fields["timeout"]; ok {
		ms, e := millis(v)
		s.Timeout, err = ms, errors.Join(err, e)
	}
	if v, ok := fields["assertedEvents"]; ok && json.Unmarshal(v, &s.AssertedEvents) != nil {
		err = errors.Join(err, errors.New("assertedEvents is not a list of events"))
	}
	if v, ok := fields["count"]; ok {
		var n int
		if json.Unmarshal(v, &n) != nil {
			err = errors.Join(err, errors.New("count is not an integer"))
		}
		s.Count = &n
	}
	if v, ok := fields["visible"]; ok {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			err = errors.Join(err, errors.New("visible is not a boolean"))
		}
		s.Visible = &b
	}
	if v, ok := fields["properties"]; ok {
		var m map[string]any
		if json.Unmarshal(v, &m) != nil {
			err = errors.Join(err, errors.New("properties is not an object"))
		}
		s.Properties = v
	}
	if v, ok := fields["attributes"]; ok && json.Unmarshal(v, &s.Attributes) != nil {
		err = errors.Join(err, errors.New("attributes is not an object of strings"))
	}
	for name, dst := range map[string]*int{"width": &s.Width, "height": &s.Height} {
		if v, ok := fields[name]; ok && json.Unmarshal(v, dst) != nil {
			err = errors.Join(err, fmt.Errorf("%s is not an integer", name))
		}
	}
	for name, dst := range map[string]*bool{"isMobile": &s.IsMobile, "hasTouch": &s.HasTouch} {
		if v, ok := fields[name]; ok && json.Unmarshal(v, dst) != nil {
			err = errors.Join(err, fmt.Errorf("%s is not a boolean", name))
		}
	}
	if err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// stringField sets *dst to the string field name of fields, if there is
// one; an error says it is not a string.
func stringField(fields map[string]json.RawMessage, name string, dst *string) error {
	if v, ok := fields[name]; ok && json.Unmarshal(v, dst) != nil {
		return fmt.Errorf("%s is not a string", name)
	}
	return nil
}

// numberField points *dst at the number field name of fields, if there
// is one; an error says it is not a number.
func numberField(fields map[string]json.RawMessage, name string, dst **float64) error {
	v, ok := fields[name]
	if !ok {
		return nil
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return fmt.Errorf("%s is not a number", name)
	}
	*dst = &f
	return nil
}

// selectorList reads Schema.ts's selectors: a list whose items are each a
// selector or a path of selectors.
func selectorList(v json.RawMessage) ([][]string, error) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return nil, errors.New("selectors is not a list")
	}
	out := make([][]string, 0, len(items))
	for _, it := range items {
		var one string
		if json.Unmarshal(it, &one) == nil {
			out = append(out, []string{one})
			continue
		}
		var path []string
		if json.Unmarshal(it, &path) != nil || len(path) == 0 {
			return nil, errors.New("a selector is not a string or a non-empty list of strings")
		}
		out = append(out, path)
	}
	return out, nil
}

// millis reads a timeout in ms: a whole number from 1 to 30000, as
// @puppeteer/replay accepts (SchemaUtils validTimeout).
func millis(v json.RawMessage) (int, error) {
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return 0, errors.New("timeout is not a number")
	}
	if f < 1 || f > 30000 || f != math.Trunc(f) {
		return 0, fmt.Errorf("timeout %v is not a whole number of ms from 1 to 30000", f)
	}
	return int(f), nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
