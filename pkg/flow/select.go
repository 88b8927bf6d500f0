package flow

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// tagRe is a tag's syntax: letters, digits, '-', '_' and '.', not starting
// with '-' (it would read as a flag) and without spaces or commas (the CLI
// splits --tag values on commas).
var tagRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })

// CheckTag returns an error naming tag when it is not a valid tag, for the
// CLI's --tag and --exclude-tag.
func CheckTag(tag string) error {
	if !tagRe().MatchString(tag) {
		return fmt.Errorf("%q is not a tag (expected letters, digits, -, _ and ., such as smoke or checkout-eu)", tag)
	}
	return nil
}

// tags reads a flow's `tags: [smoke, checkout]`: a list of distinct tags.
func (fs *fileScope) tags(n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		fs.errf(n, "tags: expected a list such as [smoke, checkout], got %s", kindName(n))
		return nil
	}
	var out []string
	for _, t := range n.Content {
		s := fs.str(t, "tags entry")
		if s == "" {
			continue
		}
		if err := CheckTag(s); err != nil {
			fs.errf(t, "tags: %v", err)
			continue
		}
		if slices.Contains(out, s) {
			fs.errf(t, "tags: %q is listed twice", s)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Selection picks flows by their tags (`bua run --tag T --exclude-tag X`):
// a flow runs when it has any of Tags (or Tags is empty) and none of
// Exclude. Tags compare exactly, case included.
type Selection struct {
	Tags, Exclude []string
}

// Match reports whether a flow with tags is selected.
func (sel Selection) Match(tags []string) bool {
	for _, t := range tags {
		if slices.Contains(sel.Exclude, t) {
			return false
		}
	}
	if len(sel.Tags) == 0 {
		return true
	}
	for _, t := range tags {
		if slices.Contains(sel.Tags, t) {
			return true
		}
	}
	return false
}

// FlowInfo is what `bua run --list` shows of a flow file: its name and
// tags, read without loading its steps or sub-flows.
type FlowInfo struct {
	Name string   `json:"name"`
	File string   `json:"file"`
	Tags []string `json:"tags"`
	// Err is why the name or tags could not be read: the loader's
	// *LoadError (file:line:col) for the whole file.
	Err error `json:"-"`
}

// ReadInfo reads file's name (default: the file name) and tags.
func ReadInfo(file string) FlowInfo {
	info := FlowInfo{Name: DefaultName(file), File: file, Tags: []string{}}
	data, err := os.ReadFile(file)
	var doc yaml.Node
	if err == nil {
		err = yaml.Unmarshal(data, &doc)
	}
	if err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		info.Err = loadErr(file)
		return info
	}
	fs := &fileScope{l: &loader{}, file: file, flow: &Flow{File: file, Dir: filepath.Dir(file)}}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k, v := root.Content[i], root.Content[i+1]; k.Value {
		case "name":
			if name := fs.str(v, "name"); name != "" {
				info.Name = name
			}
		case "tags":
			if tags := fs.tags(v); tags != nil {
				info.Tags = tags
			}
		}
	}
	if len(fs.l.diags) > 0 {
		fs.l.diags.sort()
		info.Err = &LoadError{Diags: fs.l.diags}
	}
	return info
}

// loadErr is Load's error for a file whose header would not read (it
// names every problem with its position), or a plain one if Load passes.
func loadErr(file string) error {
	if _, err := Load(file); err != nil {
		return err
	}
	return fmt.Errorf("%s: cannot read the flow's name and tags", file)
}

// Select returns the flows of files that sel picks, in order. A file
// whose name or tags cannot be read is kept (with Err set): it cannot be
// shown not to match, and the run reports it invalid instead of dropping
// it silently.
func Select(files []string, sel Selection) []FlowInfo {
	var out []FlowInfo
	for _, f := range files {
		info := ReadInfo(f)
		if info.Err != nil || sel.Match(info.Tags) {
			out = append(out, info)
		}
	}
	return out
}

// String is the selection as `bua run` flags, for messages.
func (sel Selection) String() string {
	var parts []string
	for _, t := range sel.Tags {
		parts = append(parts, "--tag "+t)
	}
	for _, t := range sel.Exclude {
		parts = append(parts, "--exclude-tag "+t)
	}
	return strings.Join(parts, " ")
}
