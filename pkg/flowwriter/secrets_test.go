package flowwriter

import (
	"strings"
	"testing"
)

func TestSecretName(t *testing.T) {
	for _, tt := range []struct{ label, autocomplete, want string }{
		{"Password", "current-password", "password"},
		{"One-time code", "one-time-code", "one_time_code"},
		{"Password:", "", "password"},
		{"  New   password * ", "new-password", "new_password"},
		{"E-mail PIN (4 digits)", "", "e_mail_pin_4_digits"},
		{"2FA code", "", "secret_2fa_code"},
		{"Contraseña", "current-password", "password"},
		{"Код", "one-time-code", "one_time_code"},
		{"", "", "password"},
		{"***", "section-login one-time-code", "one_time_code"},
		{"Enter the password you chose when you opened the account", "", "enter_the_password_you_chose"},
		{"Supercalifragilisticexpialidociousandthensome", "", "supercalifragilisticexpialidocio"},
	} {
		if got := secretName(tt.label, tt.autocomplete); got != tt.want {
			t.Errorf("secretName(%q, %q) = %q, want %q", tt.label, tt.autocomplete, got, tt.want)
		}
		if got := secretName(tt.label, tt.autocomplete); len(got) > maxSecretName+len("secret_") || !identLike(got) {
			t.Errorf("secretName(%q) = %q is not a short identifier", tt.label, got)
		}
	}
}

func identLike(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func TestSecretSet(t *testing.T) {
	var s secretSet
	taken := func(n string) bool { return n == "base" }
	a := s.add("pw-1", "Password", "", taken)
	b := s.add("pw-2", "Password", "", taken)
	c := s.add("pw-1", "Confirm password", "", taken)
	d := s.add("x-9", "Base", "", taken)
	if a.Var != "password" || a.Env != "BUA_PASSWORD" || a.Field != "Password" {
		t.Errorf("first secret: %+v", a)
	}
	if b.Var != "password_2" || b.Env != "BUA_PASSWORD_2" {
		t.Errorf("a second value under the same label: %+v", b)
	}
	if c != a {
		t.Errorf("the same value again got a var of its own: %+v", c)
	}
	if d.Var != "base_2" {
		t.Errorf("a label that names a var the flow already has: %+v", d)
	}
	for _, text := range []string{"pw-1", "/login?p=pw-1&x"} {
		if !strings.Contains(s.mask(text), "***") || strings.Contains(s.mask(text), "pw-1") {
			t.Errorf("mask(%q) = %q", text, s.mask(text))
		}
	}
	if got := s.mask("a+b c"); got != "a+b c" {
		t.Errorf("mask changed text with no secret: %q", got)
	}
	if sp := s.add("a b&c", "Odd", "", taken); !s.hides("q=a+b%26c") || !s.hides("/a%20b&c") {
		t.Errorf("the URL forms of %q are not hidden", sp.value)
	}
}

func TestPasswordWords(t *testing.T) {
	for sel, want := range map[string]bool{
		"#password": true, "input[name=passwd]": true, "input[type=password]": true, "#pwd": true,
		"#otp": true, "[name=one-time-code]": true, "#passport": false, "#email": false, "#bypass": false,
	} {
		if got := passwordWords().MatchString(sel); got != want {
			t.Errorf("passwordWords(%q) = %v, want %v", sel, got, want)
		}
	}
}
