package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// refLike is text a reference link or definition could be taken for: the
// markdown is left as it is when it already holds some, so a reader can
// always put each target back where it was.
var refLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\[\d+\]|(?m)^\[\d+\]: `) })

// link is one `](target)` in markdown: the offsets of its "(" and ")".
type link struct{ open, close int }

// RefLinks writes each link or image target the markdown uses more than
// once as a numbered reference, `[text][3]` with `[3]: target` once under
// the markdown, where that is shorter: a target repeated down a page (the
// share buttons above and below an article, a menu written twice) costs
// its characters once. Link text, the other targets and fenced code stay
// as they are; md is returned unchanged when nothing repeats or it already
// holds text a reference could be taken for.
func RefLinks(md string) string {
	links := linksOf(md)
	count := map[string]int{}
	for _, l := range links {
		count[md[l.open+1:l.close]]++
	}
	labels := map[string]string{}
	var defs []string
	for _, l := range links {
		t := md[l.open+1 : l.close]
		if _, done := labels[t]; done || count[t] < 2 {
			continue
		}
		label := strconv.Itoa(len(defs) + 1)
		// Each use saves the target less the label; the definition costs
		// the target and `[n]: ` and a newline.
		if count[t]*(len(t)-len(label)) <= len(t)+len(label)+5 {
			continue
		}
		labels[t] = label
		defs = append(defs, fmt.Sprintf("[%s]: %s", label, t))
	}
	if len(defs) == 0 || refLike().MatchString(md) {
		return md
	}
	var b strings.Builder
	last := 0
	for _, l := range links {
		label, ok := labels[md[l.open+1:l.close]]
		if !ok {
			continue
		}
		b.WriteString(md[last:l.open])
		b.WriteString("[" + label + "]")
		last = l.close + 1
	}
	b.WriteString(strings.TrimRight(md[last:], "\n"))
	b.WriteString("\n\n")
	b.WriteString(strings.Join(defs, "\n"))
	return b.String()
}

// linksOf lists md's inline link and image targets outside fenced code:
// each `](` followed by a target without white space or parentheses (the
// extension percent-encodes those) and `)`.
func linksOf(md string) []link {
	var out []link
	fence := false
	lineStart := 0
	for lineStart < len(md) {
		end := strings.IndexByte(md[lineStart:], '\n')
		if end < 0 {
			end = len(md)
		} else {
			end += lineStart
		}
		line := md[lineStart:end]
		trimmed := strings.TrimLeft(line, "> ")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = !fence
		} else if !fence {
			for i := 0; i+1 < len(line); i++ {
				if line[i] != ']' || line[i+1] != '(' {
					continue
				}
				j := i + 2
				for j < len(line) && !strings.ContainsRune("() \t", rune(line[j])) {
					j++
				}
				if j < len(line) && line[j] == ')' && j > i+2 {
					out = append(out, link{open: lineStart + i + 1, close: lineStart + j})
					i = j
				}
			}
		}
		lineStart = end + 1
	}
	return out
}
