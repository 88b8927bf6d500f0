// Package runner is the engine that runs bua flows (loaded by pkg/flow)
// against a protocol.Requester, and the reports of a run.
//
//   - run.go has the Runner (suite and flow execution, hooks, the current
//     tab) and State, the expression Scope of a running flow; exec wraps
//     each step with the modifiers every step shares and runStep
//     (steps_control.go) runs it by its type: ActionStep in
//     steps_action.go, the control steps in steps_control.go.
//   - policy.go applies the error contract as policy (retry, re-extract
//     recovery, domain_blocked as terminal) and the obstacle policy;
//     flaky.go decides which failed flows a rerun may fix (Runner.Retries)
//     and what is flaky; parallel.go runs a suite on several workers.
//   - report.go gives the summary as rows (the CLI renders them), JUnit XML
//     and the JSON report; readjson.go and merge.go read reports back and
//     merge shards'; evidence.go and bundle.go gather and save a failed
//     step's evidence; secrets.go masks secrets everywhere they would be
//     printed; serve.go serves a static folder on loopback for a run.
//
// The runnertest subpackage is a scripted Requester for tests.
package runner
