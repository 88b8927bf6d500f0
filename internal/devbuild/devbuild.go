// Package devbuild builds bua from a checkout the way README's install
// line does, on every OS and with nothing but Go: scripts/build and its
// Windows twin (`go run ./internal/devbuild/build`) call it, and so does
// the e2e harness, so tests and benchmarks measure what users run.
package devbuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Tags leaves out what bua does not use: urfave/cli's man-page generator,
// whose markdown parser's init cost every command about 0.5 ms and 80 page
// faults (BENCHMARKS.md §One-shot commands).
const Tags = "urfave_cli_no_docs"

// Env is the build's environment beyond the caller's: a static binary
// (CGO_ENABLED=0), which starts each command about 1 ms faster and runs
// on any machine of its OS.
var Env = []string{"CGO_ENABLED=0"}

// Flags are `go build`'s flags besides the tags: -trimpath, so the binary
// names no path of the machine it was built on (and two machines build
// the same bytes); -buildvcs=auto, so that Go records the checkout's
// commit, its time and whether it had changes (what `bua --version` of a
// development build names), even where GOFLAGS says -buildvcs=false, and
// leaves them out where there is no git or no repository.
var Flags = []string{"-trimpath", "-buildvcs=auto"}

// Args are `go build`'s arguments for writing the binary to out: Flags,
// then Tags.
func Args(out string) []string {
	args := append([]string{"build"}, Flags...)
	return append(args, "-tags", Tags, "-o", out, "./cmd/bua")
}

// ReleaseLDFlags are the release's -ldflags, as GoReleaser templates
// them. The release (.goreleaser.yaml) builds with this package's Env,
// Flags and Tags, which TestGoreleaserSameFlags holds it to, and links
// with these besides: -s -w leave out the symbol table and DWARF (a third
// of the binary, which every archive and npm package carries; a panic's
// stack trace still names functions and lines), and -X stamps cmd/bua's
// version, commit and date with the tag's version, the full commit hash
// and the commit's time, never the build's, so that two builds of one
// commit are the same bytes. A development build has no stamp, and so
// `bua --version` calls it one.
var ReleaseLDFlags = []string{
	"-s", "-w",
	"-X main.version={{ .Version }}",
	"-X main.commit={{ .FullCommit }}",
	"-X main.date={{ .CommitDate }}",
}

// Binary is the path of bua's binary in dir for the OS it will run on:
// bua, or bua.exe on Windows.
func Binary(dir, goos string) string {
	name := "bua"
	if goos == "windows" {
		name += ".exe"
	}
	return filepath.Join(dir, name)
}

// Build builds ./cmd/bua of the module at root into out, for the OS and
// CPU of goos and goarch ("" for this machine's), with Go's output in the
// error when it fails.
func Build(ctx context.Context, root, out, goos, goarch string) error {
	cmd := exec.CommandContext(ctx, "go", Args(out)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), Env...)
	if goos != "" {
		cmd.Env = append(cmd.Env, "GOOS="+goos)
	}
	if goarch != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+goarch)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(Args(out), " "), err, b)
	}
	return nil
}

// GOOS is the OS a build for goos ("" for this machine's) runs on.
func GOOS(goos string) string {
	if goos == "" {
		return runtime.GOOS
	}
	return goos
}

// ToolsDir is where scripts/tools installs the pinned tools of the tools
// modules (tools/go.mod, tools/goreleaser/go.mod), relative to the
// repository root.
const ToolsDir = ".tools/bin"

// Tool is the path of the pinned tool name (actionlint, goreleaser) under root, for a
// test to run: tests never fetch a tool, so a missing one is an error
// saying to run scripts/tools.
func Tool(root, name string) (string, error) {
	p := filepath.Join(root, ToolsDir, name)
	if runtime.GOOS == "windows" {
		p += ".exe"
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is not installed at %s: run scripts/tools (or `go -C tools install tool` with GOBIN=%s), which installs the versions tools/go.mod and tools/goreleaser/go.mod pin", name, p, filepath.Join(root, ToolsDir))
	}
	return p, nil
}
