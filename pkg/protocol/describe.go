package protocol

import "strings"

// The describe action's result (feature describe; the schema's
// result.describe).

// DescribeResult is describe's answer (result.describe): the element's
// tag, input type, autocomplete, label and frame, and its locators best
// first.
type DescribeResult struct {
	Tag          string    `json:"tag"`
	InputType    string    `json:"inputType,omitempty"`
	Autocomplete string    `json:"autocomplete,omitempty"`
	Label        string    `json:"label,omitempty"`
	Frame        string    `json:"frame,omitempty"`
	Locators     []Locator `json:"locators"`
	TabID        *int      `json:"tabId,omitempty"`
}

// Password reports whether the element is a password field: inputType
// password, or autocomplete ending in password or one-time-code
// (result.describe).
func (d DescribeResult) Password() bool {
	ac := d.Autocomplete
	return d.InputType == "password" || strings.HasSuffix(ac, "password") || strings.HasSuffix(ac, "one-time-code")
}

// Locator is one of result.describe's locators: By is role (Role, Name),
// label (Label), testid, id or css (Selector), or text (Text); Count is
// how many elements it matches in the element's frame now (1: unique).
// Nth, set only when Count > 1, is which of those matches the element is,
// 0-based in document order: the role target's nth (a pure addition, so a
// recording can name an element nothing else tells apart).
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
