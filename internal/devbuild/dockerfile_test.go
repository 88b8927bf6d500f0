package devbuild

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile holds the container image's Dockerfile to what it must
// agree with and no test can run here (no container engine on the CI
// host; scripts/container/test runs the image's install script and a flow
// without one): the source stage builds with go.mod's Go and through this
// package's build command, so with its flags; the image's base is the
// Debian suite scripts/container/test builds; it installs through
// scripts/container/install alone; and it runs as the uid that script
// gives the user bua, which the test checks Chromium runs as.
func TestDockerfile(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), "\r\n", "\n")
	}
	df, gomod := read("Dockerfile"), read("go.mod")
	install, test := read("scripts/container/install"), read("scripts/container/test")
	match := func(what, src, re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no match for %s", what, re)
		}
		return m[1]
	}

	goVersion := match("go.mod", gomod, `(?m)^go (\S+)$`)
	if tc := regexp.MustCompile(`(?m)^toolchain go(\S+)$`).FindStringSubmatch(gomod); tc != nil {
		goVersion = tc[1]
	}
	if got := match("Dockerfile", df, `(?m)^ARG GO_VERSION=(\S+)$`); got != goVersion {
		t.Errorf("Dockerfile builds with Go %s, go.mod asks for %s: set ARG GO_VERSION=%s", got, goVersion, goVersion)
	}
	if !regexp.MustCompile(`(?m)^FROM --platform=\$BUILDPLATFORM golang:\$\{GO_VERSION\}-`).MatchString(df) {
		t.Error("Dockerfile's source stage is not FROM golang:${GO_VERSION}-... on $BUILDPLATFORM")
	}
	if !strings.Contains(df, `go run ./internal/devbuild/build -os "$TARGETOS" -arch "$TARGETARCH"`) {
		t.Error("Dockerfile's source stage does not build with internal/devbuild's build command (so its flags may differ from every other build's)")
	}

	suite := match("scripts/container/test", test, `(?m)^suite=(\S+)$`)
	if got := match("Dockerfile", df, `(?m)^ARG DEBIAN_IMAGE=debian:(\S+)-slim$`); got != suite {
		t.Errorf("Dockerfile's image is Debian %s, scripts/container/test tests %s", got, suite)
	}
	if !strings.Contains(df, "sh /tmp/install /tmp/bua") || !strings.Contains(df, "source=scripts/container/install,target=/tmp/install") {
		t.Error("Dockerfile does not RUN scripts/container/install, the image's one install script")
	}
	if n := strings.Count(df, "\nRUN "); n != 3 {
		t.Errorf("Dockerfile has %d RUN instructions, want 3 (go mod download, the build, the install script): the image's install steps belong in scripts/container/install, which scripts/container/test runs", n)
	}

	uid := match("scripts/container/install", install, `uid=\$\{BUA_UID:-(\d+)\}`)
	if got := match("Dockerfile", df, `(?m)^USER (\S+)$`); got != uid+":"+uid {
		t.Errorf("Dockerfile runs as USER %s, want %s:%s (the uid scripts/container/install gives bua; numeric for runAsNonRoot)", got, uid, uid)
	}
	if got := match("scripts/container/test", test, `(?m)^uid_bua=(\d+)`); got != uid {
		t.Errorf("scripts/container/test expects Chromium to run as uid %s, scripts/container/install creates bua as %s", got, uid)
	}
}
