// Package report is what a run of bua flows leaves: the records of a
// suite, its flows and their steps (report.go, status.go, failures.go), with the
// evidence of a failure (evidence.go), and what is written from them: the
// JSON report (report_json.go) and its reading back (readjson.go), JUnit
// XML (report_junit.go, flaky.go for reruns), the summary rows the CLI
// prints (summary.go), shards and their merge (shard.go, merge.go). Every
// path a report holds is slash-separated (reportpath.go); secrets are
// masked (secrets.go). The engine (pkg/runner) fills the records; this
// package knows nothing of it.
package report
