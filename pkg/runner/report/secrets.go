package report

import (
	"sort"
	"strings"
	"sync"
)

// Mask replaces a secret wherever it would be printed.
const Mask = "***"

// Masker replaces secret values with Mask: vars listed under `secrets`, and
// env values typed by a type action. It masks content (values, messages,
// page text), never the paths bua itself writes (the evidence bundle's
// files): a secret such as "pass" inside a step's name would otherwise turn
// a real path into one that does not exist. Safe for concurrent use.
type Masker struct {
	mu   sync.Mutex
	vals []string
	repl *strings.Replacer
}

// Add registers a secret value; empty values are ignored (they would mask
// everything).
func (m *Masker) Add(v string) {
	if m == nil || v == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.vals {
		if x == v {
			return
		}
	}
	m.vals = append(m.vals, v)
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(m.vals, func(i, j int) bool { return len(m.vals[i]) > len(m.vals[j]) })
	var pairs []string
	for _, x := range m.vals {
		pairs = append(pairs, x, Mask)
	}
	m.repl = strings.NewReplacer(pairs...)
}

// Mask returns s with every secret replaced.
func (m *Masker) Mask(s string) string {
	if m == nil {
		return s
	}
	m.mu.Lock()
	r := m.repl
	m.mu.Unlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// MaskValue returns a copy of v (JSON-shaped: maps, slices, strings) with
// every string masked.
func (m *Masker) MaskValue(v any) any {
	switch x := v.(type) {
	case string:
		return m.Mask(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = m.MaskValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.MaskValue(e)
		}
		return out
	}
	return v
}
