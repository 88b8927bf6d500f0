package userflow

import "testing"

func TestPressKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Enter", "Enter"}, {"\r", "Enter"}, {"\n", "Enter"}, {"NumpadEnter", "Enter"},
		{"Tab", "Tab"}, {"Escape", "Escape"}, {"ArrowDown", "ArrowDown"}, {"F12", "F12"},
		{" ", "Space"}, {"a", "a"}, {"E", "E"}, {"1", "1"}, {"é", "é"}, {"+", "+"},
		{"KeyA", "a"}, {"Digit7", "7"}, {"Numpad3", "3"}, {"NumpadAdd", "+"}, {"Slash", "/"},
		{"F13", ""}, {"CapsLock", ""}, {"MediaPlayPause", ""}, {"Shift", ""}, {"\u0000", ""},
	}
	for _, tt := range tests {
		if got := pressKey(tt.in); got != tt.want {
			t.Errorf("pressKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestModifierKey(t *testing.T) {
	for in, want := range map[string]string{"Shift": "Shift", "ShiftLeft": "Shift", "ControlRight": "Control", "Meta": "Meta", "AltLeft": "Alt", "AltGraph": "", "a": ""} {
		if got := modifierKey(in); got != want {
			t.Errorf("modifierKey(%q) = %q, want %q", in, got, want)
		}
	}
}
