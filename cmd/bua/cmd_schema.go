package main

import (
	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
)

func init() {
	register(func(env *Env) *cli.Command { return newSchemaCommand(env, nil) }, "schema")
}

// schemaOptions is `bua schema`'s command line: the global flags alone.
type schemaOptions struct {
	globalOptions
}

func newSchemaCommand(env *Env, runF func(*schemaOptions) error) *cli.Command {
	o := &schemaOptions{}
	return &cli.Command{
		Name:     "schema",
		Category: catSetup,
		Usage:    "print the protocol v4 JSON Schema (the single source both sides validate with)",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			return runWith(o, runF, runSchema)
		},
	}
}

func runSchema(o *schemaOptions) error {
	_, err := o.env.Stdout.Write(extension.Schema)
	return err
}
