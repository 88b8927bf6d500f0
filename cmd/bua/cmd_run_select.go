package main

import (
	"fmt"
	"strings"

	"github.com/bua-dev/bua/pkg/flow"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// selectFlows applies `bua run`'s selection to files: --tag and
// --exclude-tag first (flow.Selection: any --tag, none of
// --exclude-tag), then --shard over the flows they kept, so each CI job
// gets a share of the selected flows.
func (o *runOptions) selectFlows(files []string) ([]flow.FlowInfo, error) {
	sel := flow.Selection{Tags: o.Tags, Exclude: o.ExcludeTags}
	for _, t := range append(append([]string{}, sel.Tags...), sel.Exclude...) {
		if err := flow.CheckTag(t); err != nil {
			return nil, fmt.Errorf("--tag/--exclude-tag: %v", err)
		}
	}
	infos := flow.Select(files, sel)
	if len(infos) == 0 {
		return nil, fmt.Errorf("no flow among the %d given matches %s (see their tags with bua run --list FLOW...)", len(files), sel)
	}
	s := o.Shard
	if s == "" {
		return infos, nil
	}
	i, n, err := parseShard(s)
	if err != nil {
		return nil, err
	}
	byFile := map[string]flow.FlowInfo{}
	var kept []string
	for _, info := range infos {
		byFile[info.File] = info
		kept = append(kept, info.File)
	}
	infos = infos[:0]
	for _, f := range report.Shard(kept, i, n) {
		infos = append(infos, byFile[f])
	}
	return infos, nil
}

// listFlows prints `bua run --list`: each flow that would run with its
// file and tags (--json: [{name, file, tags}]). A flow whose name or tags
// cannot be read is listed too, as the run would report it invalid; its
// problems go to stderr and the exit is 2.
func (o *runOptions) listFlows(infos []flow.FlowInfo) error {
	env := o.env
	code := exitOK
	for _, info := range infos {
		if info.Err != nil {
			fmt.Fprintln(env.Stderr, info.Err)
			code = exitUsage
		}
	}
	if o.JSON {
		if infos == nil {
			infos = []flow.FlowInfo{}
		}
		if err := printJSON(env, infos); err != nil {
			return err
		}
		return exit(code)
	}
	ios := o.streams()
	tb := ios.NewTable("flow", "file", "tags")
	for _, info := range infos {
		tags := strings.Join(info.Tags, ",")
		if info.Err != nil {
			tags = "(invalid: see bua lint)"
		}
		tb.AddRow(info.Name, info.File, tags)
	}
	if err := tb.Render(); err != nil {
		return err
	}
	return exit(code)
}
