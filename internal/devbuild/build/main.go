// Command build builds bua from this checkout as README's install line
// does (internal/devbuild): `go run ./internal/devbuild/build [OUT]`, on
// any OS, to OUT (default bua, or bua.exe on Windows). scripts/build runs
// it.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/bua-dev/bua/internal/devbuild"
)

func main() {
	out := devbuild.Binary(".", runtime.GOOS)
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := devbuild.Build(context.Background(), ".", out, "", ""); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}
