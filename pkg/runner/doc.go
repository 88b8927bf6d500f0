// Package runner is the engine that runs bua flows (loaded by pkg/flow)
// against a protocol.Requester. It fills each run's records
// (pkg/runner/report) and emits what it does as events (pkg/runner/event)
// for sinks such as pkg/runner/progress; it prints nothing itself.
//
//   - run.go has the Runner, the run's settings; state.go the State of a
//     running flow, which is the expression Scope (pkg/flow/expr) of its
//     steps; exec.go runs steps with the modifiers every step shares, and
//     runStep (steps_control.go) runs each by its type: ActionStep in
//     steps_action.go, the control steps in steps_control.go.
//   - attempt.go runs a flow, again when it failed in a way a rerun may fix
//     (flaky.go decides which); suite.go runs a suite of files, parallel.go
//     the same on several workers; emit.go is what the engine reports.
//   - policy.go applies the error contract as policy (retry, re-extract
//     recovery, domain_blocked as terminal) and the obstacle policy,
//     handoff.go hands a page to a person, dialogs.go applies a flow's
//     dialog policy; evidence.go and bundle.go gather and save a failed
//     step's evidence; serve.go serves a static folder on loopback.
//
// The runnertest subpackage is a scripted Requester for tests.
package runner
