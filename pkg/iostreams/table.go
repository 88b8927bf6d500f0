package iostreams

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"text/tabwriter"
)

// Table collects rows and prints them in the form the streams call for:
// aligned columns under an upper-case header, fitted to the terminal's
// width (as gh and kubectl print them), or tab-separated lines.
type Table struct {
	s      *IOStreams
	header []string
	rows   [][]string
}

// NewTable starts a table with the given column names (shown on a
// terminal only).
func (s *IOStreams) NewTable(header ...string) *Table {
	return &Table{s: s, header: header}
}

// AddRow adds one row; missing cells are empty, extra cells are dropped.
func (t *Table) AddRow(cells ...string) {
	row := make([]string, len(t.header))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

// Render writes the table to Out.
func (t *Table) Render() error {
	if !t.s.IsTerminal() {
		return writeTSV(t.s.Out, t.rows)
	}
	return writeFitted(t.s.Out, t.header, t.rows, t.s.Width())
}

// writeTSV writes one line per row, cells joined by tabs, with tabs and
// line breaks inside a cell turned into spaces so every row stays one line
// of len(header) fields.
func writeTSV(w io.Writer, rows [][]string) error {
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(tsvCell(c))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func tsvCell(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return ' '
		}
		return r
	}, s)
}

// colGap is the space between two columns.
const colGap = 2

// writeFitted writes aligned columns at most width columns wide, with no
// borders: text/tabwriter aligns them. Cells are one line; the widest
// column gives way first, down to 4 columns, and a cut cell ends in "…" so
// the reader sees where text was dropped. Borders were dropped for what
// they cost: three columns a cell, and a table library's start-up in every
// command (BENCHMARKS.md §One-shot commands).
func writeFitted(w io.Writer, header []string, rows [][]string, width int) error {
	widths := make([]int, len(header))
	measure := func(r []string) {
		for i, c := range r {
			if n := utf8.RuneCountInString(oneLine(c)); n > widths[i] {
				widths[i] = n
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	budget := width - colGap*(len(header)-1)
	for sum(widths) > budget {
		wi := 0
		for i := range widths {
			if widths[i] > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= 4 {
			break
		}
		widths[wi]--
	}
	tw := tabwriter.NewWriter(w, 0, 0, colGap, ' ', 0)
	line := func(cells []string) {
		io.WriteString(tw, strings.Join(fit(cells, widths), "\t")+"\n")
	}
	head := make([]string, len(header))
	for i, h := range header {
		head[i] = strings.ToUpper(h)
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	return nil
}

func sum(ws []int) int {
	n := 0
	for _, w := range ws {
		n += w
	}
	return n
}

func fit(r []string, widths []int) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = Truncate(oneLine(c), widths[i])
	}
	return out
}

// Truncate cuts s to n runes, marking the cut with "…".
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return string([]rune(s)[:n-1]) + "…"
}

// oneLine folds a cell's white space to single spaces, keeping its
// leading indentation (the run summary indents steps under their flow).
func oneLine(s string) string {
	body := strings.TrimLeft(s, " ")
	return s[:len(s)-len(body)] + strings.Join(strings.Fields(body), " ")
}
