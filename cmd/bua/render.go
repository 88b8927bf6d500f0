package main

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
)

// tableWidth is the terminal width tables fit: 80 columns.
const tableWidth = 80

// renderTable draws rows under header in at most tableWidth columns. Wide
// cells are cut from the widest column first and end in "…", so a reader
// sees where text was dropped.
func renderTable(w io.Writer, header []string, rows [][]string) error {
	widths := make([]int, len(header))
	measure := func(r []string) {
		for i, c := range r {
			c = oneLine(c)
			if n := utf8.RuneCountInString(c); n > widths[i] {
				widths[i] = n
			}
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	// Each column costs its text plus 3 for padding and a separator.
	budget := tableWidth - 1 - 3*len(header)
	for total(widths) > budget {
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
	t := tablewriter.NewTable(w)
	t.Header(truncRow(header, widths))
	for _, r := range rows {
		if err := t.Append(truncRow(r, widths)); err != nil {
			return err
		}
	}
	return t.Render()
}

func total(ws []int) int {
	n := 0
	for _, w := range ws {
		n += w
	}
	return n
}

func truncRow(r []string, widths []int) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = truncate(oneLine(c), widths[i])
	}
	return out
}

// truncate cuts s to n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
