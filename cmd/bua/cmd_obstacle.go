package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/obstacle"
)

func init() { register(newObstacleCommand, "obstacle") }

func newObstacleCommand(env *Env) *cli.Command {
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
			var data []byte
			var err error
			switch name := c.Args().First(); name {
			case "", "-":
				data, err = io.ReadAll(env.Stdin)
			default:
				data, err = os.ReadFile(name)
			}
			if err != nil {
				return usageError(err.Error())
			}
			in, err := obstacle.ParseInput(data)
			if err != nil {
				return usageError(err.Error())
			}
			v := obstacle.Explain(in)
			if c.Bool("json") {
				return printJSON(env, v)
			}
			fmt.Fprint(env.Stdout, obstacle.FormatText(v))
			return nil
		},
	}
}
