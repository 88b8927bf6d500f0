package report

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestReadJSON_BadInput: a file that is not a bua JSON report, of a newer
// format, or broken, is refused with the file's name (and line:col for a
// JSON error) and a hint; nothing is guessed.
func TestReadJSON_BadInput(t *testing.T) {
	for _, tc := range []struct {
		name, content, want string
	}{
		{"Missing", "", "missing.json: cannot read: "}, // and the OS's words for a missing file
		{"JUnit", "<?xml version=\"1.0\"?>\n<testsuites/>\n", "in.json:1:1: not valid JSON: invalid character '<' looking for beginning of value"},
		{"SyntaxError", "{\n  \"reportVersion\": 1,\n  \"flows\": [\n    {\"name\": \"a\",}\n  ]\n}\n", "in.json:4:18: not valid JSON: invalid character '}' looking for beginning of object key string"},
		{"Truncated", "{\n  \"reportVersion\": 1,\n  \"flows\": [\n", "in.json:4:1: not valid JSON: unexpected end of JSON input"},
		{"Array", "[{\"flows\": []}]", "in.json: not a bua JSON report: the document is a JSON array, want an object"},
		{"OtherJSON", "{\"name\": \"my-app\", \"version\": \"1.0.0\"}", "in.json: not a bua JSON report (it has no reportVersion and no flows)"},
		{"BeforeMerge", "{\"started\": \"2026-01-01T00:00:00Z\", \"flows\": []}", "in.json: a JSON report without reportVersion: written by a bua from before `bua report merge`"},
		{"Newer", "{\"reportVersion\": 2, \"flows\": []}", "in.json: report format version 2 is newer than this bua reads (up to 1)"},
		{"VersionString", "{\"reportVersion\": \"1\", \"flows\": []}", "in.json:1:21: reportVersion is a JSON string, want a number"},
		{"StepsNotArray", "{\"reportVersion\": 1,\n \"flows\": [{\"name\": \"a\", \"file\": \"a.yaml\", \"status\": \"passed\", \"steps\": {}}]}", "in.json:2:73: flows.steps is a JSON object, want an array"},
		{"NoFile", "{\"reportVersion\": 1, \"flows\": [{\"name\": \"a\", \"status\": \"passed\", \"steps\": []}]}", "in.json: flows[0] has no file"},
		{"UnknownStatus", "{\"reportVersion\": 1, \"flows\": [{\"name\": \"a\", \"file\": \"a.yaml\", \"status\": \"green\", \"steps\": []}]}", "in.json: flows[0] (a.yaml): unknown status \"green\""},
		{"TooLarge", "{\"reportVersion\": 1, \"flows\": []}" + strings.Repeat(" ", 2<<20), "in.json: 2 MiB: larger than any bua report (at most 1 MiB are read)"},
		{"UnknownStepStatus", "{\"reportVersion\": 1, \"flows\": [{\"name\": \"a\", \"file\": \"a.yaml\", \"status\": \"passed\", \"failedAttempts\": [{\"name\": \"a\", \"file\": \"a.yaml\", \"status\": \"failed\", \"steps\": [{\"status\": \"ok\"}]}]}]}", "in.json: flows[0].failedAttempts[0].steps[0] (a.yaml): unknown status \"ok\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(n int64) { maxReportBytes = n }(maxReportBytes)
			maxReportBytes = 1 << 20
			dir := t.TempDir()
			t.Chdir(dir)
			path := "missing.json"
			if tc.content != "" {
				path = "in.json"
				writeFile(t, path, tc.content)
			}
			want := tc.want
			if tc.content == "" {
				// What this OS says of it, asked of the OS: "no such file
				// or directory", "The system cannot find the file
				// specified."
				_, oerr := os.ReadFile(path)
				var pe *fs.PathError
				if !errors.As(oerr, &pe) || !errors.Is(oerr, fs.ErrNotExist) {
					t.Fatalf("reading %s: %v, want the OS's not-found error", path, oerr)
				}
				want += pe.Err.Error()
			}
			s, _, err := ReadJSONFile(path)
			var re *ReportError
			if s != nil || !errors.As(err, &re) {
				t.Fatalf("ReadJSONFile = %v, %v; want a *ReportError", s, err)
			}
			if err.Error() != want || re.Hint == "" {
				t.Errorf("error %q (hint %q), want %q and a hint", err, re.Hint, want)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
