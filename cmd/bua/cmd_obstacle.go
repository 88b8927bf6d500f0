package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/obstacle"
)

func init() {
	register(func(env *Env) *cli.Command { return newObstacleCommand(env, nil) }, "obstacle")
}

// obstacleOptions is `bua obstacle`'s command line.
type obstacleOptions struct {
	globalOptions
	// File is the saved extract to read: a path, or "" or - for stdin.
	File string
}

func newObstacleCommand(env *Env, runF func(*obstacleOptions) error) *cli.Command {
	o := &obstacleOptions{}
	return &cli.Command{
		Name:      "obstacle",
		Category:  catActions,
		Usage:     "classify a saved extract (bua extract --json) and explain the verdict",
		ArgsUsage: "[FILE|-]",
		Description: "Reads the JSON of `bua extract --json`, or a bare {url, title, markdown,\n" +
			"elements, captchaFrame} object, and prints the verdict, the layer that fired\n" +
			"and every signal it saw. No browser is needed:\n" +
			"  bua extract --json > page.json && bua obstacle page.json",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.File = c.Args().First()
			return runWith(o, runF, runObstacle)
		},
	}
}

func runObstacle(o *obstacleOptions) error {
	env := o.env
	var data []byte
	var err error
	switch o.File {
	case "", "-":
		data, err = io.ReadAll(env.Stdin)
	default:
		data, err = os.ReadFile(o.File)
	}
	if err != nil {
		return usageError(err.Error())
	}
	in, err := obstacle.ParseInput(data)
	if err != nil {
		return usageError(err.Error())
	}
	v := obstacle.Explain(in)
	if o.JSON {
		return printJSON(env, v)
	}
	fmt.Fprint(env.Stdout, obstacle.FormatText(v))
	return nil
}
