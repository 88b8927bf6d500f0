package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() { register(newDescribeCommand) }

func newDescribeCommand(env *Env) *cli.Command {
	cmd := actionCommand("describe", "print an element's readable locators, best first, with how many elements each matches", "TARGET|--role ROLE", targetFlags(),
		func(c *cli.Context) error {
			t, rest, err := target(c)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError(fmt.Sprintf("describe takes one TARGET (or --role ROLE [--name NAME]), got extra %q", rest[0]))
			}
			return runAction(c, env, protocol.Describe(t), func(res json.RawMessage) error {
				var r protocol.DescribeResult
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, render.Describe(r))
				return nil
			})
		})
	cmd.Description = "The first line is the element: its tag, input type, autocomplete, label and\n" +
		"frame. Each line after it is a locator, best first (role and name, label,\n" +
		"test id, an id that does not look generated, a short CSS path, text), with\n" +
		"how many elements it matches now: (unique) is one. Flows and recordings use\n" +
		"the best unique one. Needs an extension that lists the describe feature."
	return cmd
}
