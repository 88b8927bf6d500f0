package userflow

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bua-dev/bua/pkg/protocol"
)

// modifierKey is the press_key modifier a Recorder key holds down
// (Control, Shift, Alt, Meta), or "".
func modifierKey(k string) string {
	for _, m := range protocol.KeyModifiers {
		if k == m || k == m+"Left" || k == m+"Right" {
			return m
		}
	}
	return ""
}

// keyAliases are Recorder keys (Puppeteer's KeyInput names) that press_key
// knows by another name: the key a person's keyboard types.
var keyAliases = map[string]string{
	"\r": "Enter", "\n": "Enter", "NumpadEnter": "Enter", " ": "Space",
	"NumpadMultiply": "*", "NumpadAdd": "+", "NumpadSubtract": "-", "NumpadDivide": "/",
	"NumpadDecimal": ".", "NumpadEqual": "=", "Semicolon": ";", "Equal": "=", "Comma": ",",
	"Minus": "-", "Period": ".", "Slash": "/", "Backquote": "`", "BracketLeft": "[",
	"Backslash": `\`, "BracketRight": "]", "Quote": "'",
}

// pressKey is the press_key key for a Recorder key, or "" when press_key
// has none: a named key (Enter, Tab, Escape, arrows, F1-F12, ...), one
// character, or a key code that types one (KeyA, Digit1, Numpad1).
func pressKey(k string) string {
	if a, ok := keyAliases[k]; ok {
		return a
	}
	if slices.Contains(protocol.NamedKeys, k) {
		return k
	}
	if r, n := utf8.DecodeRuneInString(k); n == len(k) && n > 0 && !unicode.IsSpace(r) && !unicode.IsControl(r) {
		return k
	}
	for _, prefix := range []string{"Key", "Digit", "Numpad"} {
		if c, ok := strings.CutPrefix(k, prefix); ok && len(c) == 1 && (c[0] >= 'A' && c[0] <= 'Z' || c[0] >= '0' && c[0] <= '9') {
			return strings.ToLower(c)
		}
	}
	return ""
}
