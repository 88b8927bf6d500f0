package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

// An input's answer stays small on any page: at most this many elements
// that appeared, in about this many characters: under 1,500 characters on
// a 1,000-element page, never a snapshot (docs/decisions/agent-answers.md).
const (
	changedElements = 20
	changedChars    = 900
)

// answered is a successful call's result, and the page after an input
// (the changes read), when one was read.
type answered struct {
	result *mcp.CallToolResult
	after  *protocol.ExtractResult
}

// changers are the actions whose answer says what changed: input and
// navigation. Reads answer with what they read.
var changers = map[protocol.ActionType]bool{
	protocol.ActionNavigate: true, protocol.ActionReload: true, protocol.ActionGoBack: true, protocol.ActionGoForward: true,
	protocol.ActionClick: true, protocol.ActionType_: true, protocol.ActionHover: true, protocol.ActionPressKey: true,
	protocol.ActionScroll: true, protocol.ActionSelectOption: true, protocol.ActionUpload: true,
	protocol.ActionHandleDialog: true, protocol.ActionOpenTab: true,
}

// answer renders a successful action for the model, with the protocol
// result as structured content.
func (s *Server) answer(ctx context.Context, c *call, res json.RawMessage) answered {
	a := c.action
	structured := structuredOf(a.Type, res)
	text := func(t string) answered { return textAnswer(t, structured) }
	switch a.Type {
	case protocol.ActionExtract:
		var r protocol.ExtractResult
		if err := json.Unmarshal(res, &r); err != nil {
			return text("extract: the answer does not decode: " + err.Error())
		}
		var b strings.Builder
		fmt.Fprintf(&b, "extract%s:\n", tabNote(r.TabID))
		if a.Changes && r.Changes != nil {
			b.WriteString(s.fence.Wrap(where(r) + orNothing(render.Changes(r.Changes, changedElements, changedChars))))
			return text(b.String())
		}
		render.Extract(&b, r, render.ExtractOptions{Terms: render.Agent, Fence: s.fence, Where: true})
		return text(strings.TrimRight(b.String(), "\n"))
	case protocol.ActionScreenshot:
		return screenshotAnswer(res, structured)
	case protocol.ActionEvaluate:
		var r protocol.EvaluateResult
		_ = json.Unmarshal(res, &r)
		return text(fmt.Sprintf("evaluate%s: %s\n%s", tabNote(r.TabID), r.Type, s.fence.Wrap(render.Eval(r))))
	case protocol.ActionGetTabs:
		return s.tabsAnswer(res)
	case protocol.ActionGetTrace:
		var r protocol.TraceResult
		_ = json.Unmarshal(res, &r)
		var lines []string
		for _, ev := range r.Events {
			lines = append(lines, render.TraceLine(ev))
		}
		head := fmt.Sprintf("trace%s: %d events; next time pass sinceSeq: %d", tabNote(r.TabID), len(r.Events), r.NextSeq)
		if r.Dropped > 0 {
			head += fmt.Sprintf(" (%d older events were dropped)", r.Dropped)
		}
		return text(head + "\n" + s.fence.Wrap(strings.Join(lines, "\n")))
	case protocol.ActionDescribe:
		var r protocol.DescribeResult
		_ = json.Unmarshal(res, &r)
		return text(fmt.Sprintf("describe %s%s:\n%s", targetText(a), tabNote(r.TabID), s.fence.Wrap(render.Describe(r))))
	case protocol.ActionWaitFor:
		var r protocol.OKResult
		_ = json.Unmarshal(res, &r)
		return text(render.OK("ok: "+verbText(a), r, ""))
	case protocol.ActionCloseTab:
		return text(fmt.Sprintf("closed tab %d", *a.TabID))
	}
	if changers[a.Type] {
		return s.changed(ctx, a, res, structured)
	}
	return text(fmt.Sprintf("ok: %s\n%s", a.Type, s.fence.Wrap(string(res))))
}

// textAnswer is an answer of one text, with the protocol result as
// structured content.
func textAnswer(t string, structured map[string]any) answered {
	return answered{result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}, StructuredContent: structured}}
}

// screenshotAnswer is a screenshot's answer: a line with its size, and
// the JPEG as an image.
func screenshotAnswer(res json.RawMessage, structured map[string]any) answered {
	var r protocol.ScreenshotResult
	_ = json.Unmarshal(res, &r)
	_, b64, ok := strings.Cut(r.DataURL, ";base64,")
	img, err := base64.StdEncoding.DecodeString(b64)
	if !ok || err != nil {
		return textAnswer("screenshot: the answer is not a base64 JPEG data URL", structured)
	}
	return answered{result: &mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: fmt.Sprintf("screenshot%s: JPEG, %d KB", tabNote(r.TabID), (len(img)+1023)/1024)},
			&mcp.ImageContent{Data: img, MIMEType: "image/jpeg"},
		},
		StructuredContent: structured,
	}}
}

// tabsAnswer is get_tabs' answer: a line for each tab, but those outside
// what this agent may see (the blocklist's), with the kept tabs as
// structured content.
func (s *Server) tabsAnswer(res json.RawMessage) answered {
	var tabs []protocol.TabInfo
	_ = json.Unmarshal(res, &tabs)
	var lines []string
	kept := tabs[:0]
	for _, t := range tabs {
		if s.outside(t.URL) != "" {
			continue // as the blocklist's tabs are: not this agent's to see
		}
		kept = append(kept, t)
		lines = append(lines, render.Tab(t))
	}
	if len(lines) == 0 {
		none := "no tabs: navigate to a URL to open one"
		if s.o.ReadOnly { // it may not navigate
			none = "no tabs this agent may read: ask the person to open the page you need"
		}
		return answered{result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: none}}, StructuredContent: map[string]any{"tabs": kept}}}
	}
	return answered{result: &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d tabs (tab id, domain, title, URL):\n%s", len(kept), s.fence.Wrap(strings.Join(lines, "\n")))}},
		StructuredContent: map[string]any{"tabs": kept},
	}}
}

// changed answers an input or navigation action with one line, then what
// changed: the URL and title, the elements that appeared or went away
// (extract with changes: true, when the extension reads them), a tab the
// action opened, a download. Never a snapshot.
func (s *Server) changed(ctx context.Context, a protocol.Action, res json.RawMessage, structured map[string]any) answered {
	var r struct {
		protocol.OKResult
		Values   []string `json:"values"`     // select_option
		Dialog   string   `json:"dialogType"` // handle_dialog
		Accepted bool     `json:"accepted"`
	}
	_ = json.Unmarshal(res, &r)
	if a.Type == protocol.ActionOpenTab {
		var o protocol.OpenTabResult
		_ = json.Unmarshal(res, &o)
		r.TabID = &o.TabID
	}
	var b strings.Builder
	which := map[protocol.ActionType]string{protocol.ActionGoBack: "earlier", protocol.ActionGoForward: "later"}[a.Type]
	b.WriteString(render.OK("ok: "+verbText(a), r.OKResult, which))
	var page strings.Builder
	switch {
	case a.Type == protocol.ActionSelectOption:
		fmt.Fprintf(&page, "selected: %s\n", strings.Join(quoteAll(r.Values), ", "))
	case a.Type == protocol.ActionHandleDialog && r.Dialog != "":
		how := "dismissed"
		if r.Accepted {
			how = "accepted"
		}
		b.WriteString(fmt.Sprintf("; %s the %s", how, r.Dialog))
	}
	var after *protocol.ExtractResult
	if r.TabID != nil {
		after = s.readChanges(ctx, *r.TabID)
	}
	if after != nil {
		page.WriteString(where(*after))
		if after.Changes != nil {
			page.WriteString(render.Changes(after.Changes, changedElements, changedChars))
		}
		structured["after"] = map[string]any{"url": after.URL, "title": after.Title, "changes": after.Changes}
	}
	if p := strings.TrimSpace(page.String()); p != "" {
		b.WriteString("\n" + s.fence.Wrap(p))
	}
	if r.NewTabID != nil {
		b.WriteString("\n" + render.NewTab(*r.NewTabID, render.Agent))
	}
	if d := r.Download; d != nil {
		fmt.Fprintf(&b, "\ndownloaded %s (%d bytes) to %s", d.Filename, d.Size, d.Path)
	}
	if after != nil {
		if why := s.outside(after.URL); why != "" {
			fmt.Fprintf(&b, "\nnote: the tab is now outside this agent's bounds (%s): further actions there will be refused", why)
		}
	}
	return answered{result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: structured}, after: after}
}

// readChanges reads what changed on tab since its last read (extract with
// changes: true, feature extract_changes). An extension without the
// feature (the daemon refuses the param, or it answers a full extract)
// gets get_tabs instead, for the URL and title alone, and is not asked
// again. nil when neither answers.
func (s *Server) readChanges(ctx context.Context, tab int) *protocol.ExtractResult {
	if !s.noChanges.Load() {
		ex := protocol.Extract("").OnTab(tab)
		ex.Changes = true
		res, err := s.o.Requester.Request(ctx, ex)
		var r protocol.ExtractResult
		switch {
		case err == nil && json.Unmarshal(res, &r) == nil && r.Changes != nil:
			return &r
		case err == nil || err.Reason == protocol.ReasonRefused:
			s.noChanges.Store(true)
			s.o.Log.Info("the extension does not read changes (extract_changes): input answers name no elements")
		}
	}
	t, ok := s.tabInfo(ctx, &tab)
	if !ok {
		return nil
	}
	return &protocol.ExtractResult{URL: t.URL, Title: t.Title}
}

// dialogOpened answers an action that opened a JavaScript dialog: it ran,
// up to the dialog, which now blocks the page until handle_dialog answers
// it (error reason dialog_opened).
func (s *Server) dialogOpened(c *call, e *protocol.Error) *mcp.CallToolResult {
	text := fmt.Sprintf("ok: %s, and it opened a dialog, which blocks the page: %s\nnext: answer it with handle_dialog (accept: true or false; promptText for a prompt)", verbText(c.action), s.fence.Inline(e.Message))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"dialog": map[string]any{"code": e.Code, "reason": e.Reason, "message": e.Message}},
	}
}

// structuredOf is the protocol result as structured content: an object
// (get_tabs' list under tabs), without extract's raw text (the markdown
// says the same in a fraction of it, as `bua extract --json` leaves it
// out) nor screenshot's data URL (the image content carries it).
func structuredOf(t protocol.ActionType, res json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		var v any
		_ = json.Unmarshal(res, &v)
		return map[string]any{"result": v}
	}
	switch t {
	case protocol.ActionExtract:
		delete(m, "text")
	case protocol.ActionScreenshot:
		delete(m, "dataUrl")
	}
	return m
}

// verbText is an action as its answer's first line names it: click e3,
// type into #email, navigate to URL.
func verbText(a protocol.Action) string {
	switch a.Type {
	case protocol.ActionNavigate, protocol.ActionOpenTab:
		return fmt.Sprintf("%s %s", a.Type, render.Cut(a.URL, 200))
	case protocol.ActionPressKey:
		return "press_key " + a.Key
	case protocol.ActionScroll:
		return "scroll " + a.Direction
	case protocol.ActionHandleDialog:
		return "handle_dialog"
	}
	if t := targetText(a); t != "" {
		return string(a.Type) + " " + t
	}
	return string(a.Type)
}

// targetText is a's target: a uid, a selector, or a role and name.
func targetText(a protocol.Action) string {
	switch {
	case a.UID != "":
		return a.UID
	case a.Selector != "":
		return fmt.Sprintf("%q", a.Selector)
	case a.Role != "" && a.Name != "":
		return fmt.Sprintf("%s %q", a.Role, a.Name)
	}
	return a.Role
}

func tabNote(tab *int) string {
	if tab == nil {
		return ""
	}
	return fmt.Sprintf(" (tab %d)", *tab)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// where is the page's URL and title, on a line of their own: page
// content, inside the fence.
func where(r protocol.ExtractResult) string {
	return render.Where(r) + "\n"
}

func orNothing(s string) string {
	if s == "" {
		return "nothing changed since the last read"
	}
	return s
}
