package report

import (
	"slices"
	"strings"
)

// Shard returns the files of shard i of n (1-based): sorted (SortFiles),
// then every file whose index % n == i-1, so each CI job gets a stable
// share, on whichever OS it runs.
func Shard(files []string, i, n int) []string {
	sorted := append([]string(nil), files...)
	SortFiles(sorted)
	var out []string
	for k, f := range sorted {
		if k%n == i-1 {
			out = append(out, f)
		}
	}
	return out
}

// SortFiles sorts flow files by their slash-separated form (ReportPath),
// so that the jobs of one sharded suite split it alike on Windows and
// elsewhere: a/x.yaml sorts before a2.yaml (/ is 0x2F, 2 is 0x32), but
// a\x.yaml after it (\ is 0x5C), and a job on each OS would run one file
// twice and another never.
func SortFiles(files []string) {
	slices.SortStableFunc(files, func(a, b string) int { return strings.Compare(ReportPath(a), ReportPath(b)) })
}
