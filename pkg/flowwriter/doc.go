// Package flowwriter turns a log of successful browser actions into a flow
// file that `bua lint` accepts and `bua run` replays with no agent and no
// person: the flow writer of `bua mcp --record` and `bua record`. docs/record.md, "How a recording becomes a flow", is the
// user's account of its rules.
//
// A producer logs one Entry per action that succeeded: the protocol action
// as sent, its result, the describe result (protocol.DescribeResult) of the
// element the action targeted, and the page's URL before and after. Write
// (or Compile) turns the log into YAML:
//   - a uid becomes a locator a person can read (locate.go): a unique role
//     and name, a label, a test id, an id, a short CSS path; nth only when
//     nothing is unique;
//   - text typed into a password field becomes a secret var read from a
//     BUA_ environment variable named after the field's label (secrets.go);
//     the value never reaches the file;
//   - each navigation is followed by a wait_for on the new URL (urls.go),
//     written against vars.base for the recording's first origin;
//   - reads (extract, screenshot, get_tabs, describe, get_trace) are left
//     out, and the obstacles an extract saw and the recording went on past
//     set the flow's obstacle policy;
//   - a header comment says how the file was made and which environment
//     variables a replay needs.
//
// The output is deterministic: the same header and entries give the same
// bytes (yaml.v3 nodes, keys in a fixed order).
package flowwriter
