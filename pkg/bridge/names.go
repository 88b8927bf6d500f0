package bridge

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bua-dev/bua/pkg/bridge/linkwire"
	"github.com/bua-dev/bua/pkg/home"
)

// Browser names. The pool keys its connections by the name of the browser
// they come from (docs/architecture.md#several-browsers):
//
//   - user: the person's Chrome paired with `bua pair` (home.Dirs.TokenFile);
//   - a name of the person's own choosing (`bua pair --name work`): another
//     Chrome, or another profile, paired with a token of its own
//     (home.Dirs.PairingsDir); the daemon knows it by its token at hello;
//   - managed, managed-1 … managed-15: the managed browsers this daemon
//     launches, each with its own profile, extension copy, pairing token and
//     record (managedPaths); managed is the one every command used so far.
//
// auto is no browser but the policy that picks one (LaunchPolicyFor):
// user's when it is connected, else managed. extension is user's old alias.

// Selection names the browser that serves a request: auto, or a browser's
// name. It is the link's own type (linkwire.Selection), which a request
// carries as it is.
type Selection = linkwire.Selection

// The selections every daemon knows.
const (
	SelectAuto    Selection = "auto"
	SelectUser    Selection = "user"
	SelectManaged Selection = "managed"
)

// MaxManaged is how many managed browsers one daemon runs at most:
// managed and managed-1 … managed-15. Each costs about 200 MB (PSS of
// its process group, BENCHMARKS.md §`bua run --parallel`); the cap bounds
// what a typo in a script can launch.
const MaxManaged = 16

// maxNameLen bounds a pairing's name.
const maxNameLen = 32

// pairingName is the syntax of a user pairing's name: short, lowercase,
// safe in a file name and a table.
var pairingName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// reserved are the names of today's policies and browsers, which no
// pairing may take.
var reserved = []string{string(SelectAuto), string(SelectUser), string(SelectManaged), "extension"}

// ManagedName is the name of the i-th managed browser (0-based): managed,
// then managed-1, managed-2, …: a parallel run's worker i uses it.
func ManagedName(i int) string {
	if i == 0 {
		return string(SelectManaged)
	}
	return string(SelectManaged) + "-" + strconv.Itoa(i)
}

// managedIndex is the index of a managed browser's name (ManagedName's
// inverse), and false for any other name.
func managedIndex(name string) (int, bool) {
	if name == string(SelectManaged) {
		return 0, true
	}
	s, ok := strings.CutPrefix(name, string(SelectManaged)+"-")
	if !ok || s == "" || s[0] == '0' {
		return 0, false
	}
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i >= MaxManaged {
		return 0, false
	}
	return i, true
}

// IsManaged reports whether name is one of the managed browsers'.
func IsManaged(name string) bool {
	_, ok := managedIndex(name)
	return ok
}

// kindOf is the pairing kind of a browser's name.
func kindOf(name string) Kind {
	if IsManaged(name) {
		return KindManaged
	}
	return KindUser
}

// CheckPairingName says what is wrong with name as the name of a user
// pairing (`bua pair --name`), or nil: 1 to 32 characters, lowercase
// letters, digits and '-', starting with a letter; not auto, user,
// managed, extension, nor managed-N (the managed browsers' names).
func CheckPairingName(name string) error {
	switch {
	case name == "":
		return errors.New("a pairing's name cannot be empty")
	case len(name) > maxNameLen || !pairingName().MatchString(name):
		return fmt.Errorf("%q is not a pairing name: use 1 to %d lowercase letters, digits and '-', starting with a letter (work, home-2)", name, maxNameLen)
	case slices.Contains(reserved, name):
		return fmt.Errorf("%q is reserved for --browser's own choice (auto, user, managed): pick another name, or run `bua pair` without --name for your default Chrome", name)
	case strings.HasPrefix(name, string(SelectManaged)+"-"):
		return fmt.Errorf("%q is reserved: managed-N names bua's own managed browsers; pick another name", name)
	}
	return nil
}

// ParseSelection reads --browser: auto (or empty), user (or its alias
// extension), managed, managed-1 … managed-15, or a pairing's name. It
// checks the syntax only; whether a pairing of that name exists is the
// daemon's to say (Daemon.checkBrowser), with the names it knows.
func ParseSelection(s string) (Selection, error) {
	switch s {
	case "", string(SelectAuto):
		return SelectAuto, nil
	case string(SelectUser), "extension":
		return SelectUser, nil
	}
	if IsManaged(s) {
		return Selection(s), nil
	}
	if strings.HasPrefix(s, string(SelectManaged)+"-") {
		return "", fmt.Errorf("--browser %q: the managed browsers are managed and managed-1 … managed-%d", s, MaxManaged-1)
	}
	if CheckPairingName(s) != nil {
		return "", fmt.Errorf("--browser %q: want auto, user, managed, managed-1 … managed-%d, or the name of a pairing (`bua pair --name NAME`)", s, MaxManaged-1)
	}
	return Selection(s), nil
}

// CheckBrowser reads --browser as ParseSelection does, and then checks
// that the name is one the home dirs knows: auto, user, managed,
// managed-1 … managed-15, or a named pairing whose token file exists. Its
// error lists them, with how to pair a name.
func CheckBrowser(dirs home.Dirs, s string) (Selection, error) {
	sel, err := ParseSelection(s)
	if err == nil && (sel == SelectAuto || sel == SelectUser || IsManaged(string(sel))) {
		return sel, nil
	}
	if err == nil {
		if _, serr := os.Stat(PairingTokenFile(dirs, string(sel))); serr == nil {
			return sel, nil
		}
	}
	valid := append([]string{"auto", "user", "managed", fmt.Sprintf("managed-1 … managed-%d", MaxManaged-1)}, PairingNames(dirs.PairingsDir())...)
	return "", fmt.Errorf("it must be one of %s (or extension, user's alias), or left out for auto; a name of your own is a Chrome paired with `bua pair --name NAME`", strings.Join(valid, ", "))
}

// PairingTokenFile is the token file of the user pairing named name: the
// default pairing's (home.Dirs.TokenFile) for user, else its own in
// home.Dirs.PairingsDir. name must have passed CheckPairingName or be
// user.
func PairingTokenFile(dirs home.Dirs, name string) string {
	if name == string(SelectUser) {
		return dirs.TokenFile()
	}
	return filepath.Join(dirs.PairingsDir(), name)
}

// PairingNames lists the named user pairings of a home (the files of
// dir, home.Dirs.PairingsDir, whose names are pairing names), sorted; a
// missing dir is none.
func PairingNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && CheckPairingName(e.Name()) == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// compareBrowsers orders browsers' names as status lists them: user, the
// named pairings by name, then the managed browsers by index.
func compareBrowsers(a, b string) int {
	rank := func(n string) (int, int) {
		if n == string(SelectUser) {
			return 0, 0
		}
		if i, ok := managedIndex(n); ok {
			return 2, i
		}
		return 1, 0
	}
	ra, ia := rank(a)
	rb, ib := rank(b)
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := cmp.Compare(ia, ib); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
