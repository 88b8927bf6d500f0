package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/render"
)

func init() {
	register(func(env *Env) *cli.Command { return newDescribeCommand(env, nil) }, "describe")
}

// describeOptions is `bua describe`'s command line.
type describeOptions struct {
	actionOptions
	Target protocol.Target
}

func newDescribeCommand(env *Env, runF func(*describeOptions) error) *cli.Command {
	o := &describeOptions{}
	cmd := actionCommand("describe", "print an element's readable locators, best first, with how many elements each matches", "TARGET|--role ROLE", targetFlags(),
		func(c *cli.Context) (err error) {
			if o.Target, err = oneTarget(c); err != nil {
				return err
			}
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runDescribe)
		})
	cmd.Description = "The first line is the element: its tag, input type, autocomplete, label and\n" +
		"frame. Each line after it is a locator, best first (role and name, label,\n" +
		"test id, an id that does not look generated, a short CSS path, text), with\n" +
		"how many elements it matches now: (unique) is one. Flows and recordings use\n" +
		"the best unique one. Needs an extension that lists the describe feature."
	return cmd
}

func runDescribe(o *describeOptions) error {
	return o.runAction(protocol.Describe(o.Target), func(res json.RawMessage) error {
		var r protocol.DescribeResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		fmt.Fprintln(o.env.Stdout, render.Describe(r))
		return nil
	})
}
