package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// selectResult is select_option's result.
type selectResult struct {
	Values []string `json:"values"`
}

func selectOption(t *testing.T, tab int, selector string, by string, items any) []string {
	t.Helper()
	var r selectResult
	mustRequest(t, map[string]any{"type": "select_option", "tabId": tab, "selector": selector, by: items}, &r)
	if r.Values == nil {
		t.Fatalf("select_option %s %s %v: no values in the result", selector, by, items)
	}
	return r.Values
}

// TestForms_SelectOption: a select with optgroups and a multi-select, by
// value, label and index, answered with the values selected and the
// input and change events a person's choice fires; and the errors.
func TestForms_SelectOption(t *testing.T) {
	tab := openTab(t, "forms/")
	if got := selectOption(t, tab, "#colour", "label", "Blue"); !reflect.DeepEqual(got, []string{"blue"}) {
		t.Fatalf("label Blue: %v", got)
	}
	if got := evaluate(t, tab, "return window.events.join(' ')"); got != "input:colour change:colour" {
		t.Fatalf("events %q, want input then change on the select", got)
	}
	// Index counts options across optgroups: "", red, orange, blue, green.
	if got := selectOption(t, tab, "#colour", "index", 4); !reflect.DeepEqual(got, []string{"green"}) {
		t.Fatalf("index 4: %v", got)
	}
	if got := evaluate(t, tab, "return document.querySelector('#colour').value"); got != "green" {
		t.Fatalf("page reads %v", got)
	}
	if got := selectOption(t, tab, "#toppings", "value", []string{"chili", "cheese"}); !reflect.DeepEqual(got, []string{"cheese", "chili"}) {
		t.Fatalf("multi by value: %v, want document order", got)
	}
	if got := selectOption(t, tab, "#toppings", "label", "Fresh basil"); !reflect.DeepEqual(got, []string{"basil"}) {
		t.Fatalf("label with collapsed whitespace: %v", got)
	}
	if got := selectOption(t, tab, "#toppings", "value", []string{}); len(got) != 0 {
		t.Fatalf("empty list: %v, want nothing selected", got)
	}
	if got := evaluate(t, tab, "return document.querySelectorAll('#toppings option:checked').length"); got != float64(0) {
		t.Fatalf("after deselecting all the page has %v selected", got)
	}

	e := wantError(t, map[string]any{"type": "select_option", "tabId": tab, "selector": "#note", "value": "x"}, "invalid_action")
	wantContains(t, "not a select", e.Message, "is not a <select> element (it is <input type=text>)")
	e = wantError(t, map[string]any{"type": "select_option", "tabId": tab, "selector": "#colour", "label": "Purple"}, "element_not_found")
	wantContains(t, "missing option", e.Message, `no option with label "Purple": its options' labels are "Choose…", "Red"`)
	e = wantError(t, map[string]any{"type": "select_option", "tabId": tab, "selector": "#colour", "value": []string{"red", "blue"}}, "invalid_action")
	wantContains(t, "two on a single select", e.Message, "takes one option")
	start := time.Now()
	e = wantError(t, map[string]any{"type": "select_option", "tabId": tab, "selector": "#colour", "value": "gold"}, "timeout", "--timeout", "2s")
	wantContains(t, "disabled optgroup", e.Message, `choosing a disabled option ("Gold")`)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the disabled option's wait took %v, want about its 2 s timeout", d)
	}
}

// TestPlaywright_SelectOption drives Playwright's input/select.html and
// asserts what tests/page/page-select-option.spec.ts asserts.
func TestPlaywright_SelectOption(t *testing.T) {
	result := func(tab int, field string) []string {
		t.Helper()
		raw := evaluate(t, tab, "return window.result."+field)
		list, _ := raw.([]any)
		out := []string{}
		for _, v := range list {
			out = append(out, v.(string))
		}
		return out
	}
	tests := []struct {
		name  string
		multi bool
		by    string
		items any
		want  []string
	}{
		{"should select single option by value", false, "value", "blue", []string{"blue"}},
		{"should select single option by label", false, "label", "Indigo", []string{"indigo"}},
		{"should select single option by label with html whitespace", false, "label", "HTML", []string{"html"}},
		{"should select single option by index", false, "index", 2, []string{"brown"}},
		{"should select multiple options", true, "value", []string{"blue", "green", "red"}, []string{"blue", "green", "red"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := openTab(t, "playwright/input/select.html")
			if tt.multi {
				evaluate(t, tab, "window.makeMultiple()")
			}
			got := selectOption(t, tab, "select", tt.by, tt.items)
			for _, f := range []string{"onInput", "onChange", "onBubblingInput", "onBubblingChange"} {
				if r := result(tab, f); !reflect.DeepEqual(r, tt.want) {
					t.Errorf("window.result.%s = %v, want %v", f, r, tt.want)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("select_option answered %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("should throw when element is not a <select>", func(t *testing.T) {
		tab := openTab(t, "playwright/input/select.html")
		e := wantError(t, map[string]any{"type": "select_option", "tabId": tab, "selector": "body", "value": ""}, "invalid_action")
		wantContains(t, "message", e.Message, "not a <select> element")
	})
	t.Run("should deselect all options when passed no values for a multiple select", func(t *testing.T) {
		tab := openTab(t, "playwright/input/select.html")
		evaluate(t, tab, "window.makeMultiple()")
		selectOption(t, tab, "select", "value", []string{"blue", "black", "magenta"})
		if got := selectOption(t, tab, "select", "value", []string{}); len(got) != 0 {
			t.Fatalf("answered %v, want []", got)
		}
		if got := evaluate(t, tab, "return Array.from(document.querySelector('select').options).every(o => !o.selected)"); got != true {
			t.Fatal("some option is still selected")
		}
	})
}

// TestForms_Upload: a file input shows the uploaded file's name and size,
// a hidden multiple input takes several, and the errors name what is wrong.
func TestForms_Upload(t *testing.T) {
	tab := openTab(t, "forms/")
	dir := t.TempDir()
	a := filepath.Join(dir, "notes.txt")
	b := filepath.Join(dir, "photo one.jpg")
	if err := os.WriteFile(a, []byte("twelve bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRequest(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#attachment", "files": []string{a}}, nil)
	if got := evaluate(t, tab, "return document.getElementById('echo').textContent"); got != "notes.txt (12 bytes)" {
		t.Fatalf("echo %q", got)
	}
	if got := evaluate(t, tab, "return window.events.join(' ')"); got != "input:attachment change:attachment" {
		t.Fatalf("events %q, want input and change", got)
	}
	// The multiple input is display:none behind a button: no visibility wait.
	mustRequest(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#photos", "files": []string{a, b}}, nil)
	if got := evaluate(t, tab, "return document.getElementById('photo-echo').textContent"); got != "notes.txt (12 bytes), photo one.jpg (2048 bytes)" {
		t.Fatalf("photo echo %q", got)
	}
	mustRequest(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#photos", "files": []string{}}, nil)
	if got := evaluate(t, tab, "return document.getElementById('photos').files.length"); got != float64(0) {
		t.Fatalf("after clearing: %v files", got)
	}

	missing := filepath.Join(dir, "missing.pdf")
	res, e, exit := request(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#attachment", "files": []string{missing}})
	if e == nil || e.Code != "invalid_action" || exit != 2 || !strings.Contains(e.Message, "no file at "+missing) {
		t.Fatalf("missing file: %s %+v exit %d, want invalid_action naming %s, exit 2", res, e, exit, missing)
	}
	e = wantError(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#note", "files": []string{a}}, "invalid_action")
	wantContains(t, "not a file input", e.Message, "is not a file input (it is <input type=text>)")
	e = wantError(t, map[string]any{"type": "upload", "tabId": tab, "selector": "#attachment", "files": []string{a, b}}, "invalid_action")
	wantContains(t, "two on a single input", e.Message, "takes one file")
}

// TestPlaywright_SetInputFiles: Playwright's input/fileupload.html and
// file-to-upload.txt, asserting what page-set-input-files.spec.ts's
// "should upload the file" asserts: the name and the contents read back
// from the page.
func TestPlaywright_SetInputFiles(t *testing.T) {
	tab := openTab(t, "playwright/input/fileupload.html")
	file, err := filepath.Abs(filepath.Join("..", "testdata", "sites", "playwright", "file-to-upload.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mustRequest(t, map[string]any{"type": "upload", "tabId": tab, "selector": "input", "files": []string{file}}, nil)
	if got := evaluate(t, tab, "return document.querySelector('input').files[0].name"); got != "file-to-upload.txt" {
		t.Fatalf("name %v", got)
	}
	got := evaluate(t, tab, `const e = document.querySelector('input');
const reader = new FileReader();
const promise = new Promise(fulfill => reader.onload = fulfill);
reader.readAsText(e.files[0]);
return promise.then(() => reader.result);`)
	if got != "contents of the file" {
		t.Fatalf("contents %q", got)
	}
}

// TestExtractNamesFileInput: an unlabelled <input type=file> is listed as
// Chromium's accessibility tree and Playwright's aria snapshot name it, a
// button "Choose File", with what it shows beside it as its value (no file,
// then the chosen file's name), not as a bare button.
func TestExtractNamesFileInput(t *testing.T) {
	tab := openTab(t, "playwright/input/fileupload.html")
	var r struct {
		Elements []protocol.Element `json:"elements"`
	}
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	if len(r.Elements) == 0 {
		t.Fatal("extract lists no element")
	}
	if got, want := render.ElementLine(r.Elements[0]), `e0 button "Choose File": No file chosen`; got != want {
		t.Errorf("file input listed as %q, want %q", got, want)
	}
	file, err := filepath.Abs(filepath.Join("..", "testdata", "sites", "playwright", "file-to-upload.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mustRequest(t, map[string]any{"type": "upload", "tabId": tab, "uid": "e0", "files": []string{file}}, nil)
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	if got, want := render.ElementLine(r.Elements[0]), `e0 button "Choose File": file-to-upload.txt`; got != want {
		t.Errorf("file input with a file listed as %q, want %q", got, want)
	}
}

// downloadResult is click's result with download: true.
type downloadResult struct {
	OK       bool `json:"ok"`
	Download struct {
		Path     string `json:"path"`
		Filename string `json:"filename"`
		Size     int64  `json:"size"`
		SHA256   string `json:"sha256"`
		MIME     string `json:"mime"`
		URL      string `json:"url"`
	} `json:"download"`
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestForms_Download: a click on a link to a generated file waits for the
// download and answers where it went, checked by sha256 against the bytes
// the server sent; press_key does the same; --download DIR moves the file
// there; an interrupted download is internal_error download_interrupted.
func TestForms_Download(t *testing.T) {
	tab := openTab(t, "forms/")
	want := sha256Hex(harness.DownloadBody(300000))

	var r downloadResult
	start := time.Now()
	mustRequest(t, map[string]any{"type": "click", "tabId": tab, "selector": "#report", "download": true}, &r)
	took := time.Since(start)
	d := r.Download
	if !r.OK || d.Filename != "report.bin" || d.Size != 300000 || d.SHA256 != want {
		t.Fatalf("download %+v, want report.bin, 300000 bytes, sha256 %s", d, want)
	}
	if dir := filepath.Join(buaHome, "downloads"); filepath.Dir(d.Path) != dir {
		t.Errorf("saved to %s, want the managed browser's folder %s", d.Path, dir)
	}
	if b, err := os.ReadFile(d.Path); err != nil || sha256Hex(b) != want {
		t.Fatalf("the file at %s does not hold the download (%v)", d.Path, err)
	}
	if d.MIME != "application/octet-stream" || !strings.Contains(d.URL, "/download?name=report.bin") {
		t.Errorf("mime %q url %q", d.MIME, d.URL)
	}
	t.Logf("click + 300 kB download: %v", took)

	// A file the page generated (a blob: link), started from the keyboard.
	var lines []string
	for i := 1; i <= 1000; i++ {
		lines = append(lines, strconv.Itoa(i))
	}
	evaluate(t, tab, "document.getElementById('blob-link').focus()")
	mustRequest(t, map[string]any{"type": "press_key", "tabId": tab, "key": "Enter", "download": true}, &r)
	if r.Download.Filename != "numbers.txt" || r.Download.SHA256 != sha256Hex([]byte(strings.Join(lines, "\n")+"\n")) {
		t.Fatalf("blob download %+v", r.Download)
	}

	// The CLI's --download DIR moves the file out of bua's folder.
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := harness.Cmd{Bin: buaBin, Env: buaEnv}.Run(ctx, "--json", "click", "#report", "--tab", strconv.Itoa(tab), "--download", out)
	var cr downloadResult
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &cr) != nil {
		t.Fatalf("bua click --download: exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	if cr.Download.Path != filepath.Join(out, "report.bin") || cr.Download.SHA256 != want {
		t.Fatalf("--download: %+v, want %s/report.bin", cr.Download, out)
	}
	if b, err := os.ReadFile(cr.Download.Path); err != nil || sha256Hex(b) != want {
		t.Fatalf("--download: the file in DIR is wrong (%v)", err)
	}

	e := wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#broken", "download": true}, "internal_error")
	if e.Reason != "download_interrupted" {
		t.Fatalf("interrupted: reason %q (%s), want download_interrupted", e.Reason, e.Message)
	}
	wantContains(t, "interrupted", e.Message, "was interrupted: ")

	start = time.Now()
	e = wantError(t, map[string]any{"type": "click", "tabId": tab, "selector": "#gift", "download": true}, "timeout", "--timeout", "3s")
	wantContains(t, "no download", e.Message, "started no download")
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("a click that starts no download took %v to fail, want about its 3 s timeout", d)
	}
}

// extractChecked returns extract's checked state of every checkbox and
// radio, by name.
func extractChecked(t *testing.T, tab int) map[string]any {
	t.Helper()
	var r struct {
		Elements []struct {
			Role    string `json:"role"`
			Name    string `json:"name"`
			Checked any    `json:"checked"`
		} `json:"elements"`
	}
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	out := map[string]any{}
	for _, e := range r.Elements {
		if e.Role == "checkbox" || e.Role == "radio" {
			out[e.Name] = e.Checked
		}
	}
	return out
}

// TestForms_ClickTogglesCheckboxAndRadio: click checks and unchecks a
// checkbox and moves a radio group's choice, as a person's click does, and
// extract reports it.
func TestForms_ClickTogglesCheckboxAndRadio(t *testing.T) {
	tab := openTab(t, "forms/")
	want := map[string]any{"Gift wrap": false, "Newsletter": true, "Standard": true, "Express": false}
	if got := extractChecked(t, tab); !reflect.DeepEqual(got, want) {
		t.Fatalf("before: %v, want %v", got, want)
	}
	pwClick(t, tab, "#gift")
	pwClick(t, tab, "input[value=express]")
	want = map[string]any{"Gift wrap": true, "Newsletter": true, "Standard": false, "Express": true}
	if got := extractChecked(t, tab); !reflect.DeepEqual(got, want) {
		t.Fatalf("after one click each: %v, want %v", got, want)
	}
	pwClick(t, tab, "#gift")
	pwClick(t, tab, "input[value=express]") // a checked radio stays checked
	want["Gift wrap"] = false
	if got := extractChecked(t, tab); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a second click: %v, want %v", got, want)
	}
	if got := evaluate(t, tab, "return window.events.join(' ')"); got != "input:gift change:gift input:delivery change:delivery input:gift change:gift" {
		t.Errorf("events %q", got)
	}
}

// TestForms_Flow runs flows/forms.yaml: select, upload, a download checked
// by sha256 and checked() in real Chromium.
func TestForms_Flow(t *testing.T) {
	out, code, rep, _ := runFlow(t, "forms.yaml")
	if code != 0 || len(rep.Flows) != 1 || rep.Flows[0].Status != "passed" {
		t.Fatalf("bua run forms.yaml: exit %d\n%s", code, out)
	}
}
