package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
)

func init() { register(newExtensionCommand, "extension") }

func newExtensionCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:     "extension",
		Category: catSetup,
		Usage:    "the bundled Chrome extension: write it out for Load unpacked, or print its ID",
		Subcommands: []*cli.Command{
			{
				Name:  "path",
				Usage: "write the extension to a folder and print it, for chrome://extensions > Load unpacked",
				Action: func(c *cli.Context) error {
					d, err := dirs(env)
					if err != nil {
						return err
					}
					dir, err := extension.WriteTo(filepath.Join(d.State, "extension"), nil)
					if err != nil {
						return err
					}
					fmt.Fprintln(env.Stdout, dir)
					return nil
				},
			},
			{
				Name:  "id",
				Usage: "print the extension's pinned ID",
				Action: func(c *cli.Context) error {
					fmt.Fprintln(env.Stdout, extension.ID)
					return nil
				},
			},
		},
	}
}
