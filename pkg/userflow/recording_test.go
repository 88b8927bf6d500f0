package userflow

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParseSpec reads the Recorder spec recording (the former
// everything.json) and checks the fields each step type carries.
func TestParseSpec(t *testing.T) {
	f, err := os.Open(replayDir + "/spec.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Title != "spec" || len(rec.Steps) != 15 {
		t.Fatalf("title %q with %d steps, want spec with 15", rec.Title, len(rec.Steps))
	}
	s := rec.Steps
	if s[0].Type != "setViewport" || s[0].Width != 900 || s[0].Height != 700 || s[0].Line != 4 {
		t.Errorf("step 1 = %+v", s[0])
	}
	if s[1].URL != "http://localhost:8907/spec.html" || len(s[1].AssertedEvents) != 1 || s[1].AssertedEvents[0].Type != "navigation" {
		t.Errorf("step 2 = %+v", s[1])
	}
	if want := [][]string{{"aria/Click"}, {"#button"}, {`xpath///*[@id="button"]`}, {"text/Click"}}; !reflect.DeepEqual(s[2].Selectors, want) || *s[2].OffsetX != 36 {
		t.Errorf("step 3 = %+v", s[2])
	}
	if s[10].Button != "secondary" {
		t.Errorf("step 11's button = %q", s[10].Button)
	}
	w := s[13]
	if w.Type != "waitForElement" || !reflect.DeepEqual(w.Selectors, [][]string{{"#button"}}) || *w.Count != 1 || !*w.Visible ||
		string(w.Properties) == "" || w.Attributes["id"] != "button" {
		t.Errorf("step 14 = %+v", w)
	}
}

// TestParseErrors: what is not a user flow is a ParseError that names the
// line and column and says what is wrong.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"not JSON", "{\n  \"title\": \"x\",\n  \"steps\": [\n    {\"type\": \"click\",}\n  ]\n}", 4, 22, "not JSON: invalid character '}'"},
		{"a list", `[{"type": "click"}]`, 1, 1, "the file holds a JSON array"},
		{"no steps", `{"title": "x"}`, 1, 1, "it has no steps list"},
		{"steps not a list", `{"title": "x", "steps": {}}`, 1, 25, "steps is not a list"},
		{"title not a string", `{"title": 3, "steps": []}`, 1, 11, "title is not a string"},
		{"timeout too long", `{"title": "x", "timeout": 60000, "steps": []}`, 1, 27, "timeout 60000 is not a whole number of ms from 1 to 30000"},
		{"a step with no type", "{\"steps\": [\n  {\"type\": \"click\", \"selectors\": [\"a\"]},\n  {\"url\": \"http://x/\"}\n]}", 3, 3, "step 2 has no type"},
		{"a step not an object", `{"steps": [1]}`, 1, 12, "step 1 is not an object"},
		{"selectors of numbers", "{\"steps\": [\n {\"type\": \"click\", \"selectors\": [[1]]}]}", 2, 2, "step 1 (click): a selector is not a string or a non-empty list of strings"},
		{"fields of the wrong types", `{"steps": [{"type": "click", "selectors": ["a"], "offsetX": "1", "frame": "x", "timeout": 0}]}`, 1, 12,
			"step 1 (click): offsetX is not a number; frame is not a list of frame indexes; timeout 0 is not a whole number of ms from 1 to 30000"},
		{"the same step twice", "{\"steps\": [\n{\"type\": \"close\"},\n{\"type\": \"close\"},\n{\"type\": \"close\", \"key\": 1}]}", 4, 1, "step 3 (close): key is not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want a ParseError", err)
			}
			if pe.Line != tt.line || pe.Col != tt.col || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got %d:%d %q, want %d:%d and a message with %q", pe.Line, pe.Col, pe.Msg, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// TestParseUnknownStep: a step type the format does not define parses;
// Convert reports it by name.
func TestParseUnknownStep(t *testing.T) {
	rec, err := Parse(strings.NewReader(`{"title": "x", "steps": [{"type": "drag", "from": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Convert(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.Problems) != 1 || !strings.Contains(res.Report.Problems[0].String(), "step 1 (drag): drag is not a step type") {
		t.Errorf("problems = %v", res.Report.Problems)
	}
}
