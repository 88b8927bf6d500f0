package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/bua-dev/bua/e2e/harness"
)

// These tests prove extract's element list (docs/extension.md "Element
// list"): the states it reports, the compact lines the CLI prints, and
// that the page-side collection lists what Chromium's accessibility tree
// lists.

type stateElement struct {
	UID      string `json:"uid"`
	Role     string `json:"role"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Visible  *bool  `json:"visible"`
	Checked  any    `json:"checked"`
	Selected bool   `json:"selected"`
	Expanded *bool  `json:"expanded"`
	Disabled bool   `json:"disabled"`
	Parent   string `json:"parent"`
}

// TestExtract_States: checked, mixed, selected, expanded, disabled and
// hidden come out of a real page as the schema's fields, options name
// their select, and elements taken out of the accessibility tree
// (aria-hidden, inert, visibility: hidden) are not listed.
func TestExtract_States(t *testing.T) {
	tab := openTab(t, "states.html")
	var r struct {
		Elements      []stateElement `json:"elements"`
		ElementsTotal int            `json:"elementsTotal"`
	}
	mustRequest(t, map[string]any{"type": "extract", "tabId": tab}, &r)
	byName := map[string]stateElement{}
	for _, e := range r.Elements {
		byName[e.Name] = e
	}
	f, tr := false, true
	for _, want := range []stateElement{
		{Role: "checkbox", Name: "Remember me", Checked: true},
		{Role: "checkbox", Name: "Newsletter", Checked: false},
		{Role: "checkbox", Name: "All", Checked: "mixed"},
		{Role: "radio", Name: "Red", Checked: false},
		{Role: "radio", Name: "Blue", Checked: true},
		{Role: "switch", Name: "Dark mode", Checked: true},
		{Role: "combobox", Name: "Plan", Value: "Pro"},
		{Role: "option", Name: "Free", Parent: "plan"},
		{Role: "option", Name: "Pro", Selected: true, Parent: "plan"},
		{Role: "button", Name: "Menu", Expanded: &tr},
		{Role: "button", Name: "More", Expanded: &f},
		{Role: "button", Name: "Locked", Disabled: true},
		{Role: "button", Name: "Inside disabled", Disabled: true},
		{Role: "button", Name: "Zero", Visible: &f},
		{Role: "link", Name: "GO UP"},         // text-transform, as Chromium names it
		{Role: "link", Name: "Home icon"},     // an SVG's <title>
		{Role: "textbox", Name: ""},           // an empty <label> names it: no placeholder
		{Role: "textbox", Name: "Your email"}, // no label: the placeholder
		{Role: "tab", Name: "First", Selected: true},
		{Role: "tab", Name: "Second"},
	} {
		got, ok := byName[want.Name]
		if !ok {
			t.Errorf("no element named %q among %+v", want.Name, r.Elements)
			continue
		}
		if want.Parent == "plan" {
			want.Parent = byName["Plan"].UID
		}
		if want.Visible == nil {
			want.Visible = &tr
		}
		if got.Role != want.Role || fmt.Sprint(got.Checked) != fmt.Sprint(want.Checked) || got.Selected != want.Selected ||
			fmt.Sprint(ptr(got.Expanded)) != fmt.Sprint(ptr(want.Expanded)) || got.Disabled != want.Disabled ||
			got.Parent != want.Parent || got.Value != want.Value || got.Visible == nil || *got.Visible != *want.Visible {
			t.Errorf("%q: got %+v (expanded %v visible %v), want %+v (expanded %v visible %v)", want.Name, got, ptr(got.Expanded), ptr(got.Visible), want, ptr(want.Expanded), *want.Visible)
		}
	}
	for _, gone := range []string{"Hidden by aria", "Inert", "Invisible"} {
		if e, ok := byName[gone]; ok {
			t.Errorf("%q is out of the accessibility tree but listed: %+v", gone, e)
		}
	}
	if r.ElementsTotal != len(r.Elements) || len(r.Elements) != 20 {
		t.Errorf("%d of %d elements, want 20 of 20", len(r.Elements), r.ElementsTotal)
	}

	// The CLI's lines: states in brackets, options under their select.
	out := mustCLI(t, "extract", "--format", "elements", "--tab", strconv.Itoa(tab)).Stdout
	for _, want := range []string{
		`checkbox "Remember me" [checked]` + "\n",
		`checkbox "Newsletter"` + "\n",
		`checkbox "All" [mixed]` + "\n",
		`combobox "Plan": Pro` + "\n",
		"\n  e", // an option, indented
		`option "Pro" [selected]` + "\n",
		`button "Menu" [expanded]` + "\n",
		`button "Locked" [disabled]` + "\n",
		`button "Zero" [hidden]` + "\n",
	} {
		wantContains(t, "extract --format elements", out, want)
	}
	// The uid of an option's select clicks that select, not another element.
	sel := byName["Plan"].UID
	act(t, tab, "click", map[string]any{"uid": byName["Menu"].UID})
	var focused struct {
		Value string `json:"value"`
	}
	act(t, tab, "click", map[string]any{"uid": sel})
	mustRequest(t, map[string]any{"type": "evaluate", "tabId": tab, "expression": "return document.activeElement.id"}, &focused)
	if focused.Value != "plan" {
		t.Errorf("clicking %s (Plan) focused #%s", sel, focused.Value)
	}
}

func ptr[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestExtract_ElementsMatchAXTree: on every fixture with interactive
// elements, extract lists the elements Chromium's accessibility tree
// lists, by role and name, in the same order (an option's visibility
// aside: extract gives it its select's). The reference is
// Accessibility.getFullAXTree on the page's own DevTools session, filtered
// as extract did before it stopped fetching the tree.
func TestExtract_ElementsMatchAXTree(t *testing.T) {
	c, err := harness.DialCDP(devToolsURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, page := range []string{
		"form.html", "many.html", "shadow.html", "iframe.html", "states.html", "buttons.html", "input.html",
		"modal.html", "markdown.html", "app/login.html", "app/dashboard.html", "obstacles/login.html",
		"obstacles/login-design-system.html", "obstacles/search.html", "playwright/input/scrollable.html",
		"playwright/input/checkbox.html", "cli/cli.html",
	} {
		t.Run(page, func(t *testing.T) {
			tab := openTab(t, page)
			var r struct {
				Elements      []stateElement `json:"elements"`
				ElementsTotal int            `json:"elementsTotal"`
			}
			mustRequest(t, map[string]any{"type": "extract", "tabId": tab, "maxElements": 5000}, &r)
			want := axElements(t, c, siteURL(page))
			var got []string
			for _, e := range r.Elements {
				got = append(got, e.Role+" "+strconv.Quote(e.Name))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") || r.ElementsTotal != len(want) {
				t.Errorf("extract lists %d (total %d):\n%s\nthe AX tree %d:\n%s", len(got), r.ElementsTotal, strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
			}
		})
	}
}

// axRoles are the interactive roles extract lists (extension/src/page/roles.js).
var axRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true, "treeitem": true,
}

type axNode struct {
	NodeID   string   `json:"nodeId"`
	ParentID string   `json:"parentId"`
	Ignored  bool     `json:"ignored"`
	ChildIDs []string `json:"childIds"`
	Role     struct {
		Value string `json:"value"`
	} `json:"role"`
	Name *struct {
		Value any `json:"value"`
	} `json:"name"`
	BackendDOMNodeID int `json:"backendDOMNodeId"`
}

// axElements lists "role \"name\"" for the interactive, non-ignored nodes
// of the page at url, child frames spliced in at their <iframe>.
func axElements(t *testing.T, c *harness.CDP, url string) []string {
	t.Helper()
	targets, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	var target string
	for _, ti := range targets {
		if ti.Type == "page" && ti.URL == url {
			target = ti.TargetID
		}
	}
	if target == "" {
		t.Fatalf("no page target at %s", url)
	}
	sess, err := c.Attach(target)
	if err != nil {
		t.Fatal(err)
	}
	call := func(method string, params map[string]any, out any) {
		res, err := c.Call(sess, method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var main struct{ Nodes []axNode }
	call("Accessibility.getFullAXTree", map[string]any{}, &main)
	var tree struct {
		FrameTree struct {
			ChildFrames []struct {
				Frame struct{ ID string }
			}
		}
	}
	call("Page.getFrameTree", map[string]any{}, &tree)
	frames := map[int][]axNode{}
	for _, f := range tree.FrameTree.ChildFrames {
		var owner struct{ BackendNodeID int }
		var sub struct{ Nodes []axNode }
		call("DOM.getFrameOwner", map[string]any{"frameId": f.Frame.ID}, &owner)
		call("Accessibility.getFullAXTree", map[string]any{"frameId": f.Frame.ID}, &sub)
		frames[owner.BackendNodeID] = sub.Nodes
	}
	var out []string
	seen := map[int]bool{}
	var walk func(nodes []axNode)
	walk = func(nodes []axNode) {
		byID := map[string]axNode{}
		for _, n := range nodes {
			byID[n.NodeID] = n
		}
		var visit func(n axNode)
		visit = func(n axNode) {
			if !n.Ignored && axRoles[n.Role.Value] && n.BackendDOMNodeID != 0 && !seen[n.BackendDOMNodeID] {
				seen[n.BackendDOMNodeID] = true
				name := ""
				if n.Name != nil && n.Name.Value != nil {
					name = strings.Join(strings.Fields(fmt.Sprint(n.Name.Value)), " ")
				}
				out = append(out, n.Role.Value+" "+strconv.Quote(name))
			}
			if sub, ok := frames[n.BackendDOMNodeID]; ok && n.BackendDOMNodeID != 0 {
				delete(frames, n.BackendDOMNodeID)
				walk(sub)
			}
			for _, id := range n.ChildIDs {
				if k, ok := byID[id]; ok {
					visit(k)
				}
			}
		}
		for _, n := range nodes {
			if _, ok := byID[n.ParentID]; n.ParentID == "" || !ok {
				visit(n)
			}
		}
	}
	walk(main.Nodes)
	return out
}
