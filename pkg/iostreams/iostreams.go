package iostreams

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// DefaultWidth is the width assumed for a terminal whose size cannot be
// read, in columns.
const DefaultWidth = 80

// IOStreams are a command's standard streams and what it knows about them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// Quiet is --quiet: print only what a script needs.
	Quiet bool

	outTTY, errTTY bool
	width          int // columns when Out is a terminal
	noColor        bool
}

// New returns streams over the given writers, which are terminals only
// when they are *os.File terminals; tests pass buffers and get the piped
// form, or call SetTerminal.
func New(in io.Reader, out, errOut io.Writer, getenv func(string) string) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok {
		s.outTTY, s.width = terminal(f)
	}
	if f, ok := errOut.(*os.File); ok {
		s.errTTY, _ = terminal(f)
	}
	s.applyEnv(getenv)
	return s
}

func (s *IOStreams) applyEnv(getenv func(string) string) {
	if getenv == nil {
		return
	}
	// An empty NO_COLOR counts as unset, as no-color.org asks.
	if strings.TrimSpace(getenv("NO_COLOR")) != "" || getenv("TERM") == "dumb" {
		s.noColor = true
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		s.width = n
	}
}

// SetTerminal makes Out a terminal of width columns (width <= 0 keeps
// the current one), for tests and for callers that know better.
func (s *IOStreams) SetTerminal(tty bool, width int) {
	s.outTTY = tty
	if width > 0 {
		s.width = width
	}
}

// IsTerminal reports whether Out is a terminal.
func (s *IOStreams) IsTerminal() bool { return s.outTTY }

// IsErrTerminal reports whether ErrOut is a terminal.
func (s *IOStreams) IsErrTerminal() bool { return s.errTTY }

// Width is Out's width in columns: COLUMNS, else the terminal's, else
// DefaultWidth.
func (s *IOStreams) Width() int {
	if s.width > 0 {
		return s.width
	}
	return DefaultWidth
}

// ColorEnabled reports whether Out may carry ANSI colour: a terminal, and
// neither NO_COLOR nor TERM=dumb.
func (s *IOStreams) ColorEnabled() bool { return s.outTTY && !s.noColor }

// ErrColorEnabled is ColorEnabled for ErrOut.
func (s *IOStreams) ErrColorEnabled() bool { return s.errTTY && !s.noColor }

// The ANSI colour codes bua uses, on a terminal only (ColorEnabled): Red
// for a failed run's summary line and a flow's or step's FAIL (and other
// failure) mark, Green for a passed run's summary line and the ok mark.
const (
	Red   = "31"
	Green = "32"
)

// Color wraps text in the ANSI code when enabled, and returns it as is
// otherwise.
func Color(enabled bool, code, text string) string {
	if !enabled || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}
