package main

import (
	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
)

func init() { register(newSchemaCommand, "schema") }

func newSchemaCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:     "schema",
		Category: catSetup,
		Usage:    "print the protocol v4 JSON Schema (the single source both sides validate with)",
		Action: func(c *cli.Context) error {
			_, err := env.Stdout.Write(extension.Schema)
			return err
		},
	}
}
