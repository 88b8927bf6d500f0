package flow

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelection_Match(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sel       Selection
		tags      []string
		wantMatch bool
	}{
		{"NoSelectionRunsAll", Selection{}, nil, true},
		{"NoSelectionRunsTagged", Selection{}, []string{"slow"}, true},
		{"AnyTag", Selection{Tags: []string{"smoke", "checkout"}}, []string{"checkout"}, true},
		{"NoneOfTags", Selection{Tags: []string{"smoke"}}, []string{"checkout"}, false},
		{"UntaggedWithTag", Selection{Tags: []string{"smoke"}}, nil, false},
		{"ExcludeWins", Selection{Tags: []string{"smoke"}, Exclude: []string{"slow"}}, []string{"smoke", "slow"}, false},
		{"ExcludeOnly", Selection{Exclude: []string{"slow"}}, []string{"smoke"}, true},
		{"ExcludeOnlyUntagged", Selection{Exclude: []string{"slow"}}, nil, true},
		{"CaseMatters", Selection{Tags: []string{"Smoke"}}, []string{"smoke"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sel.Match(tc.tags); got != tc.wantMatch {
				t.Errorf("%v.Match(%v) = %v, want %v", tc.sel, tc.tags, got, tc.wantMatch)
			}
		})
	}
}

func TestCheckTag(t *testing.T) {
	for tag, ok := range map[string]bool{"smoke": true, "checkout-eu": true, "v1.2": true, "_x": true, "": false, "-x": false, "a b": false, "a,b": false} {
		if err := CheckTag(tag); (err == nil) != ok {
			t.Errorf("CheckTag(%q) = %v, want ok=%v", tag, err, ok)
		}
	}
}

// TestSelect: tags pick flows in order; a flow whose tags cannot be read
// is kept with its error (the run reports it invalid), while a flow whose
// other parts are invalid is still picked by its tags alone.
func TestSelect(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"a.yaml": "name: A smoke\ntags: [smoke]\nsteps:\n  - log: a\n",
		"b.yaml": "tags: [smoke, slow]\nsteps:\n  - log: b\n",
		"c.yaml": "name: C\nsteps:\n  - log: c\n",
		"d.yaml": "name: D broken tags\ntags: smoke\nsteps:\n  - log: d\n",
		"e.yaml": "name: E broken steps\ntags: [checkout]\nsteps:\n  - clik: e\n",
		"f.yaml": "name: [unterminated\n",
	})
	var files []string
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		files = append(files, filepath.Join(dir, n+".yaml"))
	}
	names := func(infos []FlowInfo) string {
		var out []string
		for _, i := range infos {
			out = append(out, i.Name+"["+strings.Join(i.Tags, ",")+"]")
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		sel  Selection
		want string
	}{
		{"All", Selection{}, "A smoke[smoke] b[smoke,slow] C[] D broken tags[] E broken steps[checkout] f[]"},
		{"Smoke", Selection{Tags: []string{"smoke"}}, "A smoke[smoke] b[smoke,slow] D broken tags[] f[]"},
		{"SmokeNotSlow", Selection{Tags: []string{"smoke"}, Exclude: []string{"slow"}}, "A smoke[smoke] D broken tags[] f[]"},
		{"Checkout", Selection{Tags: []string{"checkout"}}, "D broken tags[] E broken steps[checkout] f[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(Select(files, tc.sel)); got != tc.want {
				t.Errorf("Select = %s\nwant     %s", got, tc.want)
			}
		})
	}
	d := ReadInfo(files[3])
	var le *LoadError
	if !errors.As(d.Err, &le) || len(le.Diags) != 1 || le.Diags[0].Line != 2 || le.Diags[0].Col != 7 {
		t.Errorf("bad tags: Err = %v, want one diagnostic at 2:7", d.Err)
	}
	if f := ReadInfo(files[5]); !errors.As(f.Err, &le) || !strings.Contains(f.Err.Error(), "malformed YAML") {
		t.Errorf("malformed file: Err = %v", f.Err)
	}
	if e := ReadInfo(files[4]); e.Err != nil {
		t.Errorf("tags read despite a bad step: Err = %v", e.Err)
	}
}
