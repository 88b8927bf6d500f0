// Package nearest finds the word a misspelling most likely meant, for
// error messages that say "did you mean X": the flow loader's keys and
// vars, `bua run --var` names and the role targets' WAI-ARIA roles.
package nearest

// Word returns the candidate closest to s by edit distance when that
// distance is at most maxDist, else "". Ties go to the earlier candidate.
func Word(s string, candidates []string, maxDist int) string {
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if d := Distance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b: the
// Levenshtein distance (insertions, deletions, substitutions) where
// swapping two adjacent letters also counts as one edit, so a transposed
// "nmae" is 1 from "name", not 2. It is counted in bytes (the words
// compared here are ASCII).
func Distance(a, b string) int {
	// Three rows: the one two back is where a transposition comes from.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
