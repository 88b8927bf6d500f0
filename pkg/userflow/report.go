package userflow

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Finding is a step the flow does not replay as the recording did, and
// why: Step is its 0-based index, Type its type.
type Finding struct {
	Step int
	Type string
	Msg  string
}

func (f Finding) String() string { return fmt.Sprintf("step %d (%s): %s", f.Step+1, f.Type, f.Msg) }

// Note is something the flow does its own way, with no change to what it
// checks, and the steps (0-based) where it does.
type Note struct {
	What  string
	Msg   string
	Steps []int
}

func (n Note) String() string {
	steps := make([]string, len(n.Steps))
	for i, s := range n.Steps {
		steps[i] = fmt.Sprint(s + 1)
	}
	word := "step"
	if len(n.Steps) > 1 {
		word = "steps"
	}
	return fmt.Sprintf("%s (%s %s): %s", n.What, word, strings.Join(steps, ", "), n.Msg)
}

// Report says how a recording converted.
type Report struct {
	// Steps is how many steps the recording has.
	Steps int
	// Problems are the steps the flow does not replay as recorded, one
	// finding per reason, in step order; each is also a "bua: edit this"
	// comment in the flow.
	Problems []Finding
	// Notes are what the flow does its own way (click offsets, the
	// viewport), each with the steps where it does.
	Notes []Note
}

// Mapped is how many steps replay as recorded: those with no problem.
func (r Report) Mapped() int {
	bad := map[int]bool{}
	for _, p := range r.Problems {
		bad[p.Step] = true
	}
	return r.Steps - len(bad)
}

// headerLines are the report's lines for the flow's header comment.
func (r Report) headerLines() []string {
	lines := []string{fmt.Sprintf("%d of %d steps of the recording replay as recorded.", r.Mapped(), r.Steps)}
	if len(r.Problems) > 0 {
		lines = append(lines, "The others have a \"bua: edit this\" comment.")
	}
	for _, n := range r.Notes {
		lines = append(lines, n.String())
	}
	return lines
}

func (c *converter) report() Report {
	p := slices.Clone(c.findings)
	sort.SliceStable(p, func(i, j int) bool { return p[i].Step < p[j].Step })
	return Report{Steps: len(c.rec.Steps), Problems: p, Notes: c.notes}
}

// problem records a problem with the current step.
func (c *converter) problem(format string, args ...any) {
	c.cur = append(c.cur, fmt.Sprintf(format, args...))
}

// note records that step s does what in bua's own way, msg saying how.
func (c *converter) note(s *Step, what, msg string) {
	for i := range c.notes {
		if c.notes[i].What == what {
			if !slices.Contains(c.notes[i].Steps, s.Index) {
				c.notes[i].Steps = append(c.notes[i].Steps, s.Index)
			}
			return
		}
	}
	c.notes = append(c.notes, Note{What: what, Msg: msg, Steps: []int{s.Index}})
}
