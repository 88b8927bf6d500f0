package iostreams

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table collects rows and prints them in the form the streams call for:
// a bordered table fitted to the terminal's width, or tab-separated lines.
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

// writeFitted draws a bordered table at most width columns wide. Cells are
// one line; the widest column gives way first, down to 4 columns, and a
// cut cell ends in "…" so the reader sees where text was dropped.
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
	// Each column costs its text plus 3: padding and a separator; the
	// table's right border costs 1.
	budget := width - 1 - 3*len(header)
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
	tbl := tablewriter.NewTable(w, tablewriter.WithTrimSpace(tw.Off), tablewriter.WithHeaderAutoFormat(tw.Off))
	head := fit(header, widths)
	for i := range head {
		head[i] = strings.ToUpper(head[i])
	}
	tbl.Header(head)
	for _, r := range rows {
		if err := tbl.Append(fit(r, widths)); err != nil {
			return fmt.Errorf("table: %w", err)
		}
	}
	return tbl.Render()
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
