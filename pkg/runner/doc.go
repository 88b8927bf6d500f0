// Package runner loads and runs bua flows: YAML files of protocol v4
// actions with expressions, branches, error-contract retries, assertions
// and CI reports (the flow format is docs/flows.md; the error
// contract is docs/protocol.md#errors).
//
// Two layers (Maestro's YAML classes -> Command; chromedp's Tasks):
//   - load.go decodes the file into yaml.Node (keeping each node's line and
//     column), validates it, and builds domain steps: it holds Load and the
//     flow-level keys; load_steps.go parses each step and the control steps
//     (if, assert, set, run, repeat, retry); load_action.go parses action
//     params and checks each action against the protocol schema, with
//     placeholders standing in for expressions; load_values.go reads
//     scalars, durations, expressions and templates. Every problem becomes
//     a Diagnostic (diag.go) with file:line:col; Load returns them all in a
//     *LoadError before anything runs. Every expression compiles at load
//     (expr.go).
//   - Steps are small types with Run(ctx, *State): ActionStep
//     (steps_action.go) and IfStep, AssertStep, SetStep, RunStep,
//     RepeatStep, SleepStep, LogStep, FailStep (steps_control.go). Composite
//     steps hold their children.
//
// policy.go holds the error contract as policy (retry, re-extract recovery,
// domain_blocked as terminal) and the obstacle policy; flaky.go which failed
// flows a rerun may fix (Runner.Retries) and what is flaky; select.go flow
// tags and the --tag/--exclude-tag Selection. run.go has the
// Runner (suite and flow execution, hooks, the current tab) and State.
// report.go gives the summary as rows (the CLI renders them), JUnit XML and the JSON report;
// artifacts.go saves a failed step's screenshot and markdown; secrets.go masks secrets everywhere they would be
// printed; serve.go serves a static folder on loopback for a run.
//
// The runner reaches the browser only through protocol.Requester; the
// runnertest subpackage is a scripted fake for tests.
package runner
