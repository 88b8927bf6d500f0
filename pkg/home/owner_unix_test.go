//go:build unix

package home

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// otherUID owns the files of "another local user" in these tests: a uid
// no account here has. Giving a file to it takes root (chown); the rows
// that need it say so, and e2e/faults runs the same cases with two real
// non-root users.
const otherUID = 61001

// giveAway makes path another user's (otherUID), as root can.
func giveAway(t *testing.T, path string) {
	t.Helper()
	if err := os.Lchown(path, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
}

// shortTemp is a temp dir with a short path, so a socket under it fits
// in sun_path.
func shortTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "bh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// listen puts a live socket of this user's at d.Link().
func listen(t *testing.T, d Dirs) {
	t.Helper()
	ln, err := ListenLink(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestCheckLink: what the client checks before it dials, on real files.
// A missing directory or socket means no daemon (fs.ErrNotExist); a way
// that is not the user's alone is an *UnsafeError naming the path, its
// owner and what to do, and never a command that deletes another user's
// files; a directory of the user's own that is too open names its chmod,
// and is tightened to 0700 when the caller asks (the client, before it
// dials).
func TestCheckLink(t *testing.T) {
	me := "uid " + strconv.Itoa(os.Getuid())
	for _, tc := range []struct {
		name string
		root bool // chowns to otherUID
		// set makes the files under base and returns the runtime dir.
		set func(t *testing.T, base string) string
		// want are the error's substrings: nil for no error, "not exist"
		// for fs.ErrNotExist, "mode" then an error's own substrings for
		// an open dir of the user's own (no error when tightened), else
		// an *UnsafeError's.
		want []string
	}{
		{"no runtime dir", false, func(t *testing.T, base string) string {
			return filepath.Join(base, "run")
		}, []string{"not exist"}},
		{"no socket yet", false, func(t *testing.T, base string) string {
			mkdir(t, filepath.Join(base, "run"), 0o700)
			return filepath.Join(base, "run")
		}, []string{"not exist"}},
		{"own dir and socket", false, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o700)
			listen(t, Dirs{Runtime: run})
			return run
		}, nil},
		{"dir open to others", false, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o755)
			listen(t, Dirs{Runtime: run})
			return run
		}, []string{"mode", "has mode 0755, open to other local users", "run `chmod 700 "}},
		{"dir open to the group", false, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o710)
			return run
		}, []string{"mode", "has mode 0710", "run `chmod 700 "}},
		{"symlink to own 0700 dir", false, func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			mkdir(t, real, 0o700)
			listen(t, Dirs{Runtime: real})
			link := filepath.Join(base, "run")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, []string{"is a symlink", "XDG_RUNTIME_DIR"}},
		{"a file, not a dir", false, func(t *testing.T, base string) string {
			f := filepath.Join(base, "run")
			if err := os.WriteFile(f, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return f
		}, []string{"is not a directory"}},
		{"another user's dir at 0777", true, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o777)
			giveAway(t, run)
			return run
		}, []string{"belongs to another local user, uid 61001", "not to you, " + me, "you cannot remove another user's files", "XDG_RUNTIME_DIR", "BUA_HOME"}},
		{"another user's dir at 0700", true, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o700)
			giveAway(t, run)
			return run
		}, []string{"belongs to another local user, uid 61001"}},
		{"another user's symlink", true, func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			mkdir(t, real, 0o700)
			link := filepath.Join(base, "run")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			giveAway(t, link)
			return link
		}, []string{"is a symlink that belongs to another local user, uid 61001"}},
		{"another user's socket in own dir", true, func(t *testing.T, base string) string {
			run := filepath.Join(base, "run")
			mkdir(t, run, 0o700)
			listen(t, Dirs{Runtime: run})
			giveAway(t, filepath.Join(run, "bua.sock"))
			return run
		}, []string{"the socket ", "bua.sock belongs to another local user, uid 61001"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("giving a file to another uid takes root; e2e/faults TestSquat runs this case with two real users")
			}
			base := shortTemp(t)
			run := tc.set(t, base)
			d := Dirs{Config: filepath.Join(base, "c"), State: filepath.Join(base, "s"), Runtime: run}
			checkErr(t, d.CheckLink(false), tc.want)
			if len(tc.want) > 0 && tc.want[0] == "mode" {
				if err := d.CheckLink(true); err != nil && !IsNotExist(err) {
					t.Fatalf("tightened: %v", err)
				}
				if fi, _ := os.Stat(run); fi.Mode().Perm() != 0o700 {
					t.Fatalf("tightened to %v, want 0700", fi.Mode().Perm())
				}
			}
		})
	}
}

// checkErr matches err against want as TestCheckLink's rows describe.
func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	switch {
	case want == nil:
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
	case want[0] == "not exist":
		if !IsNotExist(err) {
			t.Fatalf("err = %v, want fs.ErrNotExist", err)
		}
	case want[0] == "mode":
		var ue *UnsafeError
		if err == nil || errors.As(err, &ue) || IsNotExist(err) {
			t.Fatalf("err = %v (%T), want an error naming the mode", err, err)
		}
		for _, w := range want[1:] {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error lacks %q:\n%s", w, err)
			}
		}
	default:
		var ue *UnsafeError
		if !errors.As(err, &ue) {
			t.Fatalf("err = %v (%T), want *UnsafeError", err, err)
		}
		for _, w := range want {
			if !strings.Contains(ue.Error(), w) {
				t.Errorf("error lacks %q:\n%s", w, ue.Error())
			}
		}
		for _, bad := range []string{"rm ", "rmdir", "sudo", "chown"} {
			if strings.Contains(ue.Fix, bad) {
				t.Errorf("fix suggests %q: %s", bad, ue.Fix)
			}
		}
	}
}

// TestEnsure: the daemon makes its home at 0700 and tightens the user's
// own directories, but never serves from a symlink or another user's
// directory, and leaves that directory as it found it (root's chmod would
// succeed and leave it theirs).
func TestEnsure(t *testing.T) {
	t.Run("fresh XDG dirs", func(t *testing.T) {
		base := shortTemp(t)
		d := Dirs{Config: filepath.Join(base, "c", "bua"), State: filepath.Join(base, "s", "bua"), Runtime: filepath.Join(base, "s", "bua", "run")}
		if err := d.Ensure(); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{d.Config, d.State, d.Runtime} {
			if fi, err := os.Lstat(dir); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
				t.Fatalf("%s: %v, %v", dir, fi.Mode(), err)
			}
		}
		listen(t, d)
		if err := d.CheckLink(false); err != nil {
			t.Fatalf("CheckLink after Ensure: %v", err)
		}
	})
	t.Run("own open dirs are tightened", func(t *testing.T) {
		base := shortTemp(t)
		h := filepath.Join(base, "h")
		mkdir(t, h, 0o755)
		d := Dirs{Config: h, State: h, Runtime: h}
		if err := d.Ensure(); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(h); fi.Mode().Perm() != 0o700 {
			t.Fatalf("mode %v, want 0700", fi.Mode().Perm())
		}
	})
	t.Run("own symlinked config dir is followed", func(t *testing.T) {
		// A dotfiles manager's symlink: not on the way to the socket.
		base := shortTemp(t)
		real := filepath.Join(base, "dotfiles")
		mkdir(t, real, 0o700)
		cfg := filepath.Join(base, "c")
		if err := os.Symlink(real, cfg); err != nil {
			t.Fatal(err)
		}
		d := Dirs{Config: cfg, State: filepath.Join(base, "s"), Runtime: filepath.Join(base, "s", "run")}
		if err := d.Ensure(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("symlinked BUA_HOME", func(t *testing.T) {
		base := shortTemp(t)
		real := filepath.Join(base, "real")
		mkdir(t, real, 0o700)
		h := filepath.Join(base, "h")
		if err := os.Symlink(real, h); err != nil {
			t.Fatal(err)
		}
		d := Dirs{Config: h, State: h, Runtime: h}
		checkErr(t, d.Ensure(), []string{"BUA_HOME " + h + " is a symlink", "set BUA_HOME to the directory it leads to, " + real})
	})
	t.Run("another user's runtime dir", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another uid takes root; e2e/faults TestSquat runs this case with two real users")
		}
		base := shortTemp(t)
		run := filepath.Join(base, "run")
		mkdir(t, run, 0o777)
		giveAway(t, run)
		d := Dirs{Config: filepath.Join(base, "c"), State: filepath.Join(base, "s"), Runtime: run}
		checkErr(t, d.Ensure(), []string{"bua's runtime directory " + run + " belongs to another local user, uid 61001"})
		fi, err := os.Lstat(run)
		owner, _, _ := inspect(run, fi)
		if err != nil || fi.Mode().Perm() != 0o777 || owner != otherUID {
			t.Fatalf("Ensure changed the other user's dir: %v owner %d, %v", fi.Mode(), owner, err)
		}
	})
	t.Run("another user's state dir", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("giving a file to another uid takes root; e2e/faults TestSquat runs this case with two real users")
		}
		base := shortTemp(t)
		s := filepath.Join(base, "s")
		mkdir(t, s, 0o700)
		giveAway(t, s)
		d := Dirs{Config: filepath.Join(base, "c"), State: s, Runtime: filepath.Join(base, "r")}
		checkErr(t, d.Ensure(), []string{"bua's state directory " + s + " belongs to another local user, uid 61001"})
	})
}

// TestSocketShortPath: a runtime dir too deep for sun_path moves the
// socket to TMPDIR/bua-UID, and that directory is checked like the rest:
// it is the predictable path in a shared directory.
func TestSocketShortPath(t *testing.T) {
	tmp := shortTemp(t)
	t.Setenv("TMPDIR", tmp)
	base := shortTemp(t)
	deep := filepath.Join(base, strings.Repeat("d", 120))
	d := Dirs{Config: deep, State: deep, Runtime: deep}
	short := filepath.Join(tmp, "bua-"+strconv.Itoa(os.Getuid()))
	if got := filepath.Dir(d.Link()); got != short {
		t.Fatalf("socket dir = %s, want %s", got, short)
	}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	listen(t, d)
	if err := d.CheckLink(false); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(short, 0o777); err != nil {
		t.Fatal(err)
	}
	checkErr(t, d.CheckLink(false), []string{"mode", "the socket's directory " + short + " has mode 0777"})
	if os.Geteuid() == 0 {
		giveAway(t, short)
		checkErr(t, d.CheckLink(true), []string{"the socket's directory " + short + " belongs to another local user, uid 61001", "BUA_HOME to a new directory of yours with a short path"})
		checkErr(t, d.Ensure(), []string{"belongs to another local user, uid 61001"})
		if fi, _ := os.Lstat(short); fi.Mode().Perm() != 0o777 {
			t.Fatalf("the other user's dir was changed to %v", fi.Mode().Perm())
		}
	}
}

// TestResolve: without XDG_RUNTIME_DIR the runtime dir is under the
// user's own state dir, never a shared /tmp path.
func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Dirs
	}{
		{map[string]string{"HOME": "/home/a"}, Dirs{"/home/a/.config/bua", "/home/a/.local/state/bua", "/home/a/.local/state/bua/run"}},
		{map[string]string{"HOME": "/home/a", "XDG_RUNTIME_DIR": "/run/user/7"}, Dirs{"/home/a/.config/bua", "/home/a/.local/state/bua", "/run/user/7/bua"}},
		{map[string]string{"HOME": "/home/a", "XDG_STATE_HOME": "/st"}, Dirs{"/home/a/.config/bua", "/st/bua", "/st/bua/run"}},
		{map[string]string{"HOME": "/home/a", "BUA_HOME": "/b", "XDG_RUNTIME_DIR": "/run/user/7"}, Dirs{"/b", "/b", "/b"}},
	} {
		got, err := Resolve(func(k string) string { return tc.env[k] })
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%v) = %+v, %v; want %+v", tc.env, got, err, tc.want)
		}
	}
}

// TestCheckServer: the client accepts a daemon of its own uid. A daemon
// of another uid is refused by e2e/faults TestSquat, which runs the
// listener as a second real user.
func TestCheckServer(t *testing.T) {
	base := shortTemp(t)
	d := Dirs{Config: base, State: base, Runtime: base}
	listen(t, d)
	c, err := net.Dial("unix", d.Link())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := d.CheckServer(c); err != nil {
		t.Fatalf("own daemon refused: %v", err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	tc, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	checkErr(t, d.CheckServer(tc), []string{"cannot tell which user answers"})
}

// TestWhoIs: an owner is named by uid, and by name when the system has
// one.
func TestWhoIs(t *testing.T) {
	if got := principal(0).String(); got != "uid 0 (root)" {
		t.Errorf("principal(0) = %q", got)
	}
	if got := principal(otherUID).String(); got != "uid 61001" {
		t.Errorf("principal(%d) = %q, want no name (this uid must have no account here)", otherUID, got)
	}
}
