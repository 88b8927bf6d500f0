package browser

import "strings"

// The places Find looks, per OS, are in candidates below: a pure function
// of the OS, the environment, the home folder and the working directory,
// so that tests on Linux check the Windows and macOS lists too.
//
// The order everywhere: names on PATH (the person's own setup), then
// Chromium and Chrome for Testing installed where their installers put
// them, then the browsers Playwright and Puppeteer download (their caches,
// and ./chrome/ where `npx @puppeteer/browsers install chrome@stable`
// unpacks, InstallHint's command), then Microsoft Edge, then branded Google
// Chrome, which Find only reports (ErrBrandedChrome). Chromium and Chrome
// for Testing come first because they honour --load-extension.
//
// Microsoft Edge is treated as usable: Chromium ignores --load-extension
// only where its DisableLoadExtensionCommandLineSwitch feature is on, and
// that is on by default only in Google Chrome-branded builds
// (BUILDFLAG(GOOGLE_CHROME_BRANDING) in
// extensions/common/extension_features.cc), which Edge is not. The reports
// of the Chrome 137 change say the same: it leaves Chrome for Testing,
// Chromium and other Chromium browsers alone (seleniumbase/SeleniumBase#3771,
// cypress-io/cypress#31702). Edge still comes after every Chromium build:
// bua is tested on Chromium, and on managed machines an
// ExtensionInstallTypeBlocklist policy of "command_line" makes Edge (or any
// Chromium) refuse the switch too.

// candidates returns where Find looks on goos, in order of preference.
// getenv gives the variables that move those places (PATH,
// PLAYWRIGHT_BROWSERS_PATH, PUPPETEER_CACHE_DIR, XDG_CACHE_HOME,
// LOCALAPPDATA, PROGRAMFILES, PROGRAMFILES(X86), HOMEDRIVE); home and cwd
// are absolute, or "" to leave out what lies under them. Paths use goos's
// separator. Each entry is one of:
//   - a bare name, looked up on PATH ("chromium", "chrome.exe");
//   - a path to an executable;
//   - a path with one element ending in "*" ("chromium-*"): one folder per
//     version, the "*" standing for the version (1200, 131.0.6778.85), and
//     the newest present is preferred.
func candidates(goos string, getenv func(string) string, home, cwd string) []string {
	return search{goos: goos, sep: separator(goos), getenv: getenv, home: home, cwd: cwd}.candidates()
}

func (s search) candidates() []string {
	var c []string
	switch s.goos {
	case "windows":
		c = append(c, "chromium.exe", "chrome.exe")
		c = append(c, s.programs("Chromium", "Application", "chrome.exe")...)
		c = append(c, s.downloaded()...)
		c = append(c, "msedge.exe")
		c = append(c, s.programs("Microsoft", "Edge", "Application", "msedge.exe")...)
		c = append(c, s.programs("Google", "Chrome", "Application", "chrome.exe")...)
	case "darwin":
		c = append(c, unixPathNames...)
		for _, dir := range s.macAppDirs() {
			c = append(c, s.join(dir, cftApp), s.join(dir, chromiumApp))
		}
		c = append(c, s.downloaded()...)
		for _, dir := range s.macAppDirs() {
			c = append(c, s.join(dir, "Microsoft Edge.app", "Contents", "MacOS", "Microsoft Edge"))
		}
		c = append(c, brandedPathNames...)
		for _, dir := range s.macAppDirs() {
			c = append(c, s.join(dir, "Google Chrome.app", "Contents", "MacOS", "Google Chrome"))
		}
	default: // Linux, and the BSDs, whose packages put chromium (or chrome) on PATH
		c = append(c, unixPathNames...)
		c = append(c, s.downloaded()...)
		c = append(c, "microsoft-edge-stable", "microsoft-edge", s.root+"/opt/microsoft/msedge/msedge")
		c = append(c, brandedPathNames...)
		c = append(c, s.root+"/opt/google/chrome/chrome")
	}
	return c
}

// unixPathNames are the Chromium and Chrome for Testing names tried on
// PATH on Linux and macOS: distribution packages (chromium,
// chromium-browser), Homebrew's chromium, and "chrome", which Chrome for
// Testing unpacks as, for a person who put it on PATH.
var unixPathNames = []string{"chromium", "chromium-browser", "google-chrome-for-testing", "chrome"}

// brandedPathNames are Google Chrome's package names on PATH, tried last:
// Find only reports them.
var brandedPathNames = []string{"google-chrome", "google-chrome-stable"}

// cftApp and chromiumApp are the executables inside the macOS bundles.
const (
	cftApp      = "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
	chromiumApp = "Chromium.app/Contents/MacOS/Chromium"
)

// downloaded lists the browsers Playwright and Puppeteer download: Chrome
// for Testing and Chromium builds that keep --load-extension.
func (s search) downloaded() []string {
	var c []string
	c = append(c, s.playwright()...)
	if dir := s.puppeteerCache(); dir != "" {
		c = append(c, s.puppeteer(dir, true)...)
	}
	if s.cwd != "" {
		c = append(c, s.puppeteer(s.cwd, false)...)
	}
	return c
}

// playwright lists Playwright's Chromium in its cache
// (registryDirectory in packages/playwright-core/src/server/registry/
// index.ts): $PLAYWRIGHT_BROWSERS_PATH, else ms-playwright in the OS's cache
// folder, holding chromium-<revision>/ with Chrome for Testing's layout
// since revision 1200 (chrome-linux64, chrome-mac-arm64, chrome-win64) and
// Chromium's before it, and still on Linux arm64 (chrome-linux, chrome-mac,
// chrome-win). Its chromium_headless_shell-<revision>/ is left out: the
// headless shell cannot load extensions.
func (s search) playwright() []string {
	dir := s.getenv("PLAYWRIGHT_BROWSERS_PATH")
	switch {
	case dir == "0":
		return nil // inside the node_modules of whichever project installed them
	case dir != "":
		dir = s.abs(dir)
	case s.goos == "windows":
		if local := s.localAppData(); local != "" {
			dir = s.join(local, "ms-playwright")
		}
	case s.goos == "darwin":
		if s.home != "" {
			dir = s.join(s.home, "Library", "Caches", "ms-playwright")
		}
	default:
		if xdg := s.getenv("XDG_CACHE_HOME"); xdg != "" && s.isAbs(xdg) {
			dir = s.join(xdg, "ms-playwright")
		} else if s.home != "" {
			dir = s.join(s.home, ".cache", "ms-playwright")
		}
	}
	if dir == "" {
		return nil
	}
	var layouts []string
	switch s.goos {
	case "windows":
		layouts = []string{"chrome-win64/chrome.exe", "chrome-win/chrome.exe"}
	case "darwin":
		layouts = []string{"chrome-mac-arm64/" + cftApp, "chrome-mac-x64/" + cftApp, "chrome-mac/" + chromiumApp}
	default:
		layouts = []string{"chrome-linux64/chrome", "chrome-linux/chrome"}
	}
	var c []string
	for _, l := range layouts {
		c = append(c, s.join(dir, "chromium-*", l))
	}
	return c
}

// puppeteerCache is Puppeteer's cache: $PUPPETEER_CACHE_DIR, else
// ~/.cache/puppeteer on every OS (its getConfiguration).
func (s search) puppeteerCache() string {
	if dir := s.getenv("PUPPETEER_CACHE_DIR"); dir != "" {
		return s.abs(dir)
	}
	if s.home == "" {
		return ""
	}
	return s.join(s.home, ".cache", "puppeteer")
}

// puppeteer lists the browsers in a folder laid out as @puppeteer/browsers
// installs (Cache.installationDir and browser-data/chrome.ts,
// chromium.ts): chrome/<platform>-<build>/chrome-<folder>/... for Chrome
// for Testing and, with chromium, chromium/<platform>-<revision>/
// chrome-<archive>/... for Chromium snapshots. Puppeteer's cache and the
// ./chrome/ that `npx @puppeteer/browsers install chrome@stable` leaves in
// the folder it runs in share that layout.
func (s search) puppeteer(root string, chromium bool) []string {
	var chrome, snapshots []string
	switch s.goos {
	case "windows":
		chrome = []string{"win64-*/chrome-win64/chrome.exe", "win32-*/chrome-win32/chrome.exe"}
		snapshots = []string{"win64-*/chrome-win/chrome.exe", "win32-*/chrome-win/chrome.exe"}
	case "darwin":
		chrome = []string{"mac_arm-*/chrome-mac-arm64/" + cftApp, "mac-*/chrome-mac-x64/" + cftApp}
		snapshots = []string{"mac_arm-*/chrome-mac/" + chromiumApp, "mac-*/chrome-mac/" + chromiumApp}
	default:
		// linux_arm builds exist from Chrome 153 (chrome-linux-arm64);
		// older linux_arm folders hold x64 builds, left out.
		chrome = []string{"linux-*/chrome-linux64/chrome", "linux_arm-*/chrome-linux-arm64/chrome"}
		snapshots = []string{"linux-*/chrome-linux/chrome", "linux_arm-*/chrome-linux/chrome"}
	}
	var c []string
	for _, l := range chrome {
		c = append(c, s.join(root, "chrome", l))
	}
	if chromium {
		for _, l := range snapshots {
			c = append(c, s.join(root, "chromium", l))
		}
	}
	return c
}

// programs lists where Windows installers put a browser: under
// %LOCALAPPDATA% (a per-user install), %PROGRAMFILES% and
// %PROGRAMFILES(X86)%, or, with those unset, the Program Files folders of
// %HOMEDRIVE%, as Playwright's _createChromiumChannel looks.
func (s search) programs(elem ...string) []string {
	var dirs []string
	add := func(d string) {
		if d == "" || !s.isAbs(d) {
			return
		}
		for _, have := range dirs {
			if strings.EqualFold(have, d) {
				return
			}
		}
		dirs = append(dirs, d)
	}
	add(s.localAppData())
	add(s.getenv("PROGRAMFILES"))
	add(s.getenv("PROGRAMFILES(X86)"))
	if drive := s.getenv("HOMEDRIVE"); drive != "" {
		add(drive + s.sep + "Program Files")
		add(drive + s.sep + "Program Files (x86)")
	}
	c := make([]string, 0, len(dirs))
	for _, d := range dirs {
		c = append(c, s.join(append([]string{d}, elem...)...))
	}
	return c
}

// localAppData is %LOCALAPPDATA%, else AppData\Local in the home folder,
// as Playwright falls back.
func (s search) localAppData() string {
	if v := s.getenv("LOCALAPPDATA"); v != "" {
		return v
	}
	if s.home == "" {
		return ""
	}
	return s.join(s.home, "AppData", "Local")
}

// macAppDirs are the macOS Applications folders: the machine's, then the
// person's own (~/Applications, where an app dragged in without admin
// rights lands).
func (s search) macAppDirs() []string {
	dirs := []string{s.root + "/Applications"}
	if s.home != "" {
		dirs = append(dirs, s.join(s.home, "Applications"))
	}
	return dirs
}

// join joins path elements with the search's separator; each element may
// itself hold "/"-separated parts (the layouts above), which are converted.
func (s search) join(elem ...string) string {
	parts := make([]string, len(elem))
	for i, e := range elem {
		if i > 0 {
			e = strings.ReplaceAll(e, "/", s.sep)
		}
		parts[i] = e
	}
	return join(s.sep, parts...)
}

// abs makes a path from the environment absolute against the working
// directory, as Playwright and Puppeteer resolve theirs: "" when it is
// relative and the working directory unknown.
func (s search) abs(p string) string {
	if s.isAbs(p) {
		return p
	}
	if s.cwd == "" {
		return ""
	}
	return s.join(s.cwd, strings.TrimPrefix(strings.TrimPrefix(p, "."+s.sep), "./"))
}

func (s search) isAbs(p string) bool { return isAbs(s.goos, p) }

// separator is goos's path separator.
func separator(goos string) string {
	if goos == "windows" {
		return `\`
	}
	return "/"
}

// join joins path elements with sep, dropping the separators an element
// ends with (a home of "/" or a drive of "C:\"). It is not filepath.Join
// because tests build Windows paths on Linux, where filepath knows only
// "/"; Windows takes "/" too, so it is trimmed there as well.
func join(sep string, elem ...string) string {
	out := make([]string, len(elem))
	for i, e := range elem {
		if i < len(elem)-1 {
			e = strings.TrimRight(e, sep+"/")
		}
		out[i] = e
	}
	return strings.Join(out, sep)
}

// isAbs says whether p stands on its own, whatever the working directory:
// rooted at "/" outside Windows; on Windows with a drive (C:\), or as a UNC
// (\\server\share) or rooted (\x) path, which depend on the working
// directory's drive at most.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		c := p[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/")
}

// splitList splits a $PATH value as goos does: on ":", or on Windows on ";"
// outside double quotes, which are dropped (as filepath.SplitList does
// there).
func splitList(goos, v string) []string {
	if goos != "windows" {
		return strings.Split(v, ":")
	}
	var list []string
	var b strings.Builder
	quoted := false
	for _, r := range v {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ';' && !quoted:
			list = append(list, b.String())
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	return append(list, b.String())
}
