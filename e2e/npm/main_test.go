//go:build linux

// Package npm installs bua from npm as a user would, from a real local
// registry: the packages npm/build.mjs writes from a dist/ folder laid out
// as GoReleaser lays it out (its artifacts.json and metadata.json), all
// six platform packages and the launcher published to verdaccio (installed
// test-only from npm into a scratch folder, with no uplink, so nothing
// reaches or comes from the real registry), then `npm i -g`, `npx -y` and
// an MCP client through `npx -y @bua-dev/bua mcp`, with and without
// install scripts, each in a clean prefix, HOME and cache.
//
// It needs node and npm (Node 20 or later, verdaccio 6.8's floor) and,
// once, the npm registry to install verdaccio: without them it fails, it
// never skips. It runs on Linux, as the other e2e packages do (process
// groups, /proc); no browser is needed: `bua mcp` answers initialize and
// tools/list without the daemon.
package npm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/internal/devbuild"
)

// verdaccioPkg is the local registry, pinned: 6.8 is the last line that
// runs on Node 20 (later ones need Node 22).
const verdaccioPkg = "verdaccio@6.8.0"

// version is the packages' version: a prerelease, as GoReleaser's
// snapshots are (0.0.0-SNAPSHOT-<commit>).
const version = "0.0.0-SNAPSHOT-e2e0001"

var (
	repoRoot  string
	tmp       string // the package's scratch folder, removed at the end
	bareBua   string // this machine's binary in dist/, as GoReleaser left it
	hostKey   string // npm's name for this machine: linux-x64
	npmOut    string // what npm/build.mjs wrote
	registry  string // http://127.0.0.1:PORT/
	userRC    string // an npmrc naming the registry and the publisher's token
	published []builtPackage
)

// builtPackage is one entry of npm/build.mjs's packages.json.
type builtPackage struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Dir       string `json:"dir"`
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"`
}

// distTargets are the six targets a release builds, as GoReleaser names
// them (its target string, which is also its dist folder's suffix).
var distTargets = []struct{ goos, goarch, variant string }{
	{"linux", "amd64", "v1"}, {"linux", "arm64", "v8.0"},
	{"darwin", "amd64", "v1"}, {"darwin", "arm64", "v8.0"},
	{"windows", "amd64", "v1"}, {"windows", "arm64", "v8.0"},
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			log.Fatalf("e2e/npm needs %s (Node 20 or later, with npm): %v", tool, err)
		}
	}
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		log.Fatal(err)
	}
	hostKey = npmKey(runtime.GOOS, runtime.GOARCH)
	tmp = harness.TempDir("buanpm")
	atExit = append(atExit, func() { os.RemoveAll(tmp) })
	defer cleanUp()

	dist := filepath.Join(tmp, "dist")
	bareBua = buildDist(dist)
	npmOut = filepath.Join(dist, "npm")
	buildPackages(dist, npmOut)

	startRegistry()
	publishAll()
	return m.Run()
}

// atExit is what TestMain undoes when it ends, last first: the scratch
// folder, the registry. fatalf does it too, since log.Fatal runs no defer.
var atExit []func()

func cleanUp() {
	for i := len(atExit) - 1; i >= 0; i-- {
		atExit[i]()
	}
	atExit = nil
}

func fatalf(format string, args ...any) {
	cleanUp()
	log.Fatalf(format, args...)
}

// npmKey is npm's `${process.platform}-${process.arch}` for a Go target.
func npmKey(goos, goarch string) string {
	os := map[string]string{"windows": "win32"}[goos]
	if os == "" {
		os = goos
	}
	cpu := map[string]string{"amd64": "x64"}[goarch]
	if cpu == "" {
		cpu = goarch
	}
	return os + "-" + cpu
}

// buildDist builds bua for the six targets into dist/ as GoReleaser does
// (dist/<build id>_<target>/bua[.exe]) and writes the artifacts.json and
// metadata.json GoReleaser would, paths relative to dist's parent (the
// folder GoReleaser runs in). It returns this machine's binary.
func buildDist(dist string) string {
	type artifact struct {
		Name         string         `json:"name"`
		Path         string         `json:"path"`
		Goos         string         `json:"goos"`
		Goarch       string         `json:"goarch"`
		Goamd64      string         `json:"goamd64,omitempty"`
		Goarm64      string         `json:"goarm64,omitempty"`
		Target       string         `json:"target"`
		InternalType int            `json:"internal_type"`
		Type         string         `json:"type"`
		Extra        map[string]any `json:"extra"`
	}
	arts := make([]artifact, len(distTargets))
	errs := make([]error, len(distTargets))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // the CI machine's two cores
	host := ""
	for i, tg := range distTargets {
		target := tg.goos + "_" + tg.goarch + "_" + tg.variant
		rel := filepath.Join("dist", "bua_"+target, filepath.Base(devbuild.Binary("", tg.goos)))
		out := filepath.Join(filepath.Dir(dist), rel)
		if tg.goos == runtime.GOOS && tg.goarch == runtime.GOARCH {
			host = out
		}
		a := artifact{
			Name: filepath.Base(rel), Path: rel, Goos: tg.goos, Goarch: tg.goarch, Target: target,
			InternalType: 4, Type: "Binary", // GoReleaser's artifact.Binary
			Extra: map[string]any{"Binary": "bua", "Builder": "go", "Ext": filepath.Ext(rel), "ID": "bua"},
		}
		if tg.goarch == "amd64" {
			a.Goamd64 = tg.variant
		} else {
			a.Goarm64 = tg.variant
		}
		arts[i] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = devbuild.Build(context.Background(), repoRoot, out, tg.goos, tg.goarch)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fatalf("e2e/npm: building dist/: %v", err)
	}
	if host == "" {
		fatalf("e2e/npm: no release target for this machine (%s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	writeJSON(filepath.Join(dist, "artifacts.json"), arts)
	writeJSON(filepath.Join(dist, "metadata.json"), map[string]any{
		"project_name": "bua", "tag": "v0.0.0", "previous_tag": "", "version": version,
		"commit": "e2e0001", "date": "2026-01-01T00:00:00Z",
		"runtime": map[string]string{"goos": runtime.GOOS, "goarch": runtime.GOARCH},
	})
	return host
}

func writeJSON(file string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fatalf("e2e/npm: %v", err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		fatalf("e2e/npm: %v", err)
	}
}

// buildPackages runs npm/build.mjs as scripts/release does, from the
// folder dist/ is in.
func buildPackages(dist, out string) {
	cmd := exec.Command("node", filepath.Join(repoRoot, "npm", "build.mjs"), "--dist", "dist", "--out", out)
	cmd.Dir = filepath.Dir(dist)
	if b, err := cmd.CombinedOutput(); err != nil {
		fatalf("e2e/npm: npm/build.mjs: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(out, "packages.json"))
	if err != nil {
		fatalf("e2e/npm: %v", err)
	}
	if err := json.Unmarshal(b, &published); err != nil {
		fatalf("e2e/npm: packages.json: %v", err)
	}
}

// installVerdaccio installs verdaccioPkg into a scratch folder of the
// machine's temp directory, once (a marker names what is installed), and
// returns its entry point. --ignore-scripts: none of its packages needs
// an install script.
func installVerdaccio() string {
	dir := filepath.Join(os.TempDir(), "bua-npm-verdaccio")
	bin := filepath.Join(dir, "node_modules", "verdaccio", "bin", "verdaccio")
	marker := filepath.Join(dir, ".installed")
	if b, err := os.ReadFile(marker); err == nil && string(b) == verdaccioPkg {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"bua-npm-registry-scratch","private":true}`+"\n"), 0o644); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", verdaccioPkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		fatalf("e2e/npm: npm install %s into %s failed: %v\n%s", verdaccioPkg, dir, err, out)
	}
	if err := os.WriteFile(marker, []byte(verdaccioPkg), 0o644); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	return bin
}

// startRegistry starts verdaccio on a free loopback port with a
// throwaway configuration: storage and users in tmp, no uplinks (a
// package it does not hold is a 404, never fetched from elsewhere),
// reading open to all, publishing to a logged-in user. Then it logs one
// in as `npm adduser` does and writes userRC. atExit stops it.
func startRegistry() {
	bin := installVerdaccio()
	dir := filepath.Join(tmp, "registry")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("e2e/npm: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	config := fmt.Sprintf(`storage: %[1]s/storage
auth:
  htpasswd:
    file: %[1]s/htpasswd
    max_users: 1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
# A platform package is a ~12 MB tarball, base64 in the publish request.
max_body_size: 200mb
web:
  enable: false
log: { type: stdout, format: pretty, level: warn }
`, dir)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "verdaccio.log"))
	if err != nil {
		fatalf("e2e/npm: %v", err)
	}
	cmd := exec.Command("node", bin, "--config", cfg, "--listen", addr)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so that stopping it ends what it started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fatalf("e2e/npm: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	atExit = append(atExit, func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
	})
	registry = "http://" + addr + "/"
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(registry + "-/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logFile.Name())
			fatalf("e2e/npm: verdaccio exited before it served:\n%s", b)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logFile.Name())
			fatalf("e2e/npm: verdaccio did not answer %s-/ping in 90 s:\n%s", registry, b)
		}
	}

	// npm adduser's request (the CouchDB user document), which creates the
	// user and answers a token.
	body, _ := json.Marshal(map[string]string{"name": "bua-e2e", "password": "e2e-npm-publisher", "type": "user"})
	req, _ := http.NewRequest(http.MethodPut, registry+"-/user/org.couchdb.user:bua-e2e", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fatalf("e2e/npm: adduser: %v", err)
	}
	defer resp.Body.Close()
	var user struct {
		Token string `json:"token"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &user); err != nil || user.Token == "" {
		fatalf("e2e/npm: adduser answered %s: %s", resp.Status, b)
	}
	host := strings.TrimPrefix(registry, "http:")
	userRC = filepath.Join(dir, "npmrc")
	// allow-scripts: npm 12 runs a package's install scripts only when the
	// user allows them, in this file (npx reads no other); npm 11 runs them
	// anyway, and older ones ignore the key. The tests without scripts say
	// --ignore-scripts, which wins.
	rc := "registry=" + registry + "\n" + host + ":_authToken=" + user.Token + "\nallow-scripts=@bua-dev/bua\n"
	if err := os.WriteFile(userRC, []byte(rc), 0o600); err != nil {
		fatalf("e2e/npm: %v", err)
	}
}

// publishAll publishes the packages in packages.json's order, the
// launcher last. --tag latest: npm 11 wants a tag for a prerelease, and a
// user's `npm i @bua-dev/bua` takes latest.
func publishAll() {
	env := npmEnv(filepath.Join(tmp, "publisher"))
	if len(published) != 7 {
		fatalf("e2e/npm: packages.json lists %d packages, want the six platforms and the launcher: %+v", len(published), published)
	}
	for _, p := range published {
		cmd := exec.Command("npm", "publish", filepath.Join(npmOut, p.Tarball), "--tag", "latest")
		cmd.Env = env
		cmd.Dir = tmp
		if b, err := cmd.CombinedOutput(); err != nil {
			fatalf("e2e/npm: npm publish %s: %v\n%s", p.Tarball, err, b)
		}
	}
}

// npmEnv is an environment of a user who has never run npm or bua: HOME,
// npm's cache and global prefix under dir, npm's configuration only
// userRC (the developer's own npmrc files and npm_config_* variables are
// left out), bua's home fresh as harness.FreshEnv makes it.
func npmEnv(dir string) []string {
	for _, d := range []string{"home", "cache", "prefix", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			fatalf("e2e/npm: %v", err)
		}
	}
	var env []string
	// A short BUA_HOME: bua's unix socket must fit in sun_path.
	buaHome, err := os.MkdirTemp(tmp, "h")
	if err != nil {
		fatalf("e2e/npm: %v", err)
	}
	for _, kv := range harness.FreshEnv(buaHome) {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(strings.ToLower(k), "npm_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+filepath.Join(dir, "home"),
		"npm_config_userconfig="+userRC,
		"npm_config_globalconfig="+filepath.Join(dir, "no-global-npmrc"),
		"npm_config_cache="+filepath.Join(dir, "cache"),
		"npm_config_prefix="+filepath.Join(dir, "prefix"),
		"npm_config_update_notifier=false",
		"npm_config_audit=false",
		"npm_config_fund=false",
	)
}
