package browser

import (
	"slices"
	"strings"
	"testing"
)

// The candidate lists are pure, so one Linux run checks every OS's order.
// The want lists are written out in full, Windows ones with backslashes,
// so that a change of order shows as a diff of this file.

const (
	macCfT      = "Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
	macChromium = "Chromium.app/Contents/MacOS/Chromium"
)

func TestCandidates(t *testing.T) {
	winEnv := map[string]string{
		"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "PROGRAMFILES": `C:\Program Files`,
		"PROGRAMFILES(X86)": `C:\Program Files (x86)`, "HOMEDRIVE": "C:",
	}
	for _, tc := range []struct {
		name, goos string
		env        map[string]string
		home, cwd  string
		want       []string
	}{
		{
			name: "linux: PATH, Playwright, Puppeteer, ./chrome, Edge, branded Chrome", goos: "linux",
			home: "/home/u", cwd: "/work",
			want: []string{
				"chromium", "chromium-browser", "google-chrome-for-testing", "chrome",
				"/home/u/.cache/ms-playwright/chromium-*/chrome-linux64/chrome",
				"/home/u/.cache/ms-playwright/chromium-*/chrome-linux/chrome",
				"/home/u/.cache/puppeteer/chrome/linux-*/chrome-linux64/chrome",
				"/home/u/.cache/puppeteer/chrome/linux_arm-*/chrome-linux-arm64/chrome",
				"/home/u/.cache/puppeteer/chromium/linux-*/chrome-linux/chrome",
				"/home/u/.cache/puppeteer/chromium/linux_arm-*/chrome-linux/chrome",
				"/work/chrome/linux-*/chrome-linux64/chrome",
				"/work/chrome/linux_arm-*/chrome-linux-arm64/chrome",
				"microsoft-edge-stable", "microsoft-edge", "/opt/microsoft/msedge/msedge",
				"google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome",
			},
		},
		{
			name: "macOS: PATH, CfT and Chromium apps, caches, ./chrome, Edge, branded Chrome", goos: "darwin",
			home: "/Users/u", cwd: "/work",
			want: []string{
				"chromium", "chromium-browser", "google-chrome-for-testing", "chrome",
				"/Applications/" + macCfT,
				"/Applications/" + macChromium,
				"/Users/u/Applications/" + macCfT,
				"/Users/u/Applications/" + macChromium,
				"/Users/u/Library/Caches/ms-playwright/chromium-*/chrome-mac-arm64/" + macCfT,
				"/Users/u/Library/Caches/ms-playwright/chromium-*/chrome-mac-x64/" + macCfT,
				"/Users/u/Library/Caches/ms-playwright/chromium-*/chrome-mac/" + macChromium,
				"/Users/u/.cache/puppeteer/chrome/mac_arm-*/chrome-mac-arm64/" + macCfT,
				"/Users/u/.cache/puppeteer/chrome/mac-*/chrome-mac-x64/" + macCfT,
				"/Users/u/.cache/puppeteer/chromium/mac_arm-*/chrome-mac/" + macChromium,
				"/Users/u/.cache/puppeteer/chromium/mac-*/chrome-mac/" + macChromium,
				"/work/chrome/mac_arm-*/chrome-mac-arm64/" + macCfT,
				"/work/chrome/mac-*/chrome-mac-x64/" + macCfT,
				"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
				"/Users/u/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
				"google-chrome", "google-chrome-stable",
				"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
				"/Users/u/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			},
		},
		{
			name: "Windows: PATH, Chromium installs, caches, .\\chrome, Edge, branded Chrome", goos: "windows",
			env: winEnv, home: `C:\Users\u`, cwd: `C:\work`,
			want: []string{
				"chromium.exe", "chrome.exe",
				`C:\Users\u\AppData\Local\Chromium\Application\chrome.exe`,
				`C:\Program Files\Chromium\Application\chrome.exe`,
				`C:\Program Files (x86)\Chromium\Application\chrome.exe`,
				`C:\Users\u\AppData\Local\ms-playwright\chromium-*\chrome-win64\chrome.exe`,
				`C:\Users\u\AppData\Local\ms-playwright\chromium-*\chrome-win\chrome.exe`,
				`C:\Users\u\.cache\puppeteer\chrome\win64-*\chrome-win64\chrome.exe`,
				`C:\Users\u\.cache\puppeteer\chrome\win32-*\chrome-win32\chrome.exe`,
				`C:\Users\u\.cache\puppeteer\chromium\win64-*\chrome-win\chrome.exe`,
				`C:\Users\u\.cache\puppeteer\chromium\win32-*\chrome-win\chrome.exe`,
				`C:\work\chrome\win64-*\chrome-win64\chrome.exe`,
				`C:\work\chrome\win32-*\chrome-win32\chrome.exe`,
				"msedge.exe",
				`C:\Users\u\AppData\Local\Microsoft\Edge\Application\msedge.exe`,
				`C:\Program Files\Microsoft\Edge\Application\msedge.exe`,
				`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
				`C:\Users\u\AppData\Local\Google\Chrome\Application\chrome.exe`,
				`C:\Program Files\Google\Chrome\Application\chrome.exe`,
				`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
			},
		},
		{
			name: "no home and no working directory: PATH and system folders only", goos: "linux",
			want: []string{
				"chromium", "chromium-browser", "google-chrome-for-testing", "chrome",
				"microsoft-edge-stable", "microsoft-edge", "/opt/microsoft/msedge/msedge",
				"google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome",
			},
		},
		{
			name: "Windows without LOCALAPPDATA or PROGRAMFILES: the home's AppData and HOMEDRIVE's Program Files", goos: "windows",
			env: map[string]string{"HOMEDRIVE": "D:"}, home: `D:\Users\u`,
			want: []string{
				"chromium.exe", "chrome.exe",
				`D:\Users\u\AppData\Local\Chromium\Application\chrome.exe`,
				`D:\Program Files\Chromium\Application\chrome.exe`,
				`D:\Program Files (x86)\Chromium\Application\chrome.exe`,
				`D:\Users\u\AppData\Local\ms-playwright\chromium-*\chrome-win64\chrome.exe`,
				`D:\Users\u\AppData\Local\ms-playwright\chromium-*\chrome-win\chrome.exe`,
				`D:\Users\u\.cache\puppeteer\chrome\win64-*\chrome-win64\chrome.exe`,
				`D:\Users\u\.cache\puppeteer\chrome\win32-*\chrome-win32\chrome.exe`,
				`D:\Users\u\.cache\puppeteer\chromium\win64-*\chrome-win\chrome.exe`,
				`D:\Users\u\.cache\puppeteer\chromium\win32-*\chrome-win\chrome.exe`,
				"msedge.exe",
				`D:\Users\u\AppData\Local\Microsoft\Edge\Application\msedge.exe`,
				`D:\Program Files\Microsoft\Edge\Application\msedge.exe`,
				`D:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
				`D:\Users\u\AppData\Local\Google\Chrome\Application\chrome.exe`,
				`D:\Program Files\Google\Chrome\Application\chrome.exe`,
				`D:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := candidates(tc.goos, env(tc.env), tc.home, tc.cwd)
			if !slices.Equal(got, tc.want) {
				t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCandidateCaches checks the variables that move the caches: each
// case names the cache entries it expects, in order, and those it must
// not see.
func TestCandidateCaches(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		env        map[string]string
		home, cwd  string
		want, not  []string
	}{
		{
			name: "PLAYWRIGHT_BROWSERS_PATH replaces ~/.cache/ms-playwright", goos: "linux",
			env: map[string]string{"PLAYWRIGHT_BROWSERS_PATH": "/pw", "XDG_CACHE_HOME": "/xdg"}, home: "/home/u", cwd: "/work",
			want: []string{"/pw/chromium-*/chrome-linux64/chrome", "/pw/chromium-*/chrome-linux/chrome"},
			not:  []string{"/home/u/.cache/ms-playwright/chromium-*/chrome-linux64/chrome", "/xdg/ms-playwright/chromium-*/chrome-linux64/chrome"},
		},
		{
			name: "a relative PLAYWRIGHT_BROWSERS_PATH is under the working directory", goos: "linux",
			env: map[string]string{"PLAYWRIGHT_BROWSERS_PATH": "./browsers"}, home: "/home/u", cwd: "/work",
			want: []string{"/work/browsers/chromium-*/chrome-linux64/chrome"},
		},
		{
			name: "PLAYWRIGHT_BROWSERS_PATH=0 (browsers inside node_modules) drops Playwright", goos: "linux",
			env: map[string]string{"PLAYWRIGHT_BROWSERS_PATH": "0"}, home: "/home/u", cwd: "/work",
			not: []string{"/home/u/.cache/ms-playwright/chromium-*/chrome-linux64/chrome", "/work/0/chromium-*/chrome-linux64/chrome"},
		},
		{
			name: "XDG_CACHE_HOME moves Playwright's cache but not Puppeteer's", goos: "linux",
			env: map[string]string{"XDG_CACHE_HOME": "/xdg"}, home: "/home/u", cwd: "/work",
			want: []string{"/xdg/ms-playwright/chromium-*/chrome-linux64/chrome", "/home/u/.cache/puppeteer/chrome/linux-*/chrome-linux64/chrome"},
		},
		{
			name: "PUPPETEER_CACHE_DIR replaces ~/.cache/puppeteer, and ./chrome stays", goos: "linux",
			env: map[string]string{"PUPPETEER_CACHE_DIR": "/pup"}, home: "/home/u", cwd: "/work",
			want: []string{"/pup/chrome/linux-*/chrome-linux64/chrome", "/pup/chromium/linux-*/chrome-linux/chrome", "/work/chrome/linux-*/chrome-linux64/chrome"},
			not:  []string{"/home/u/.cache/puppeteer/chrome/linux-*/chrome-linux64/chrome"},
		},
		{
			name: "Windows PLAYWRIGHT_BROWSERS_PATH with forward slashes", goos: "windows",
			env: map[string]string{"PLAYWRIGHT_BROWSERS_PATH": "D:/pw/"}, home: `C:\Users\u`, cwd: `C:\work`,
			want: []string{`D:/pw\chromium-*\chrome-win64\chrome.exe`},
		},
		{
			name: "Windows relative PUPPETEER_CACHE_DIR is under the working directory", goos: "windows",
			env: map[string]string{"PUPPETEER_CACHE_DIR": `.\cache`}, home: `C:\Users\u`, cwd: `C:\work`,
			want: []string{`C:\work\cache\chrome\win64-*\chrome-win64\chrome.exe`},
		},
		{
			name: "a relative cache with no working directory is dropped", goos: "linux",
			env: map[string]string{"PUPPETEER_CACHE_DIR": "cache"}, home: "/home/u",
			not: []string{"cache/chrome/linux-*/chrome-linux64/chrome", "/cache/chrome/linux-*/chrome-linux64/chrome"},
		},
		{
			name: "home of / gives /.cache, not //.cache", goos: "linux",
			home: "/", want: []string{"/.cache/ms-playwright/chromium-*/chrome-linux64/chrome"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := candidates(tc.goos, env(tc.env), tc.home, tc.cwd)
			last := -1
			for _, w := range tc.want {
				i := slices.Index(got, w)
				if i < 0 {
					t.Errorf("missing %q in:\n%s", w, strings.Join(got, "\n"))
					continue
				}
				if i < last {
					t.Errorf("%q comes before the entry wanted ahead of it", w)
				}
				last = i
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("has %q", n)
				}
			}
			for _, c := range got {
				if strings.Contains(c, "*") && strings.Count(c, "*") != 1 {
					t.Errorf("%q has more than one version folder", c)
				}
			}
		})
	}
}

func TestJoinIsAbsSplitList(t *testing.T) {
	for _, tc := range []struct{ sep, want string }{
		{`\`, `C:\Program Files\Google`},
		{"/", "C:/Program Files/Google"},
	} {
		if got := join(tc.sep, `C:`+tc.sep, "Program Files", "Google"); got != tc.want {
			t.Errorf("join(%q) = %q, want %q", tc.sep, got, tc.want)
		}
	}
	for p, want := range map[string]bool{`C:\x`: true, `c:/x`: true, `\\srv\share`: true, `\x`: true, `x\y`: false, `C:x`: false, `.\x`: false} {
		if got := isAbs("windows", p); got != want {
			t.Errorf("isAbs(windows, %q) = %v, want %v", p, got, want)
		}
	}
	for p, want := range map[string]bool{"/x": true, "x": false, "./x": false, `C:\x`: false} {
		if got := isAbs("linux", p); got != want {
			t.Errorf("isAbs(linux, %q) = %v, want %v", p, got, want)
		}
	}
	if got, want := splitList("windows", `C:\a;"C:\b;c";;D:\d`), []string{`C:\a`, `C:\b;c`, "", `D:\d`}; !slices.Equal(got, want) {
		t.Errorf("splitList(windows) = %q, want %q", got, want)
	}
	if got, want := splitList("linux", "/a:/b;c"), []string{"/a", "/b;c"}; !slices.Equal(got, want) {
		t.Errorf("splitList(linux) = %q, want %q", got, want)
	}
}
