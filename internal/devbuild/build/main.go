// Command build builds bua from this checkout as README's install line
// does (internal/devbuild), on any OS: `go run ./internal/devbuild/build
// [-os GOOS] [-arch GOARCH] [OUT]`, to OUT (default bua, or bua.exe for
// Windows). scripts/build and scripts/cross-check run it. The target is a
// flag, not GOOS: `go run` would build this program itself for GOOS.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/bua-dev/bua/internal/devbuild"
)

func main() {
	goos := flag.String("os", "", "the OS to build for (GOOS; default this machine's)")
	goarch := flag.String("arch", "", "the CPU to build for (GOARCH; default this machine's)")
	flag.Parse()
	out := devbuild.Binary(".", devbuild.GOOS(*goos))
	if flag.NArg() > 0 {
		out = flag.Arg(0)
	}
	if err := devbuild.Build(context.Background(), ".", out, *goos, *goarch); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}
