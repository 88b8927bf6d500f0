// Package flow is a bua flow as data, and its loader: YAML files of
// protocol v4 actions with expressions, branches, error-contract retries
// and assertions (the flow format is README §Writing flows; the error
// contract is docs/protocol.md#errors). It runs nothing: pkg/runner is
// the engine that runs what Load builds.
//
//   - load.go decodes the file into yaml.Node (keeping each node's line and
//     column), validates it, and builds the flow: it holds Load and the
//     flow-level keys; load_steps.go parses each step and the control steps
//     (if, assert, set, run, repeat, retry); load_action.go parses action
//     params and checks each action against the protocol schema, with
//     placeholders standing in for expressions; load_values.go reads
//     scalars, durations, expressions and templates; load_vars.go checks
//     the vars expressions read. Every problem becomes a Diagnostic
//     (diag.go) with file:line:col; Load returns them all in a *LoadError.
//     Every expression compiles at load (pkg/flow/expr).
//   - steps.go holds the step types: ActionStep and IfStep, AssertStep,
//     SetStep, RunStep, RepeatStep, SleepStep, LogStep, FailStep, each with
//     the StepMeta every step carries. Composite steps hold their children.
//   - policy.go holds the policies a flow sets (retry, obstacles, dialogs);
//     select.go flow tags and the --tag/--exclude-tag Selection.
package flow
