package bridge

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/bua-dev/bua/pkg/home"
)

// managedSet is the daemon's managed browsers by name, each made on first
// use (a request or `bua browser start` naming it) and kept: its token
// must still pair its extension after a reconnect.
type managedSet struct {
	dirs home.Dirs
	mu   sync.Mutex
	m    map[string]*managedBrowser
}

// get is the managed browser named name (IsManaged(name) holds).
func (s *managedSet) get(name string) *managedBrowser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*managedBrowser{}
	}
	m := s.m[name]
	if m == nil {
		m = &managedBrowser{paths: managedPathsFor(s.dirs, name)}
		s.m[name] = m
	}
	return m
}

// all lists the managed browsers made so far, by index.
func (s *managedSet) all() []*managedBrowser {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*managedBrowser, 0, len(s.m))
	for _, m := range s.m {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *managedBrowser) int { return compareBrowsers(a.paths.name, b.paths.name) })
	return out
}

// statuses are the ManagedStatus of every managed browser that runs, by
// index, orphans that would not stop included.
func (s *managedSet) statuses() []ManagedStatus {
	out := []ManagedStatus{}
	for _, m := range s.all() {
		if st := m.status(); st.Running || st.RecordError != "" {
			out = append(out, st)
		}
	}
	return out
}

// tokens adds each managed browser's token to t, by name.
func (s *managedSet) tokens(t map[string]string) {
	for _, m := range s.all() {
		if tok, _ := m.token.Load().(string); tok != "" {
			t[m.paths.name] = tok
		}
	}
}

// stopAll stops every managed browser this daemon launched, and any an
// earlier daemon left; it reports whether one ran and the first error.
func (s *managedSet) stopAll(ctx context.Context, log *slog.Logger) (bool, error) {
	var (
		mu      sync.Mutex
		stopped bool
		first   error
		wg      sync.WaitGroup
	)
	for _, m := range s.all() {
		wg.Go(func() { // together: each may take the SIGTERM grace
			ran, err := m.stop(ctx, log)
			mu.Lock()
			defer mu.Unlock()
			stopped = stopped || ran
			if first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	st, err := StopOrphan(ctx, s.dirs) // names this daemon never used
	logHealed(log, st)
	return stopped || len(st.Browsers) > 0, cmp.Or(first, err)
}

// killAll is kill for every managed browser.
func (s *managedSet) killAll() {
	for _, m := range s.all() {
		m.kill()
	}
}

// profileGone is the first running browser's profileGone, or "".
func (s *managedSet) profileGone() string {
	for _, m := range s.all() {
		if why := m.profileGone(); why != "" {
			return why
		}
	}
	return ""
}
