package e2e

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// TestReadingRecovers: an agent's read of the 8 real-world pages the MCP
// benchmark reads (bench/peers readPages: every fifth corpus page) loses
// nothing against the read before reference-style links
// (testdata/corpus/reading/*.before.txt, the same render of the same
// pages, the test server's origin written as http://corpus.test): its
// markdown, with each reference put back as the inline target it stands
// for, is the same text, and its element lines, each run put back one a
// line, are the same lines. It logs the characters before and after.
func TestReadingRecovers(t *testing.T) {
	cl := benchClient(t)
	srv := httptest.NewServer(corpusHandler())
	defer srv.Close()
	hashes, _ := filepath.Glob(filepath.Join(corpusDir, "articles", "*.html.gz"))
	sort.Strings(hashes)
	var before, after int
	for i := 0; i < len(hashes) && i/5 < 8; i += 5 {
		name := strings.TrimSuffix(filepath.Base(hashes[i]), ".html.gz")
		old, err := os.ReadFile(filepath.Join(corpusDir, "reading", name[:8]+".before.txt"))
		if err != nil {
			t.Fatal(err)
		}
		tab := openOn(t, cl, srv.URL+"/"+name+".html")
		var r protocol.ExtractResult
		if err := json.Unmarshal(benchRequest(t, cl, `{"type":"extract","tabId":`+strconv.Itoa(tab)+`}`), &r); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		render.Extract(&b, r, render.ExtractOptions{Terms: render.Agent, Where: true})
		now := strings.ReplaceAll(b.String(), srv.URL, "http://corpus.test")
		wantMD, wantEls, wantOwn := splitReading(t, string(old), false)
		gotMD, gotEls, gotOwn := splitReading(t, now, true)
		if gotMD != wantMD {
			i := 0
			for i < min(len(gotMD), len(wantMD)) && gotMD[i] == wantMD[i] {
				i++
			}
			t.Errorf("%s: the markdown differs from character %d:\nnow    %q\nbefore %q", name[:8], i, gotMD[i:min(len(gotMD), i+120)], wantMD[i:min(len(wantMD), i+120)])
		}
		if strings.Join(gotEls, "\n") != strings.Join(wantEls, "\n") {
			t.Errorf("%s: %d element lines put back, %d before; first differing:\n%s", name[:8], len(gotEls), len(wantEls), firstLineDiff(gotEls, wantEls))
		}
		if gotOwn != wantOwn {
			t.Errorf("%s: bua's own lines %q, before %q", name[:8], gotOwn, wantOwn)
		}
		n, o := len([]rune(now)), len([]rune(string(old)))
		before += o
		after += n
		t.Logf("%s: %d characters, %d before (%.2f×)", name[:8], n, o, float64(n)/float64(o))
		if n >= o {
			t.Errorf("%s: the read is %d characters, not shorter than the %d before", name[:8], n, o)
		}
	}
	t.Logf("all 8: %d characters, %d before (%.2f×)", after, before, float64(after)/float64(before))
}

var (
	elementHead = regexp.MustCompile(`^ *e\d+( [a-z]+|-e\d+ same as e\d+-e\d+$)`)
	repeatLine  = regexp.MustCompile(`^e(\d+)-e(\d+) same as e(\d+)-e(\d+)$`)
	refDef      = regexp.MustCompile(`^\[(\d+)\]: (\S+)$`)
	runSplit    = regexp.MustCompile(`^, (e\d+)`)
)

// splitReading cuts an agent's read (render.Extract with Where) into its
// markdown, its element lines one a line and bua's own lines under them.
// runs: the read writes elements in runs and references
// (render.ElementRuns, render.RefLinks), which are put back.
func splitReading(t *testing.T, s string, runs bool) (md string, els []string, own string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	end := len(lines)
	for end > 0 && !elementHead.MatchString(lines[end-1]) {
		end--
	}
	own = strings.Join(lines[end:], "\n")
	start := end
	for start > 0 && elementHead.MatchString(lines[start-1]) {
		start--
	}
	for _, l := range lines[start:end] {
		switch {
		case !runs:
			els = append(els, l)
		case repeatLine.MatchString(l):
			els = append(els, unrepeat(t, l, els)...)
		default:
			els = append(els, unrun(t, l)...)
		}
	}
	if start < 2 || lines[1] != "" || lines[start-1] != "" {
		t.Fatalf("no where line, markdown and element lines in %q", s[:min(len(s), 300)])
	}
	body := lines[2 : start-1]
	if runs {
		body = unref(t, body)
	}
	return strings.Join(body, "\n"), els, own
}

// unrepeat is a repeat line of render.ElementRuns (`e17-e31 same as
// e2-e16`) as the element lines it stands for, from the lines put back so
// far (done, e0 first): each of the earlier stretch's lines with its uid.
func unrepeat(t *testing.T, l string, done []string) []string {
	m := repeatLine.FindStringSubmatch(l)
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	if n[1]-n[0] != n[3]-n[2] || n[0] != len(done) || n[3] >= n[0] {
		t.Fatalf("repeat line %q after %d element lines", l, len(done))
	}
	var out []string
	for k := 0; k <= n[1]-n[0]; k++ {
		src := done[n[2]+k]
		uid := "e" + strconv.Itoa(n[2]+k)
		if !strings.HasPrefix(src, uid+" ") {
			t.Fatalf("repeat line %q: line %d is %q", l, n[2]+k, src)
		}
		out = append(out, "e"+strconv.Itoa(n[0]+k)+src[len(uid):])
	}
	return out
}

// unrun is a line of render.ElementRuns as the element lines it holds:
// `e3 link "A", e4 "B" [hidden]` is `e3 link "A"` and `e4 link "B" [hidden]`.
func unrun(t *testing.T, l string) []string {
	head := elementHead.FindString(l)
	indent := head[:len(head)-len(strings.TrimLeft(head, " "))]
	role := head[strings.LastIndexByte(head, ' ')+1:]
	var out []string
	cur := head
	rest := l[len(head):]
	for rest != "" {
		if m := runSplit.FindStringSubmatch(rest); m != nil {
			out = append(out, cur)
			cur = indent + m[1] + " " + role
			rest = rest[len(m[0]):]
			continue
		}
		if rest[0] == '"' {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("element line %q: %v", l, err)
			}
			cur += q
			rest = rest[len(q):]
			continue
		}
		cur += rest[:1]
		rest = rest[1:]
	}
	return append(out, cur)
}

// unref puts each reference of render.RefLinks back as its inline target
// and drops the definitions under the markdown.
func unref(t *testing.T, body []string) []string {
	defs := map[string]string{}
	end := len(body)
	for end > 0 && refDef.MatchString(body[end-1]) {
		m := refDef.FindStringSubmatch(body[end-1])
		defs[m[1]] = m[2]
		end--
	}
	if len(defs) == 0 {
		return body
	}
	if end == 0 || body[end-1] != "" {
		t.Fatalf("reference definitions not after a blank line: %q", body[max(0, end-2):min(len(body), end+1)])
	}
	md := strings.Join(body[:end-1], "\n")
	md = regexp.MustCompile(`\]\[(\d+)\]`).ReplaceAllStringFunc(md, func(m string) string {
		target, ok := defs[m[2:len(m)-1]]
		if !ok {
			t.Errorf("reference %s has no definition", m)
		}
		return "](" + target + ")"
	})
	return strings.Split(md, "\n")
}

func firstLineDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "now    " + x + "\nbefore " + y
		}
	}
	return ""
}
