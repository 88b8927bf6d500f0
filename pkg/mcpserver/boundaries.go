package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bua-dev/bua/pkg/protocol"
)

// Where this server may act: --allow and --block, on top of the person's
// blocklist, which the extension keeps (Playwright MCP's
// --allowed-origins and --blocked-origins do the same). A domain covers
// its subdomains, as the blocklist's entries do. The check runs before an
// action: a click may still take the tab somewhere outside, and then the
// next action there is refused.

// NormalizeDomain reads a --allow or --block value: a domain (or an IP),
// lowercased, without a scheme, port, path, leading "*." or dots. "" when
// s names none.
func NormalizeDomain(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return ""
		}
		s = u.Host
	}
	s, _, _ = strings.Cut(s, "/")
	if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	}
	s = strings.Trim(strings.TrimPrefix(s, "*."), ".[]")
	if net.ParseIP(s) != nil || hostname().MatchString(s) {
		return s
	}
	return ""
}

// hostname is a DNS name: labels of letters, digits and inner hyphens.
var hostname = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
})

// covers reports whether domain d covers host h: h is d or a subdomain.
func covers(d, h string) bool { return h == d || strings.HasSuffix(h, "."+d) }

// outside says why u is outside this server's bounds, or "" when it may
// act there. about:blank is always inside: it is no one's page.
func (s *Server) outside(u string) string {
	if u == "" || u == "about:blank" || (len(s.o.Allow) == 0 && len(s.o.Block) == 0) {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || p.Hostname() == "" {
		return "" // not a web page the lists could name (the extension refuses odd schemes)
	}
	host := strings.ToLower(strings.Trim(p.Hostname(), "[]"))
	for _, d := range s.o.Block {
		if covers(d, host) {
			return host + " is blocked for this agent (bua mcp --block " + d + ")"
		}
	}
	if len(s.o.Allow) > 0 && !slices.ContainsFunc(s.o.Allow, func(d string) bool { return covers(d, host) }) {
		return host + " is outside the domains this agent may use (bua mcp --allow " + strings.Join(s.o.Allow, ", --allow ") + ")"
	}
	return ""
}

// boundaries refuses c when it would act outside this server's bounds:
// navigate's or open_tab's URL, or the URL of the tab a tab action runs
// on. The refusal is domain_blocked, as the person's blocklist's is:
// intentional; stop and tell the person.
func (s *Server) boundaries(ctx context.Context, c *call) *protocol.Error {
	if len(s.o.Allow) == 0 && len(s.o.Block) == 0 {
		return nil
	}
	a := c.action
	switch {
	case a.Type == protocol.ActionNavigate || a.Type == protocol.ActionOpenTab:
		if why := s.outside(a.URL); why != "" {
			return protocol.Errorf(protocol.CodeDomainBlocked, "%s: not loaded", why)
		}
		return nil
	case protocol.ActionSpecs[a.Type].Scope != protocol.ScopeTab && a.Type != protocol.ActionCloseTab:
		return nil
	}
	tab, ok := s.tabInfo(ctx, a.TabID)
	if !ok {
		return nil // no such tab: the daemon or the extension says so
	}
	if why := s.outside(tab.URL); why != "" {
		return protocol.Errorf(protocol.CodeDomainBlocked, "tab %d shows %s: %s did not run", tab.TabID, why, a.Type)
	}
	return nil
}

// tabInfo is the tab an action runs on, from get_tabs: the one it names,
// else this agent's current tab (the daemon marks it).
func (s *Server) tabInfo(ctx context.Context, tabID *int) (protocol.TabInfo, bool) {
	tabs, err := s.tabs(ctx)
	if err != nil {
		return protocol.TabInfo{}, false
	}
	for _, t := range tabs {
		if (tabID != nil && t.TabID == *tabID) || (tabID == nil && t.Current) {
			return t, true
		}
	}
	return protocol.TabInfo{}, false
}

// tabs is get_tabs' answer.
func (s *Server) tabs(ctx context.Context) ([]protocol.TabInfo, *protocol.Error) {
	res, err := s.o.Requester.Request(ctx, protocol.GetTabs())
	if err != nil {
		return nil, err
	}
	var tabs []protocol.TabInfo
	if jerr := json.Unmarshal(res, &tabs); jerr != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "get_tabs' answer does not decode: %v", jerr)
	}
	return tabs, nil
}

// uploadFiles resolves upload's files against Root and refuses any
// outside it: an agent led astray by a page must not hand the page a file
// from elsewhere on the machine (~/.ssh). Symbolic links are followed
// before the check. nil, nil when files is absent.
func (s *Server) uploadFiles(raw json.RawMessage) (json.RawMessage, *protocol.Error) {
	if raw == nil {
		return nil, nil
	}
	refuse := func(format string, a ...any) (json.RawMessage, *protocol.Error) {
		e := protocol.Errorf(protocol.CodeInvalidAction, format, a...)
		e.Reason = protocol.ReasonRefused
		return nil, e
	}
	var files []string
	if err := json.Unmarshal(raw, &files); err != nil {
		return refuse("bad arguments for upload: files: must be a list of paths")
	}
	if s.o.Root == "" {
		return refuse("upload is off: this server has no folder it may read files from")
	}
	root, err := filepath.EvalSymlinks(s.o.Root)
	if err != nil {
		return refuse("upload: the server's folder %s: %v", s.o.Root, err)
	}
	for i, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.o.Root, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			if os.IsNotExist(err) {
				return refuse("bad arguments for upload: files: %s does not exist", f)
			}
			return refuse("bad arguments for upload: files: %s: %v", f, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return refuse("bad arguments for upload: files: %s is outside %s, the only folder this server may upload from", f, s.o.Root)
		}
		files[i] = real
	}
	out, _ := json.Marshal(files)
	return out, nil
}
