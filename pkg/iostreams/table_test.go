package iostreams

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func streams(tty bool, width int, env map[string]string) (*IOStreams, *bytes.Buffer) {
	var out bytes.Buffer
	s := New(strings.NewReader(""), &out, &bytes.Buffer{}, func(k string) string { return env[k] })
	s.SetTerminal(tty, width)
	return s, &out
}

func TestTable(t *testing.T) {
	long := "https://docs.example.com/a/very/long/path/that/goes/on/and/on?with=query"
	tests := []struct {
		name  string
		tty   bool
		width int
		rows  [][]string
		check func(t *testing.T, out string)
	}{
		{"PipedIsTSVWithoutHeader", false, 0, [][]string{{"1", "a.test", long}}, func(t *testing.T, out string) {
			if got, want := out, "1\ta.test\t"+long+"\n"; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}},
		{"PipedCellsStayOneField", false, 0, [][]string{{"1", "two\tcols", "line\nbreak"}}, func(t *testing.T, out string) {
			if got, want := out, "1\ttwo cols\tline break\n"; got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}},
		{"TerminalFitsWidth60", true, 60, [][]string{{"1", "a.test", long}}, func(t *testing.T, out string) {
			fits(t, out, 60)
			if !strings.Contains(out, "…") || !strings.Contains(out, "URL") {
				t.Fatalf("want a cut URL column with a header:\n%s", out)
			}
		}},
		{"TerminalWideShowsAll", true, 200, [][]string{{"1", "a.test", long}}, func(t *testing.T, out string) {
			fits(t, out, 200)
			if !strings.Contains(out, long) || strings.Contains(out, "…") {
				t.Fatalf("want the full URL on a wide terminal:\n%s", out)
			}
		}},
		{"TerminalWidestColumnGivesWayFirst", true, 50, [][]string{{"12345", "short", long}}, func(t *testing.T, out string) {
			fits(t, out, 50)
			if !strings.Contains(out, "12345") || !strings.Contains(out, "short") {
				t.Fatalf("narrow columns were cut before the widest:\n%s", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out := streams(tt.tty, tt.width, nil)
			tb := s.NewTable("tab", "domain", "url")
			for _, r := range tt.rows {
				tb.AddRow(r...)
			}
			if err := tb.Render(); err != nil {
				t.Fatal(err)
			}
			tt.check(t, out.String())
		})
	}
}

func fits(t *testing.T, out string, width int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > width {
			t.Fatalf("line is %d columns, want <= %d: %q", n, width, line)
		}
	}
}

func TestColor(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		env  map[string]string
		want bool
	}{
		{"Terminal", true, nil, true},
		{"Piped", false, nil, false},
		{"NoColor", true, map[string]string{"NO_COLOR": "1"}, false},
		{"EmptyNoColorIsUnset", true, map[string]string{"NO_COLOR": ""}, true},
		{"DumbTerminal", true, map[string]string{"TERM": "dumb"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := streams(tt.tty, 80, tt.env)
			if got := s.ColorEnabled(); got != tt.want {
				t.Fatalf("ColorEnabled = %v, want %v", got, tt.want)
			}
			if got := Color(s.ColorEnabled(), Red, "x"); (got != "x") != tt.want {
				t.Fatalf("Color = %q", got)
			}
		})
	}
}

func TestWidth(t *testing.T) {
	s, _ := streams(true, 0, map[string]string{"COLUMNS": "123"})
	if got := s.Width(); got != 123 {
		t.Fatalf("Width with COLUMNS=123 = %d", got)
	}
	s, _ = streams(true, 0, nil)
	if got := s.Width(); got != DefaultWidth {
		t.Fatalf("Width of an unknown terminal = %d, want %d", got, DefaultWidth)
	}
}

func TestTableKeepsIndent(t *testing.T) {
	s, out := streams(true, 80, nil)
	tb := s.NewTable("flow / step", "status")
	tb.AddRow("login", "passed")
	tb.AddRow("  1 navigate", "passed")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n  1 navigate  passed\n") {
		t.Fatalf("the step row lost its indent:\n%s", out)
	}
}
