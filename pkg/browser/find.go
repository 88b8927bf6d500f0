package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ErrNotFound means no usable Chromium-family browser was found; its message
// (through Find's wrapping) says what to install.
var ErrNotFound = errors.New("no Chromium browser found")

// ErrBrandedChrome means the only browser found is branded Google Chrome,
// which since version 137 ignores --load-extension, so a managed browser
// would start without bua's extension and never connect.
var ErrBrandedChrome = errors.New("branded Google Chrome ignores --load-extension")

// InstallHint is what to do when no browser is found. The npx command
// unpacks Chrome for Testing into ./chrome/ of the folder it runs in, one
// of the places Find looks (see candidates).
const InstallHint = "install Chromium (Debian/Ubuntu: apt-get install -y chromium; macOS: brew install --cask chromium) " +
	"or Chrome for Testing (npx @puppeteer/browsers install chrome@stable), or set BUA_CHROME to its executable"

// Find returns the browser executable to launch. getenv is os.Getenv in
// production, injected for tests; it gives the home folder too ($HOME,
// %USERPROFILE% on Windows), so a test's getenv decides every place Find
// looks but the working directory's ./chrome/.
//
// $BUA_CHROME, when set, is used as given (a name on PATH or a path) and is
// an error if it does not exist; it is trusted even if branded, since the
// person chose it. Otherwise Find tries candidates(runtime.GOOS, ...) in
// order, PATH first, then the usual install folders and the Playwright and
// Puppeteer caches (newest version first); a branded Google Chrome found
// there is skipped in favour of anything else, and returned with
// ErrBrandedChrome when it is all there is.
func Find(getenv func(string) string) (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "" // no ./chrome/ to look in, rather than no browser at all
	}
	return newSearch(runtime.GOOS, getenv, cwd).find()
}

// search is one run of Find with everything it depends on explicit, so that
// tests can run another OS's search on this one over fake files.
type search struct {
	goos string
	// sep joins paths: goos's separator, or, in a test that lays another
	// OS's folders out on this machine, this machine's.
	sep       string
	getenv    func(string) string
	home, cwd string // "" when unknown: what lies under it is skipped
	// root is put before the fixed system paths (/Applications,
	// /opt/google/chrome): "" but in tests, which must not see the
	// machine's own browsers.
	root string
}

func newSearch(goos string, getenv func(string) string, cwd string) search {
	return search{goos: goos, sep: separator(goos), getenv: getenv, home: homeDir(goos, getenv), cwd: cwd}
}

// homeDir is where os.UserHomeDir looks, read through getenv.
func homeDir(goos string, getenv func(string) string) string {
	if goos == "windows" {
		return getenv("USERPROFILE")
	}
	return getenv("HOME")
}

func (s search) find() (string, error) {
	if v := strings.TrimSpace(s.getenv("BUA_CHROME")); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", fmt.Errorf("BUA_CHROME=%q: %w", v, err)
		}
		return p, nil
	}
	var branded string
	for _, c := range s.candidates() {
		for _, p := range s.expand(c) {
			if !IsBrandedChrome(p) {
				return p, nil
			}
			if branded == "" {
				branded = p
			}
		}
	}
	if branded != "" {
		return branded, fmt.Errorf("%w: found only %s, which would start without bua's extension; %s", ErrBrandedChrome, branded, InstallHint)
	}
	return "", fmt.Errorf("%w: %s", ErrNotFound, InstallHint)
}

// expand turns one candidate into the executables it stands for that exist:
// a name is looked up on PATH; a path with a version folder (an element
// ending in "*") gives one executable per version present, newest first; any
// other path gives itself.
func (s search) expand(c string) []string {
	if !strings.Contains(c, s.sep) && !strings.Contains(c, "/") {
		if p := s.lookPath(c); p != "" {
			return []string{p}
		}
		return nil
	}
	star := strings.Index(c, "*")
	if star < 0 {
		if isExecutable(s.goos, c) {
			return []string{c}
		}
		return nil
	}
	cut := strings.LastIndex(c[:star], s.sep)
	if cut < 0 {
		return nil
	}
	dir, prefix, rest := c[:cut], c[cut+len(s.sep):star], c[star+1:]
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type found struct {
		name string
		v    []int
	}
	var fs []found
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if v, ok := parseVersion(name); ok {
			fs = append(fs, found{e.Name(), v})
		}
	}
	slices.SortFunc(fs, func(a, b found) int {
		if c := slices.Compare(b.v, a.v); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, f := range fs {
		if p := dir + s.sep + f.name + rest; isExecutable(s.goos, p) {
			out = append(out, p)
		}
	}
	return out
}

// parseVersion reads a cache folder's version as numbers, so that
// Playwright's revision 1200 comes before 999 and Chrome for Testing's
// 131.0.6778.85 before 131.0.6778.9, which comparing strings gets wrong.
func parseVersion(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var v []int
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || len(part) > 9 {
			return nil, false
		}
		n := 0
		for _, r := range part {
			if r < '0' || r > '9' {
				return nil, false
			}
			n = n*10 + int(r-'0')
		}
		v = append(v, n)
	}
	return v, true
}

// lookPath is exec.LookPath over the injected $PATH and OS, so tests can
// point Find at a fake bin folder, and check Windows' rules on Linux. Like
// exec.LookPath since Go 1.19 it never answers from a relative folder: a "."
// in $PATH would run whatever ./chromium the working directory holds. An
// empty $PATH falls back to the process's, on this OS only.
func (s search) lookPath(name string) string {
	v := s.getenv("PATH")
	if v == "" {
		if s.goos != runtime.GOOS {
			return ""
		}
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		return p
	}
	for _, dir := range splitList(s.goos, v) {
		if dir == "" || !isAbs(s.goos, dir) {
			continue
		}
		if p := join(s.sep, dir, name); isExecutable(s.goos, p) {
			return p
		}
	}
	return ""
}

// isExecutable says whether p is a file goos would run. Windows has no
// execute bit (every file has 0o666 or 0o444 to Go), so there a regular
// file is enough: the candidates there all end in .exe. Elsewhere one of
// the execute bits must be set, as exec.LookPath requires.
func isExecutable(goos, p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return goos == "windows" || fi.Mode()&0o111 != 0
}

// IsBrandedChrome reports whether the executable at p is branded Google
// Chrome, which since version 137 ignores --load-extension. It tells
// Google Chrome (stable, beta, dev, canary) apart from Chromium, Chrome for Testing and Edge by where each installs, after
// resolving symlinks (/usr/bin/google-chrome → /opt/google/chrome/...):
// Linux packages under /opt/google/chrome{,-beta,-unstable,-canary}/,
// "Google Chrome[ Beta| Dev| Canary].app" on macOS, and
// Google\Chrome[ Beta| Dev| SxS]\Application\chrome.exe on Windows. Chrome
// for Testing and Chromium unpack elsewhere (chrome-linux64/, "Google
// Chrome for Testing.app", Chromium\Application\), and Edge is msedge. The
// rules match whole path elements, so a user called "chromium" with
// branded Chrome in their AppData is still caught. Windows paths are read
// with either separator, on any OS, so that tests cover them.
func IsBrandedChrome(p string) bool {
	resolved := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		resolved = r
	}
	elems := strings.Split(strings.ToLower(strings.ReplaceAll(resolved, `\`, "/")), "/")
	last := func(i int) string { // the i-th element from the end, 0 the base
		if i < len(elems) {
			return elems[len(elems)-1-i]
		}
		return ""
	}
	if last(0) == "chrome.exe" && last(1) == "application" && last(3) == "google" {
		switch last(2) {
		case "chrome", "chrome beta", "chrome dev", "chrome sxs":
			return true
		}
	}
	for i, e := range elems {
		switch e {
		case "google chrome.app", "google chrome beta.app", "google chrome dev.app", "google chrome canary.app":
			return true
		case "opt":
			if i+2 < len(elems) && elems[i+1] == "google" {
				switch elems[i+2] {
				case "chrome", "chrome-beta", "chrome-unstable", "chrome-canary":
					return true
				}
			}
		}
	}
	orig := strings.Split(strings.ToLower(strings.ReplaceAll(p, `\`, "/")), "/")
	switch orig[len(orig)-1] {
	case "google-chrome", "google-chrome-stable", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary":
		return true // the package's names on PATH, when the link cannot be resolved
	}
	return false
}
