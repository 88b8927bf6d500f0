package protocol

import "github.com/bua-dev/bua/pkg/obstacle"

// Result types, one per result shape of protocol v4 §Action Schema. Every
// result that acted on a tab carries its TabID (a pure addition to v4).

// OKResult answers navigate, reload, click, type, hover, press_key,
// scroll, wait_for, go_back, go_forward and close_tab. Scrolled is set by
// scroll only (the schema's result.scroll, a pure addition): false when
// the page's scroll position did not change. Moved and URL are go_back's
// and go_forward's (result.history, a pure addition): Moved is false when
// the tab's history had no entry in that direction, as Playwright's goBack
// returns null; URL is the entry it moved to.
type OKResult struct {
	OK       bool   `json:"ok"`
	Scrolled *bool  `json:"scrolled,omitempty"`
	Moved    *bool  `json:"moved,omitempty"`
	URL      string `json:"url,omitempty"`
	TabID    *int   `json:"tabId,omitempty"`
	// Download is set by click and press_key sent with download: true
	// (the schema's result.download, a pure addition to v4).
	Download *Download `json:"download,omitempty"`
}

// Download is a finished download, per the schema's result.download: the
// extension reports Path, Filename, Size, MIME and URL from
// chrome.downloads; the daemon, which shares the machine with the
// browser, reads the file and adds SHA256 (hex), left empty when it could
// not read it.
type Download struct {
	Path     string `json:"path"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256,omitempty"`
	MIME     string `json:"mime,omitempty"`
	URL      string `json:"url,omitempty"`
}

// SelectOptionResult is select_option's result (the schema's
// result.select_option): the values of the options selected afterwards,
// in document order.
type SelectOptionResult struct {
	Values []string `json:"values"`
	TabID  *int     `json:"tabId,omitempty"`
}

// HandleDialogResult is handle_dialog's (result.handle_dialog, a pure
// addition to v4): the dialog it answered, and how.
type HandleDialogResult struct {
	OK         bool   `json:"ok"`
	DialogType string `json:"dialogType"` // alert, confirm, prompt or beforeunload
	Message    string `json:"message,omitempty"`
	Accepted   bool   `json:"accepted"`
	TabID      *int   `json:"tabId,omitempty"`
}

// ScreenshotResult holds a base64 JPEG (q=80) as a data URL.
type ScreenshotResult struct {
	DataURL string `json:"dataUrl"`
	TabID   *int   `json:"tabId,omitempty"`
}

// Element is one interactive element from extract, per protocol v4
// §Element addressing: {uid, role, name?, value?, visible?}, uids e0, e1,
// ... in document order, plus the optional states checked, selected,
// expanded, disabled and an option's parent uid (pure additions, the
// schema's result.element). The classifier owns the type.
type Element = obstacle.Element

// CheckState is an element's checked state: Checked, Unchecked or Mixed,
// written true, false or "mixed".
type CheckState = obstacle.CheckState

// The check states, per the schema's result.element.checked.
const (
	Checked   = obstacle.Checked
	Unchecked = obstacle.Unchecked
	Mixed     = obstacle.Mixed
)

// Obstacle is extract's page-level verdict, per protocol v4 §Obstacle
// detection: {type, confidence, message}. High is terminal for the caller;
// low is advisory.
type Obstacle = obstacle.Obstacle

// ExtractResult is extract's result: text (<= 50 KB), markdown (<= 30 KB,
// nav/footer/aside/fixed overlays stripped), at most maxElements elements
// (default 200) and the
// obstacle verdict. URL, Title and CaptchaFrame are pure additions so a
// saved extract can be classified again.
type ExtractResult struct {
	Text         string    `json:"text"`
	Markdown     string    `json:"markdown"`
	Elements     []Element `json:"elements"`
	Obstacle     *Obstacle `json:"obstacle,omitempty"`
	URL          string    `json:"url,omitempty"`
	Title        string    `json:"title,omitempty"`
	CaptchaFrame bool      `json:"captchaFrame,omitempty"`
	TabID        *int      `json:"tabId,omitempty"`
	// ElementsTotal is how many interactive elements the page (or the
	// selector's subtree) has before the cut to maxElements; more than
	// len(Elements) means the list was cut. Empty is true when the page
	// showed no text and no visible element even after extract's wait for
	// content. Both are pure additions to v4.
	ElementsTotal int  `json:"elementsTotal,omitempty"`
	Empty         bool `json:"empty,omitempty"`
	// Budget is set by an extract with maxChars when something was left
	// out (the schema's result.cut, a pure addition to v4).
	Budget *BudgetCut `json:"cut,omitempty"`
}

// BudgetCut is what an extract's maxChars left out (the schema's
// result.extract cut): Markdown holds part Part of Parts, and ShownChars
// of TotalChars characters were shown (this part's markdown and the
// element lines listed, against all the markdown and every element line).
type BudgetCut struct {
	Part       int `json:"part"`
	Parts      int `json:"parts"`
	ShownChars int `json:"shownChars"`
	TotalChars int `json:"totalChars"`
}

// ChangesResult is extract's with changes: true (the schema's
// result.changes, a pure addition to v4): the elements added since the
// tab's last read, with uids that continue its numbering, and the uids
// of the elements gone. Elements still there keep their uids.
type ChangesResult struct {
	URL     string  `json:"url,omitempty"`
	Title   string  `json:"title,omitempty"`
	Changes Changes `json:"changes"`
	TabID   *int    `json:"tabId,omitempty"`
}

// Changes lists the elements Added and the uids Removed since a read.
type Changes struct {
	Added   []Element `json:"added"`
	Removed []string  `json:"removed"`
}

// DescribeResult is describe's (the schema's result.describe, a pure
// addition to v4): the element's tag, input type, autocomplete and label,
// the frame it is in (a target's frame; empty in the main frame), and its
// locators, best first.
type DescribeResult struct {
	Tag          string    `json:"tag"`
	InputType    string    `json:"inputType,omitempty"`
	Autocomplete string    `json:"autocomplete,omitempty"`
	Label        string    `json:"label,omitempty"`
	Frame        string    `json:"frame,omitempty"`
	Locators     []Locator `json:"locators"`
	TabID        *int      `json:"tabId,omitempty"`
}

// Locator is one way to find an element again: By is role (Role, Name),
// label (Label), testid, id or css (Selector), or text (Text). Count is
// how many elements it matches in the element's frame now; when over 1,
// Nth is the element's place among them (0-based, document order).
type Locator struct {
	By       string `json:"by"`
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Label    string `json:"label,omitempty"`
	Selector string `json:"selector,omitempty"`
	Text     string `json:"text,omitempty"`
	Count    int    `json:"count"`
	Nth      *int   `json:"nth,omitempty"`
}

// Cut reports whether the element list holds fewer elements than the page has.
func (r ExtractResult) Cut() bool { return r.ElementsTotal > len(r.Elements) }

// EvaluateResult is one of three shapes, per protocol v4 §evaluate
// semantics: {type, value} for a JSON-serialisable value; {type,
// description} for a DOM node, function or Map; {type, truncated, preview}
// when the serialised value exceeded 8 KB.
type EvaluateResult struct {
	Type        string `json:"type"`
	Value       any    `json:"value,omitempty"`
	Description string `json:"description,omitempty"`
	Truncated   bool   `json:"truncated,omitempty"`
	Preview     string `json:"preview,omitempty"`
	TabID       *int   `json:"tabId,omitempty"`
}

// TabInfo is one entry of get_tabs' result array.
type TabInfo struct {
	TabID    int    `json:"tabId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Domain   string `json:"domain"`
	WindowID int    `json:"windowId,omitempty"` // a pure addition: which window holds it
}

// OpenTabResult is open_tab's result.
type OpenTabResult struct {
	TabID    int    `json:"tabId"`
	WindowID int    `json:"windowId"`
	Domain   string `json:"domain"`
}
