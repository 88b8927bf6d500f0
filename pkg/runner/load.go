package runner

import "github.com/bua-dev/bua/pkg/flow"

// Load loads the flow at path as this run will run it: besides flow.Load's
// checks, a flow that reads vars.base_url is invalid when nothing sets it,
// neither its serve: key nor the run (Serve, or Vars["base_url"]). Its
// sub-flows are not held to it: a caller's with: sets what they read.
func (r *Runner) Load(path string) (*flow.Flow, error) {
	f, err := flow.Load(path)
	if err != nil {
		return nil, err
	}
	if _, set := r.Vars["base_url"]; len(f.Unserved) > 0 && r.Serve == "" && !set {
		return nil, &flow.LoadError{Diags: f.Unserved, Warnings: f.Warnings}
	}
	return f, nil
}
