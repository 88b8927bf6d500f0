package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNotFound means no usable Chromium-family browser was found; its message
// (through Find's wrapping) says what to install.
var ErrNotFound = errors.New("no Chromium browser found")

// ErrBrandedChrome means the only browser found is branded Google Chrome,
// which since version 137 ignores --load-extension, so a managed browser
// would start without bua's extension and never connect.
var ErrBrandedChrome = errors.New("branded Google Chrome ignores --load-extension")

// InstallHint is what to do when no browser is found.
const InstallHint = "install Chromium (Debian/Ubuntu: apt-get install -y chromium; macOS: brew install --cask chromium) " +
	"or Chrome for Testing (npx @puppeteer/browsers install chrome@stable), or set BUA_CHROME to its executable"

// pathNames are tried in order on PATH: Chromium and Chrome for Testing
// first because they honour --load-extension.
var pathNames = []string{
	"chromium", "chromium-browser", "google-chrome-for-testing", "chrome",
	"google-chrome", "google-chrome-stable",
}

// macApps are the macOS bundle executables, in the same order of preference.
var macApps = []string{
	"/Applications/Chromium.app/Contents/MacOS/Chromium",
	"/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
}

// Find returns the browser executable to launch. getenv is os.Getenv in
// production, injected for tests.
//
// $BUA_CHROME, when set, is used as given (a name on PATH or a path) and is
// an error if it does not exist; it is trusted even if branded, since the
// person chose it. Otherwise PATH and the macOS app paths are searched; a
// branded Google Chrome found there is skipped in favour of anything else,
// and returned with ErrBrandedChrome when it is all there is.
func Find(getenv func(string) string) (string, error) {
	if v := strings.TrimSpace(getenv("BUA_CHROME")); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", fmt.Errorf("BUA_CHROME=%q: %w", v, err)
		}
		return p, nil
	}
	var branded string
	consider := func(p string) (string, bool) {
		if isBrandedChrome(p) {
			if branded == "" {
				branded = p
			}
			return "", false
		}
		return p, true
	}
	for _, name := range pathNames {
		p, err := lookPathEnv(name, getenv("PATH"))
		if err != nil {
			continue
		}
		if got, ok := consider(p); ok {
			return got, nil
		}
	}
	if runtime.GOOS == "darwin" {
		for _, p := range macApps {
			if isExecutable(p) {
				if got, ok := consider(p); ok {
					return got, nil
				}
			}
		}
	}
	if branded != "" {
		return branded, fmt.Errorf("%w: found only %s; %s", ErrBrandedChrome, branded, InstallHint)
	}
	return "", fmt.Errorf("%w: %s", ErrNotFound, InstallHint)
}

// isBrandedChrome tells Google Chrome (stable, beta, dev) apart from
// Chromium and Chrome for Testing by the resolved executable path, which is
// how each is installed: /opt/google/chrome/chrome, "Google Chrome.app",
// while Chrome for Testing carries "for Testing" / chrome-linux64 paths.
func isBrandedChrome(p string) bool {
	resolved := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		resolved = r
	}
	lower := strings.ToLower(resolved)
	if strings.Contains(lower, "for testing") || strings.Contains(lower, "chrome-linux") ||
		strings.Contains(lower, "chrome-mac") || strings.Contains(lower, "chromium") {
		return false
	}
	base := strings.ToLower(filepath.Base(p))
	return strings.Contains(lower, "/opt/google/chrome") || strings.Contains(lower, "google chrome.app") ||
		base == "google-chrome" || base == "google-chrome-stable" ||
		base == "google-chrome-beta" || base == "google-chrome-unstable"
}

// lookPathEnv is exec.LookPath over an explicit PATH value, so tests can
// point Find at a fake bin directory; an empty value falls back to the
// process's PATH.
func lookPathEnv(name, pathEnv string) (string, error) {
	if pathEnv == "" {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
