package browser

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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

// TestFind covers the public Find where the machine's own browsers cannot
// interfere: $BUA_CHROME, and PATH, which comes first.
func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix names with execute bits; TestFindOnEachOS covers Windows")
	}
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
}

// machine is a fake computer in a temp folder, laid out as goos lays its
// browsers out, for Find's search to run over: "/" is root, the home is
// ~/, the working directory ./ (both under root).
type machine struct {
	goos            string
	root, home, cwd string
	env             map[string]string
}

func newMachine(t *testing.T, goos string) *machine {
	root := t.TempDir()
	m := &machine{goos: goos, root: root, cwd: filepath.Join(root, "work"), env: map[string]string{"PATH": filepath.Join(root, "bin")}}
	if goos == "windows" {
		m.home = filepath.Join(root, "Users", "u")
		m.env["USERPROFILE"] = m.home
		m.env["LOCALAPPDATA"] = filepath.Join(m.home, "AppData", "Local")
		m.env["PROGRAMFILES"] = filepath.Join(root, "Program Files")
		m.env["PROGRAMFILES(X86)"] = filepath.Join(root, "Program Files (x86)")
	} else {
		m.home = filepath.Join(root, "home", "u")
		m.env["HOME"] = m.home
	}
	return m
}

// path maps "~/x", "./x" and "/x" to the machine's files.
func (m *machine) path(p string) string {
	switch {
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(m.home, p[2:])
	case strings.HasPrefix(p, "./"):
		return filepath.Join(m.cwd, p[2:])
	case p == "":
		return ""
	}
	return filepath.Join(m.root, p)
}

// put makes a file at p with mode; Windows files get 0o644, as Go sees
// every file there: no execute bit.
func (m *machine) put(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	full := m.path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func (m *machine) find() (string, error) {
	return search{goos: m.goos, sep: string(filepath.Separator), getenv: env(m.env), home: m.home, cwd: m.cwd, root: m.root}.find()
}

const (
	cftLinux = "chrome-linux64/chrome"
	cftMac   = "chrome-mac-arm64/" + macCfT
)

// TestFindOnEachOS lays each OS's browsers out as files and checks which
// Find picks: the order of preference, the newest of several versions,
// the branded-only error, and Windows' executables without execute bits.
func TestFindOnEachOS(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		files      []string          // executables to make ("~/", "./" or "/"-rooted)
		plain      []string          // files without execute bits (on Windows every file is plain)
		env        map[string]string // added to the machine's; "~/", "./" and "/" values are mapped too
		want       string            // the file Find must return
		branded    bool              // and with ErrBrandedChrome
		notFound   bool
	}{
		// Linux
		{name: "linux: chromium on PATH before any cache", goos: "linux",
			files: []string{"/bin/chromium", "~/.cache/ms-playwright/chromium-1200/" + cftLinux}, want: "/bin/chromium"},
		{name: "linux: Playwright's newest revision, compared as numbers (1200 > 999)", goos: "linux",
			files: []string{"~/.cache/ms-playwright/chromium-999/chrome-linux/chrome", "~/.cache/ms-playwright/chromium-1200/" + cftLinux, "~/.cache/ms-playwright/chromium-1180/" + cftLinux},
			want:  "~/.cache/ms-playwright/chromium-1200/" + cftLinux},
		{name: "linux: a Playwright revision still downloading (no executable) is passed over", goos: "linux",
			files: []string{"~/.cache/ms-playwright/chromium-1200/" + cftLinux, "~/.cache/ms-playwright/chromium-1300/INSTALLATION_COMPLETE"},
			plain: []string{"~/.cache/ms-playwright/chromium-1300/" + cftLinux},
			want:  "~/.cache/ms-playwright/chromium-1200/" + cftLinux},
		{name: "linux: Playwright's headless shell, which cannot load extensions, is not taken", goos: "linux",
			files:    []string{"~/.cache/ms-playwright/chromium_headless_shell-1200/chrome-headless-shell-linux64/chrome-headless-shell"},
			notFound: true},
		{name: "linux: Playwright's Chromium layout before revision 1200 (chrome-linux)", goos: "linux",
			files: []string{"~/.cache/ms-playwright/chromium-1169/chrome-linux/chrome"}, want: "~/.cache/ms-playwright/chromium-1169/chrome-linux/chrome"},
		{name: "linux: PLAYWRIGHT_BROWSERS_PATH moves Playwright's cache", goos: "linux",
			env:   map[string]string{"PLAYWRIGHT_BROWSERS_PATH": "/pw"},
			files: []string{"~/.cache/ms-playwright/chromium-1300/" + cftLinux, "/pw/chromium-1200/" + cftLinux}, want: "/pw/chromium-1200/" + cftLinux},
		{name: "linux: Puppeteer's newest Chrome for Testing, compared as numbers (…6778.85 > …6778.9)", goos: "linux",
			files: []string{"~/.cache/puppeteer/chrome/linux-131.0.6778.9/" + cftLinux, "~/.cache/puppeteer/chrome/linux-131.0.6778.85/" + cftLinux, "~/.cache/puppeteer/chrome/linux-99.0.4844.51/" + cftLinux},
			want:  "~/.cache/puppeteer/chrome/linux-131.0.6778.85/" + cftLinux},
		{name: "linux: PUPPETEER_CACHE_DIR moves Puppeteer's cache", goos: "linux",
			env:   map[string]string{"PUPPETEER_CACHE_DIR": "/pup"},
			files: []string{"/pup/chrome/linux-140.0.7339.80/" + cftLinux}, want: "/pup/chrome/linux-140.0.7339.80/" + cftLinux},
		{name: "linux: Puppeteer's Chromium snapshot", goos: "linux",
			files: []string{"~/.cache/puppeteer/chromium/linux-1083080/chrome-linux/chrome"}, want: "~/.cache/puppeteer/chromium/linux-1083080/chrome-linux/chrome"},
		{name: "linux: ./chrome from npx @puppeteer/browsers install chrome@stable", goos: "linux",
			files: []string{"./chrome/linux-140.0.7339.80/" + cftLinux}, want: "./chrome/linux-140.0.7339.80/" + cftLinux},
		{name: "linux: Playwright's cache, then Puppeteer's, then ./chrome", goos: "linux",
			files: []string{"./chrome/linux-141.0.1.1/" + cftLinux, "~/.cache/puppeteer/chrome/linux-141.0.1.1/" + cftLinux, "~/.cache/ms-playwright/chromium-1200/" + cftLinux},
			want:  "~/.cache/ms-playwright/chromium-1200/" + cftLinux},
		{name: "linux: a cache executable without its execute bit is passed over", goos: "linux",
			plain: []string{"~/.cache/ms-playwright/chromium-1200/" + cftLinux}, notFound: true},
		{name: "linux: Edge before branded Chrome", goos: "linux",
			files: []string{"/opt/google/chrome/chrome", "/opt/microsoft/msedge/msedge"}, want: "/opt/microsoft/msedge/msedge"},
		{name: "linux: ./chrome before Edge", goos: "linux",
			files: []string{"/opt/microsoft/msedge/msedge", "./chrome/linux-140.0.7339.80/" + cftLinux}, want: "./chrome/linux-140.0.7339.80/" + cftLinux},
		{name: "linux: only branded Chrome in /opt/google/chrome", goos: "linux",
			files: []string{"/opt/google/chrome/chrome"}, want: "/opt/google/chrome/chrome", branded: true},
		{name: "linux: only branded Chrome on PATH", goos: "linux",
			files: []string{"/bin/google-chrome-stable"}, want: "/bin/google-chrome-stable", branded: true},
		{name: "linux: BUA_CHROME wins over everything, branded or not", goos: "linux",
			env:   map[string]string{"BUA_CHROME": "/opt/google/chrome/chrome"},
			files: []string{"/bin/chromium", "/opt/google/chrome/chrome"}, want: "/opt/google/chrome/chrome"},
		{name: "linux: nothing installed", goos: "linux", notFound: true},

		// macOS
		{name: "macOS: Chrome for Testing.app before Chromium.app", goos: "darwin",
			files: []string{"/Applications/" + macChromium, "/Applications/" + macCfT}, want: "/Applications/" + macCfT},
		{name: "macOS: /Applications before ~/Applications", goos: "darwin",
			files: []string{"~/Applications/" + macCfT, "/Applications/" + macChromium}, want: "/Applications/" + macChromium},
		{name: "macOS: ~/Applications Chromium before /Applications Google Chrome", goos: "darwin",
			files: []string{"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "~/Applications/" + macChromium}, want: "~/Applications/" + macChromium},
		{name: "macOS: an installed app before the caches", goos: "darwin",
			files: []string{"~/Library/Caches/ms-playwright/chromium-1200/" + cftMac, "~/Applications/" + macChromium}, want: "~/Applications/" + macChromium},
		{name: "macOS: Playwright's newest revision in ~/Library/Caches", goos: "darwin",
			files: []string{"~/Library/Caches/ms-playwright/chromium-1200/" + cftMac, "~/Library/Caches/ms-playwright/chromium-1181/chrome-mac/" + macChromium},
			want:  "~/Library/Caches/ms-playwright/chromium-1200/" + cftMac},
		{name: "macOS: Puppeteer's cache (mac_arm)", goos: "darwin",
			files: []string{"~/.cache/puppeteer/chrome/mac_arm-140.0.7339.80/" + cftMac}, want: "~/.cache/puppeteer/chrome/mac_arm-140.0.7339.80/" + cftMac},
		{name: "macOS: ./chrome (mac-x64)", goos: "darwin",
			files: []string{"./chrome/mac-140.0.7339.80/chrome-mac-x64/" + macCfT}, want: "./chrome/mac-140.0.7339.80/chrome-mac-x64/" + macCfT},
		{name: "macOS: Edge before branded Chrome", goos: "darwin",
			files: []string{"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"},
			want:  "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"},
		{name: "macOS: only Google Chrome.app", goos: "darwin",
			files: []string{"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"}, want: "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", branded: true},
		{name: "macOS: nothing installed", goos: "darwin", notFound: true},

		// Windows: every file is plain (no execute bits), as Go sees them there.
		{name: "Windows: chrome.exe on PATH, no execute bit", goos: "windows",
			plain: []string{"/bin/chrome.exe"}, want: "/bin/chrome.exe"},
		{name: "Windows: Chromium in LOCALAPPDATA before Program Files", goos: "windows",
			plain: []string{"/Program Files/Chromium/Application/chrome.exe", "~/AppData/Local/Chromium/Application/chrome.exe"},
			want:  "~/AppData/Local/Chromium/Application/chrome.exe"},
		{name: "Windows: Playwright's newest chrome-win64 before Edge", goos: "windows",
			plain: []string{"/Program Files (x86)/Microsoft/Edge/Application/msedge.exe", "~/AppData/Local/ms-playwright/chromium-1200/chrome-win64/chrome.exe", "~/AppData/Local/ms-playwright/chromium-1187/chrome-win/chrome.exe"},
			want:  "~/AppData/Local/ms-playwright/chromium-1200/chrome-win64/chrome.exe"},
		{name: "Windows: Puppeteer's cache under the home", goos: "windows",
			plain: []string{"~/.cache/puppeteer/chrome/win64-140.0.7339.80/chrome-win64/chrome.exe"}, want: "~/.cache/puppeteer/chrome/win64-140.0.7339.80/chrome-win64/chrome.exe"},
		{name: "Windows: .\\chrome, newest of two", goos: "windows",
			plain: []string{"./chrome/win64-99.0.4844.51/chrome-win64/chrome.exe", "./chrome/win64-140.0.7339.80/chrome-win64/chrome.exe"},
			want:  "./chrome/win64-140.0.7339.80/chrome-win64/chrome.exe"},
		{name: "Windows: Edge before branded Chrome", goos: "windows",
			plain: []string{"/Program Files/Google/Chrome/Application/chrome.exe", "/Program Files (x86)/Microsoft/Edge/Application/msedge.exe"},
			want:  "/Program Files (x86)/Microsoft/Edge/Application/msedge.exe"},
		{name: "Windows: only branded Chrome in Program Files", goos: "windows",
			plain: []string{"/Program Files/Google/Chrome/Application/chrome.exe"}, want: "/Program Files/Google/Chrome/Application/chrome.exe", branded: true},
		{name: "Windows: only branded Chrome in LOCALAPPDATA, found through chrome.exe on PATH too", goos: "windows",
			env:   map[string]string{"PATH": "~/AppData/Local/Google/Chrome/Application"},
			plain: []string{"~/AppData/Local/Google/Chrome/Application/chrome.exe"}, want: "~/AppData/Local/Google/Chrome/Application/chrome.exe", branded: true},
		{name: "Windows: nothing installed", goos: "windows", notFound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tc.goos != "windows" {
				t.Skip("a Windows file has no execute bits to lay a Unix machine out with")
			}
			m := newMachine(t, tc.goos)
			for k, v := range tc.env {
				if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") {
					v = m.path(v)
				}
				m.env[k] = v
			}
			for _, f := range tc.files {
				m.put(t, f, 0o755)
			}
			for _, f := range tc.plain {
				m.put(t, f, 0o644)
			}
			got, err := m.find()
			want := m.path(tc.want)
			switch {
			case tc.notFound:
				if !errors.Is(err, ErrNotFound) || got != "" {
					t.Fatalf("find = %q, %v; want ErrNotFound", got, err)
				}
				for _, s := range []string{"npx @puppeteer/browsers install chrome@stable", "Chromium", "BUA_CHROME"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
			case tc.branded:
				if !errors.Is(err, ErrBrandedChrome) || got != want {
					t.Fatalf("find = %q, %v; want %q with ErrBrandedChrome", got, err, want)
				}
				for _, s := range []string{"ignores --load-extension", "Chrome for Testing (npx @puppeteer/browsers install chrome@stable)", "Chromium", want} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
			default:
				if err != nil || got != want {
					t.Fatalf("find = %q, %v; want %q", got, err, want)
				}
			}
		})
	}
}

// TestFindSkipsRelativePATH checks that a "." in $PATH does not run the
// working directory's chromium, as exec.LookPath refuses since Go 1.19.
func TestFindSkipsRelativePATH(t *testing.T) {
	m := newMachine(t, runtime.GOOS)
	t.Chdir(m.root)
	m.put(t, "/chromium", 0o755)
	m.put(t, "/chromium.exe", 0o755)
	m.env["PATH"] = "."
	if got, err := m.find(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("find = %q, %v; want ErrNotFound", got, err)
	}
}

// TestIsExecutable checks the existence rule per OS: Windows runs any
// regular file (there is no execute bit), the others need one.
func TestIsExecutable(t *testing.T) {
	dir := t.TempDir()
	exe := fakeBin(t, dir, "exec")
	plain := filepath.Join(dir, "chrome.exe")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs execute bits and symlinks, which Windows files lack")
	}
	for _, tc := range []struct {
		name, goos, path string
		want             bool
	}{
		{"linux: execute bit", "linux", exe, true},
		{"linux: no execute bit", "linux", plain, false},
		{"linux: a symlink to an executable", "linux", link, true},
		{"linux: a folder", "linux", dir, false},
		{"linux: missing", "linux", filepath.Join(dir, "none"), false},
		{"macOS: no execute bit", "darwin", plain, false},
		{"Windows: a plain .exe file", "windows", plain, true},
		{"Windows: a folder", "windows", dir, false},
		{"Windows: missing", "windows", filepath.Join(dir, "none.exe"), false},
	} {
		if got := isExecutable(tc.goos, tc.path); got != tc.want {
			t.Errorf("%s: isExecutable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIsBrandedChrome(t *testing.T) {
	for p, want := range map[string]bool{
		"/opt/google/chrome/chrome":                                                                               true,
		"/opt/google/chrome-beta/chrome":                                                                          true,
		"/opt/google/chrome-linux64/chrome":                                                                       false, // Chrome for Testing unpacked there
		"/usr/bin/google-chrome-stable":                                                                           true,
		"/usr/bin/chromium":                                                                                       false,
		"/home/u/chrome/linux-1/chrome-linux64/chrome":                                                            false,
		"/home/u/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome":                                        false,
		"/opt/microsoft/msedge/msedge":                                                                            false,
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome":                                            true,
		"/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary":                              true,
		"/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing":                    false,
		"/Applications/Chromium.app/Contents/MacOS/Chromium":                                                      false,
		"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge":                                          false,
		`C:\Program Files\Google\Chrome\Application\chrome.exe`:                                                   true,
		`C:\Users\u\AppData\Local\Google\Chrome SxS\Application\chrome.exe`:                                       true,
		`C:\Users\chromium\AppData\Local\Google\Chrome\Application\chrome.exe`:                                    true,
		`C:\Users\u\AppData\Local\Chromium\Application\chrome.exe`:                                                false,
		`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`:                                            false,
		`C:\Users\u\AppData\Local\ms-playwright\chromium-1200\chrome-win64\chrome.exe`:                            false,
		`C:\Users\u\.cache\puppeteer\chrome\win64-140.0.7339.80\chrome-win64\chrome.exe`:                          false,
		`C:\work\chrome\win64-140.0.7339.80\chrome-win64\chrome.exe`:                                              false,
		"/Users/u/.cache/puppeteer/chrome/mac_arm-140.0.7339.80/chrome-mac-arm64/Google Chrome for Testing.app/x": false,
	} {
		if got := IsBrandedChrome(p); got != want {
			t.Errorf("IsBrandedChrome(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string][]int{
		"1200": {1200}, "131.0.6778.85": {131, 0, 6778, 85},
		"": nil, "1200a": nil, "1..2": nil, "-1": nil, "+1": nil, "stable": nil, "1.2.": nil,
	} {
		got, ok := parseVersion(s)
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Errorf("parseVersion(%q) = %v, %v; want %v", s, got, ok, want)
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
