package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

func init() { register(newDescribeCommand) }

func newDescribeCommand(env *Env) *cli.Command {
	cmd := actionCommand("describe", "print readable locators for an element: role and name, label, test id, id, CSS, text", "TARGET|--role ROLE", targetFlags(),
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
				fmt.Fprint(env.Stdout, describeText(r))
				return nil
			})
		})
	cmd.Description = "Prints the element (tag, input type, autocomplete, label, frame), then its\n" +
		"locators best first, one a line: those that match it alone, then those\n" +
		"that match several, with how many and its nth among them. A role locator\n" +
		"is what --role ROLE --name NAME resolves: `bua click --role button --name\n" +
		"\"Sign in\"`. Ids that look generated and nth-child chains are never used."
	return cmd
}

// describeText is describe's result as the command prints it.
func describeText(r protocol.DescribeResult) string {
	var b strings.Builder
	b.WriteString("<" + r.Tag)
	if r.InputType != "" {
		b.WriteString(" type=" + r.InputType)
	}
	if r.Autocomplete != "" {
		b.WriteString(" autocomplete=" + r.Autocomplete)
	}
	b.WriteString(">")
	if r.Label != "" {
		fmt.Fprintf(&b, " label %q", r.Label)
	}
	if r.Frame != "" {
		fmt.Fprintf(&b, " in frame %q", r.Frame)
	}
	b.WriteByte('\n')
	if len(r.Locators) == 0 {
		b.WriteString("(no locator finds it: use its uid)\n")
	}
	for _, l := range r.Locators {
		switch l.By {
		case "role":
			b.WriteString("role " + l.Role)
			if l.Name != "" {
				fmt.Fprintf(&b, " name %q", l.Name)
			}
		case "label":
			fmt.Fprintf(&b, "label %q", l.Label)
		case "text":
			fmt.Fprintf(&b, "text %q", l.Text)
		default:
			b.WriteString(l.By + " " + l.Selector)
		}
		if l.Count > 1 && l.Nth != nil {
			fmt.Fprintf(&b, " (%d matches, nth %d)", l.Count, *l.Nth)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
