package expr

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// budgetEnv is an environment whose vars hold strings of known sizes, and
// a step result `shot` larger than any computed value may be.
func budgetEnv(t *testing.T) *Env {
	t.Helper()
	vars := map[string]any{}
	s := NewEnv(map[string]any{"vars": vars, "env": map[string]any{}, "flow": map[string]any{"name": "budget", "file": "budget.yaml"}, "last": nil, "error": nil})
	vars["kib"] = strings.Repeat("k", 1<<10)
	vars["mib"] = strings.Repeat("m", 1<<20)
	vars["big"] = strings.Repeat("b", 8<<20)
	vars["lt"] = strings.Repeat("<", 2<<20)
	vars["n"] = 2
	vars["list"] = []any{"a", "b"}
	s.Names["doc"] = `["` + strings.Repeat("d", 12<<20) + `"]`
	s.Names["shot"] = map[string]any{"dataUrl": "data:image/jpeg;base64," + strings.Repeat("A", 20<<20)}
	return s
}

// evalSrc compiles src as a flow expression (every name known) and runs it
// in s.
func evalSrc(t *testing.T, s *Env, src string) (any, error) {
	t.Helper()
	e, xe := Compile(src, func(string) bool { return true }, func(string) (int, bool) { return 0, false })
	if xe != nil {
		t.Fatalf("compile %q: %s", src, xe.Msg)
	}
	e.Pos = "budget.yaml:3:9"
	return e.Eval(s)
}

// TestBudget: what an expression builds is charged before it is built
// where the arguments tell its size, after otherwise; step results pass
// through free; what is not a string (numbers, lists) adds as before.
func TestBudget(t *testing.T) {
	s := budgetEnv(t)
	for _, tc := range []struct {
		name, src string
		want      any    // the value, when it passes
		wantErr   string // the BudgetError's text, in part
	}{
		{"TenGigabyteRepeat", "repeat(repeat('a', 100000), 100000)", nil, "repeat would build 9.3 GiB, over the 10 MiB budget of a computed value"},
		{"RepeatJustOver", "len(repeat('a', 10485761))", nil, "repeat would build 10.0 MiB"},
		{"RepeatUnderBudget", "len(repeat('ab', 5000000))", 10_000_000, ""},
		{"RepeatNegative", "repeat('a', -1)", nil, "invalid argument for repeat"},
		{"ConcatOver", "vars.big + vars.big", nil, "+ would build 16 MiB"},
		{"ConcatStrings", "'a' + vars.kib + 'z'", "a" + strings.Repeat("k", 1<<10) + "z", ""},
		{"AddNumbers", "vars.n + 1", 3, ""},
		{"AddFloats", "vars.n + 0.5", 2.5, ""},
		{"ReplaceEverywhere", "replace(vars.kib, '', vars.mib)", nil, "replace would build 1.0 GiB"},
		{"ReplaceShrinks", "len(replace(vars.mib, 'm', ''))", 0, ""},
		{"JoinOver", "join(map(1..20, vars.mib), ',')", nil, "join would build 20.0 MiB"},
		{"JoinUnder", "len(join(vars.list, '-'))", 3, ""},
		{"SplitIntoCharacters", "len(split(vars.mib, ''))", nil, "split would build 16 MiB"},
		{"SplitLines", "len(split('a,b,c', ','))", 3, ""},
		{"ToBase64Over", "toBase64(vars.big)", nil, "toBase64 would build 10.7 MiB"},
		{"LowerInALoop", "len(map(1..60, lower(vars.mib)))", nil, "lower takes what this expression builds in all past its 40 MiB budget"},
		{"ConcatInALoop", "len(reduce(1..99999, #acc + 'xxxxxxxxxx', ''))", nil, "+ takes what this expression builds in all past its 40 MiB budget (the flow's to fix: build a list and join() it"},
		{"ToJSONAfter", "len(toJSON(vars.lt))", nil, "toJSON would build 12.0 MiB"}, // each < is \u003c
		{"FromJSONAfter", "len(fromJSON(doc))", nil, "fromJSON would build 12.0 MiB"},
		{"StepResultPassesThrough", "len(shot.dataUrl)", 20<<20 + len("data:image/jpeg;base64,"), ""},
		{"BuildingOnAStepResult", "shot.dataUrl + ''", nil, "+ would build 20.0 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := evalSrc(t, s, tc.src)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("%s: %v", tc.src, err)
				}
				if v != tc.want {
					t.Fatalf("%s = %v, want %v", tc.src, short(v), tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s: err = %v, want %q", tc.src, err, tc.wantErr)
			}
			if !strings.Contains(tc.wantErr, "invalid argument") {
				var be *BudgetError
				if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), `expression "`+tc.src+`" at budget.yaml:3:9: `) {
					t.Fatalf("err = %v, want a *BudgetError naming the expression and its place", err)
				}
			}
		})
	}
}

func short(v any) any {
	if s, ok := v.(string); ok && len(s) > 40 {
		return s[:40] + "..."
	}
	return v
}

// TestBudget_BeforeAllocation: the 10 GB repeat and a 1 GiB replace are
// refused from their arguments: the evaluation allocates next to nothing.
func TestBudget_BeforeAllocation(t *testing.T) {
	s := budgetEnv(t)
	for _, src := range []string{"repeat(repeat('a', 100000), 100000)", "replace(vars.kib, '', vars.mib)", "vars.big + vars.big"} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := evalSrc(t, s, src); err == nil {
			t.Fatalf("%s passed", src)
		}
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s allocated %d bytes before it was refused", src, grew)
		}
	}
}
