package runner

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Merging shard reports (docs/flows.md#merging-the-reports-of-shards, as Playwright's
// merge-reports): each CI job runs a shard (`bua run --shard I/N`) and
// writes a JSON report; `bua report merge` reads them back (ReadJSONFile)
// and Merge makes them one SuiteReport, written as JSON, JUnit and HTML by
// the same writers as a run's. An in-process caller (workers of one run)
// can merge its suites the same way.

// ShardInfo is one input of a merged report: the JSON report it was read
// from and the run that wrote it.
type ShardInfo struct {
	// Report is the JSON file as it was given to the merge.
	Report string `json:"report"`
	// Shard is the run's --shard I/N ("" when it was not sharded); Host
	// and Bua the machine and the bua version that ran it.
	Shard      string    `json:"shard,omitempty"`
	Host       string    `json:"host,omitempty"`
	Bua        string    `json:"bua,omitempty"`
	Started    time.Time `json:"started"`
	DurationMs int64     `json:"durationMs"`
	Status     Status    `json:"status"`
	// Flows counts the flows of the run.
	Flows int `json:"flows"`
}

// MergeOptions changes how Merge treats its inputs.
type MergeOptions struct {
	// AllowDuplicates keeps every run of a flow that several inputs hold
	// (the same suite on two environments, say), as separate entries,
	// instead of failing.
	AllowDuplicates bool
}

// Merge combines the reports of the shards of one suite into one report:
//   - its flows are every input's, sorted as a sharded run sorts them
//     (by file, then name; a stable sort keeps the inputs' order
//     otherwise), each with Shard set to its input's shard, and with its
//     steps, failed attempts, flaky marks and evidence as they were;
//   - it started when the first input started and lasted until the last
//     ended (the wall time of the sharded run); it is interrupted when an
//     input was, and its Problems are the inputs' (prefixed with their
//     Source, slash-separated: ReportPath); MissingShards are the shards
//     of the inputs' I/N splits that no input ran (a job that failed
//     before its upload), whose flows the report cannot have, so that
//     Exit fails;
//   - Shards lists the inputs by shard (a merged input's own Shards, so
//     merging merged reports again loses nothing).
//
// A flow file in two inputs means the shards overlap (two jobs with the
// same I, a report given twice): Merge fails with a *ReportError naming
// both, unless opt.AllowDuplicates. The warnings are for the person:
// inputs written by different bua versions. Counts and Status follow
// from the flows, so the totals are the merged ones. The merged report
// takes the inputs' flows over (it sets their Shard): do not use the
// inputs afterwards.
func Merge(inputs []*SuiteReport, opt MergeOptions) (*SuiteReport, []string, error) {
	out := &SuiteReport{Flows: []*FlowReport{}}
	seen := map[string]*SuiteReport{}
	var end time.Time
	for _, in := range inputs {
		for _, f := range in.Flows {
			key := ReportPath(f.File) // flows/a.yaml whichever OS ran the shard
			if prev, ok := seen[key]; ok && prev != in && !opt.AllowDuplicates {
				return nil, nil, &ReportError{File: in.Source,
					Msg:  fmt.Sprintf("flow %q (%s) is also in %s: the shards overlap", f.Name, f.File, label(prev)),
					Hint: "give each shard's report once, and run every job with the same N and its own I (--shard I/N); --allow-duplicates keeps both runs"}
			}
			seen[key] = in
			if f.Shard == "" {
				f.Shard = in.Shard
			}
			out.Flows = append(out.Flows, f)
		}
		if !in.Started.IsZero() && (out.Started.IsZero() || in.Started.Before(out.Started)) {
			out.Started = in.Started
		}
		if e := in.Started.Add(in.Duration); e.After(end) {
			end = e
		}
		out.Interrupted = out.Interrupted || in.Interrupted
		for _, p := range in.Problems {
			// The merged report's problems: its input slash-separated, as
			// the report names every path (ReportPath).
			out.Problems = append(out.Problems, ReportPath(label(in))+": "+p)
		}
		if len(in.Shards) > 0 {
			out.Shards = append(out.Shards, in.Shards...)
			continue
		}
		out.Shards = append(out.Shards, ShardInfo{Report: in.Source, Shard: in.Shard, Host: in.Host, Bua: in.Bua,
			Started: in.Started, DurationMs: in.Duration.Milliseconds(), Status: in.Status(), Flows: len(in.Flows)})
	}
	if !out.Started.IsZero() {
		out.Duration = end.Sub(out.Started)
	}
	sort.SliceStable(out.Flows, func(i, j int) bool {
		a, b := out.Flows[i], out.Flows[j]
		if fa, fb := ReportPath(a.File), ReportPath(b.File); fa != fb {
			return fa < fb // as Shard sorts: the same order on every OS
		}
		return a.Name < b.Name
	})
	sort.SliceStable(out.Shards, func(i, j int) bool { return shardIndex(out.Shards[i].Shard) < shardIndex(out.Shards[j].Shard) })
	out.MissingShards = missingShards(out.Shards)
	return out, versionWarnings(out.Shards), nil
}

// label names an input in messages: its file, else its shard.
func label(s *SuiteReport) string {
	switch {
	case s.Source != "":
		return s.Source
	case s.Shard != "":
		return "shard " + s.Shard
	}
	return "a report"
}

// shardIndex orders shards by their N, then their I ("2/4" is 4*1000+2);
// one that is not I/N goes last.
func shardIndex(shard string) int {
	var i, n int
	if _, err := fmt.Sscanf(shard, "%d/%d", &i, &n); err != nil {
		return 1 << 30
	}
	return n*1000 + i
}

// missingShards are the shards of the inputs' I/N splits ("3/4") that no
// input ran: their flows are not in the merged report. Inputs of
// different N leave shards of each split missing.
func missingShards(shards []ShardInfo) []string {
	have := map[int]map[int]bool{} // N -> I
	var ns []int
	for _, sh := range shards {
		var i, n int
		if _, err := fmt.Sscanf(sh.Shard, "%d/%d", &i, &n); err != nil || n < 1 {
			continue
		}
		if have[n] == nil {
			have[n] = map[int]bool{}
			ns = append(ns, n)
		}
		have[n][i] = true
	}
	sort.Ints(ns)
	var out []string
	for _, n := range ns {
		for i := 1; i <= n; i++ {
			if !have[n][i] {
				out = append(out, fmt.Sprintf("%d/%d", i, n))
			}
		}
	}
	return out
}

// versionWarnings warns when the inputs were written by different bua
// versions: their flows ran the same way only if nothing they use changed.
func versionWarnings(shards []ShardInfo) []string {
	by := map[string][]string{}
	var versions []string
	for _, sh := range shards {
		v := sh.Bua
		if v == "" {
			v = "unknown"
		}
		if by[v] == nil {
			versions = append(versions, v)
		}
		by[v] = append(by[v], sh.Report)
	}
	if len(versions) < 2 {
		return nil
	}
	var parts []string
	for _, v := range versions {
		parts = append(parts, fmt.Sprintf("%s (%s)", v, strings.Join(by[v], ", ")))
	}
	return []string{"the shards ran different bua versions: " + strings.Join(parts, ", ") + "; install one version in every job so that the flows run alike"}
}
