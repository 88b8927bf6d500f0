package browser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBin makes an executable file named name in dir.
func fakeBin(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFind(t *testing.T) {
	t.Run("BUA_CHROME wins", func(t *testing.T) {
		dir := t.TempDir()
		want := fakeBin(t, dir, "my-chrome")
		fakeBin(t, dir, "chromium")
		got, err := Find(env(map[string]string{"BUA_CHROME": want, "PATH": dir}))
		if err != nil || got != want {
			t.Fatalf("Find = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("BUA_CHROME missing is an error", func(t *testing.T) {
		_, err := Find(env(map[string]string{"BUA_CHROME": "/nonexistent/chrome", "PATH": t.TempDir()}))
		if err == nil || !strings.Contains(err.Error(), "BUA_CHROME") {
			t.Fatalf("err = %v, want one naming BUA_CHROME", err)
		}
	})
	t.Run("Chromium before branded Chrome", func(t *testing.T) {
		dir := t.TempDir()
		fakeBin(t, dir, "google-chrome")
		want := fakeBin(t, dir, "chromium-browser")
		got, err := Find(env(map[string]string{"PATH": dir}))
		if err != nil || got != want {
			t.Fatalf("Find = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("Chrome for Testing is accepted", func(t *testing.T) {
		dir := t.TempDir()
		want := fakeBin(t, dir, "google-chrome-for-testing")
		got, err := Find(env(map[string]string{"PATH": dir}))
		if err != nil || got != want {
			t.Fatalf("Find = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("only branded Chrome", func(t *testing.T) {
		dir := t.TempDir()
		p := fakeBin(t, dir, "google-chrome-stable")
		got, err := Find(env(map[string]string{"PATH": dir}))
		if !errors.Is(err, ErrBrandedChrome) || got != p {
			t.Fatalf("Find = %q, %v; want %q with ErrBrandedChrome", got, err, p)
		}
		if !strings.Contains(err.Error(), "Chromium") {
			t.Errorf("error %q does not say what to install", err)
		}
	})
	t.Run("nothing installed", func(t *testing.T) {
		if _, err := os.Stat(macApps[0]); err == nil {
			t.Fatalf("this machine has %s: the PATH-only case cannot be isolated here", macApps[0])
		}
		_, err := Find(env(map[string]string{"PATH": t.TempDir()}))
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "apt-get install -y chromium") || !strings.Contains(err.Error(), "BUA_CHROME") {
			t.Fatalf("err = %v, want ErrNotFound with the install hint", err)
		}
	})
}

func TestIsBrandedChrome(t *testing.T) {
	for p, want := range map[string]bool{
		"/opt/google/chrome/chrome":                          true,
		"/usr/bin/google-chrome-stable":                      true,
		"/Applications/Google Chrome.app/Contents/MacOS/x":   true,
		"/usr/bin/chromium":                                  false,
		"/home/u/chrome/linux-1/chrome-linux64/chrome":       false,
		"/Applications/Google Chrome for Testing.app/x/y":    false,
		"/Applications/Chromium.app/Contents/MacOS/Chromium": false,
	} {
		if got := isBrandedChrome(p); got != want {
			t.Errorf("isBrandedChrome(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestArgs(t *testing.T) {
	a := strings.Join(Args(Options{ProfileDir: "/p", ExtensionDir: "/e", Headless: true, ExtraArgs: []string{"--x"}}), " ")
	for _, want := range []string{
		"--user-data-dir=/p", "--load-extension=/e", "--disable-extensions-except=/e", "--headless",
		"--disable-gpu", "--silent-debugger-extension-api", "--no-first-run", "--password-store=basic",
		"--disable-features=Translate,MediaRouter", "--no-startup-window", "--keep-alive-for-test",
		"--screen-info={1920x1080}",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("args %q lack %q", a, want)
		}
	}
	// Headless starts with no window at all (its first is the extension's
	// BUA window); a headful browser opens one a person can see.
	if strings.Contains(a, "about:blank") {
		t.Errorf("headless args %q open a startup tab", a)
	}
	h := strings.Join(Args(Options{ProfileDir: "/p"}), " ")
	if strings.Contains(h, "--headless") || strings.Contains(h, "--load-extension") || strings.Contains(h, "--silent-debugger") {
		t.Errorf("headful, extension-less args %q carry headless, extension or silent-debugger flags", h)
	}
	// A headful managed browser shows no debugging bar either: it would
	// take the top of the 1280×720 page the extension sizes for.
	if hm := strings.Join(Args(Options{ProfileDir: "/p", ExtensionDir: "/e"}), " "); !strings.Contains(hm, "--silent-debugger-extension-api") {
		t.Errorf("headful managed args %q show the debugging bar", hm)
	}
	if !strings.HasSuffix(h, " about:blank") || strings.Contains(h, "--no-startup-window") || strings.Contains(h, "--keep-alive-for-test") {
		t.Errorf("headful args %q: want a startup tab (about:blank, last) and no window-less flags", h)
	}
	// A headful browser's screen is the display's.
	if strings.Contains(h, "--screen-info") {
		t.Errorf("headful args %q set a screen", h)
	}
	// No DevTools endpoint of any kind: an open port has no
	// authentication, and bua drives the browser through the extension.
	if strings.Contains(a, "--remote-debugging") {
		t.Errorf("args %q open a DevTools endpoint", a)
	}
	// The sandbox is off for root only (Chromium refuses root with it on).
	if got, want := strings.Contains(a, "--no-sandbox"), os.Geteuid() == 0; got != want || SandboxOff() != want {
		t.Errorf("--no-sandbox in args: %v, SandboxOff %v; want %v for euid %d", got, SandboxOff(), want, os.Geteuid())
	}
}
