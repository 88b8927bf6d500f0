package expr

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/bua-dev/bua/internal/nearest"
)

// A miss lists at most missDetailMax names of the asked role, each cut to
// missNameMax characters: a page's accessible names can be whole
// paragraphs.
const (
	missDetailMax = 5
	missNameMax   = 60
)

// missDetail says what an extract result has when no element of role
// matches nameRegex, so the flow's author sees the page as the helper did:
// the names of its elements of that role, nearest to the pattern first; or,
// when it has none of that role, the roles it has, with their counts and
// the nearest one when role looks misspelt. "" for a result with no
// elements to name.
func missDetail(result any, role, nameRegex string) string {
	elements := elementsOf(result)
	if len(elements) == 0 {
		return ""
	}
	counts := map[string]int{}
	var same []map[string]any
	for _, m := range elements {
		r, _ := m["role"].(string)
		counts[r]++
		if r == role {
			same = append(same, m)
		}
	}
	if len(same) > 0 {
		// Nearest to the pattern first: what the author most likely meant.
		want := strings.ToLower(regexLetters(nameRegex))
		dist := func(m map[string]any) int {
			name, _ := m["name"].(string)
			return nearest.Distance(want, strings.ToLower(name))
		}
		sort.SliceStable(same, func(i, j int) bool { return dist(same[i]) < dist(same[j]) })
		var names []string
		for _, m := range same[:min(len(same), missDetailMax)] {
			name, _ := m["name"].(string)
			if r := []rune(name); len(r) > missNameMax {
				name = string(r[:missNameMax-1]) + "…"
			}
			q := fmt.Sprintf("%q", name)
			if v, ok := m["visible"].(bool); ok && !v {
				q += " (hidden)"
			}
			names = append(names, q)
		}
		more := ""
		if len(same) > missDetailMax {
			more = fmt.Sprintf(" and %d more", len(same)-missDetailMax)
		}
		return fmt.Sprintf("; its %s elements are named %s%s", role, strings.Join(names, ", "), more)
	}
	roles := make([]string, 0, len(counts))
	for r := range counts {
		roles = append(roles, r)
	}
	// Most common first, then by name, so the line reads the same each run.
	sort.Slice(roles, func(i, j int) bool {
		if counts[roles[i]] != counts[roles[j]] {
			return counts[roles[i]] > counts[roles[j]]
		}
		return roles[i] < roles[j]
	})
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = fmt.Sprintf("%s (%d)", r, counts[r])
	}
	out := fmt.Sprintf(", which has no %s; the roles it has: %s", role, strings.Join(parts, ", "))
	if near := nearest.Word(role, roles, max(2, len(role)/3)); near != "" {
		out += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return out
}

// elementsOf returns an extract result's elements as decoded JSON objects.
func elementsOf(result any) []map[string]any {
	var list []any
	switch r := result.(type) {
	case map[string]any:
		list, _ = r["elements"].([]any)
	case nil:
		return nil
	default:
		list, _ = toMap(r)["elements"].([]any)
	}
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

var regexSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(\?[a-zA-Z]+\)|[\\^$.*+?()\[\]{}|]`) })

// regexLetters is a name pattern without its regex syntax, to compare with
// names: "(?i)^sign in$" is "sign in".
func regexLetters(pattern string) string {
	return regexSyntax().ReplaceAllString(pattern, "")
}
