package flowwriter

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bua-dev/bua/pkg/home"
)

// CheckPath reports whether a flow can be written at path: its folder
// exists and takes a new file, and path is not a folder. A producer checks
// before it records, so that a recording is not made only to be lost when
// it ends. The error names the path and what to do; it is the user's to
// fix.
func CheckPath(path string) error {
	if path == "" {
		return fmt.Errorf("no file named: give the path of the flow to write, e.g. flows/signin.yaml")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder: name a file in it, e.g. %s", path, filepath.Join(path, "recorded.yaml"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil && os.IsNotExist(err):
		return fmt.Errorf("the folder %s does not exist: create it (%s) or name a file in a folder that does", dir, mkdirCommand(dir))
	case err != nil:
		return fmt.Errorf("the folder of %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder, so %s cannot be written", dir, path)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write a file in %s (%v): name a file in a folder you may write to", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// WriteFile writes the flow to path private to the user (0600; on
// Windows a protected DACL for the user, SYSTEM and Administrators:
// home.WriteFile), atomically: a temporary file in the same folder
// renamed over path, so path holds either what it held before or the
// whole flow, never part of one. Private because a recording holds what
// was typed outside password fields and where the person's browser went,
// which are theirs to share. A path that is a symbolic link writes the
// file it points to. On an error path is left as it was, and the error
// names it.
func (f *Flow) WriteFile(path string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := home.WriteFile(path, f.YAML); err != nil {
		return fmt.Errorf("writing the flow to %s: %w", path, err)
	}
	return nil
}
