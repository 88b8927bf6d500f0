package home

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/bua-dev/bua/pkg/linkauth"
)

// setDACL gives path the DACL sddl describes ("D:P(A;OICI;FA;;;WD)"),
// with %s replaced by this user's SID.
func setDACL(t *testing.T, path, sddl string) {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString(strings.ReplaceAll(sddl, "%s", string(me)))
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Fatal(err)
	}
}

func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestResolveWindows: without BUA_HOME the dirs are under LOCALAPPDATA,
// never the roaming profile.
func TestResolveWindows(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Dirs
	}{
		{map[string]string{"LOCALAPPDATA": `C:\Users\a\AppData\Local`, "APPDATA": `C:\Users\a\AppData\Roaming`},
			Dirs{`C:\Users\a\AppData\Local\bua`, `C:\Users\a\AppData\Local\bua`, `C:\Users\a\AppData\Local\bua\run`}},
		{map[string]string{"LOCALAPPDATA": `C:\L`, "BUA_HOME": `D:\b`}, Dirs{`D:\b`, `D:\b`, `D:\b`}},
	} {
		got, err := Resolve(func(k string) string { return tc.env[k] })
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%v) = %+v, %v; want %+v", tc.env, got, err, tc.want)
		}
	}
}

// TestEnsureWindows: the daemon's dirs end private to the user (owner is
// the user, no access rule for anyone else), an own dir open to Everyone
// is tightened, and the check without tightening names icacls.
func TestEnsureWindows(t *testing.T) {
	base := t.TempDir()
	d := Dirs{Config: filepath.Join(base, "c"), State: filepath.Join(base, "s"), Runtime: filepath.Join(base, "r")}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{d.Config, d.State, d.Runtime} {
		if err := CheckPrivate(dir); err != nil {
			t.Errorf("after Ensure: %v", err)
		}
	}
	// Everyone (WD) may read: open, named, and fixed by icacls.
	setDACL(t, d.Runtime, "D:P(A;OICI;FA;;;%s)(A;OICI;FR;;;WD)")
	err := d.CheckLink(false)
	checkErr(t, err, []string{"bua's runtime directory " + d.Runtime, "grants access to", "S-1-1-0", "open to other local users", "run `icacls \"" + d.Runtime + "\" /inheritance:r", "/remove:g *S-1-1-0"})
	var ue *UnsafeError
	if errors.As(err, &ue) {
		t.Errorf("an open dir of the user's own is not unsafe, only to fix: %v", err)
	}
	if err := d.CheckLink(true); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckLink(true) on a tightened dir with no link file: %v, want not exist", err)
	}
	if err := CheckPrivate(d.Runtime); err != nil {
		t.Errorf("not tightened: %v", err)
	}
	// A file inside inherits the private DACL.
	f := filepath.Join(d.Runtime, "x")
	if err := WriteFile(f, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrivate(f); err != nil {
		t.Errorf("a file written in a private dir: %v", err)
	}
}

// TestOpenness: which access rules make a file open to other users.
func TestOpenness(t *testing.T) {
	for _, tc := range []struct{ name, sddl, want string }{
		{"the user alone", "D:P(A;;FA;;;%s)", ""},
		{"the user, SYSTEM and Administrators", "D:P(A;;FA;;;%s)(A;;FA;;;SY)(A;;FA;;;BA)", ""},
		{"a deny rule for Everyone", "D:P(D;;FA;;;WD)(A;;FA;;;%s)", ""},
		{"Users may read", "D:P(A;;FA;;;%s)(A;;FR;;;BU)", "S-1-5-32-545"},
		{"Authenticated Users may change", "D:P(A;;FA;;;%s)(A;;0x1301bf;;;AU)", "S-1-5-11"},
		{"Everyone", "D:P(A;;FA;;;%s)(A;;FA;;;WD)", "S-1-1-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd, err := windows.SecurityDescriptorFromString(strings.ReplaceAll(tc.sddl, "%s", string(me)))
			if err != nil {
				t.Fatal(err)
			}
			dacl, _, err := sd.DACL()
			if err != nil {
				t.Fatal(err)
			}
			got := openness(dacl)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("openness = %q, want %q", got, tc.want)
			}
		})
	}
	if got := openness(nil); !strings.Contains(got, "everyone") {
		t.Errorf("a NULL DACL: %q", got)
	}
}

// TestLinkWindows: the daemon's link file is private, a client with it
// reaches the daemon through the proof and the daemon reads its request,
// and the stale or damaged file of a gone daemon is no daemon, not an
// alarm.
func TestLinkWindows(t *testing.T) {
	d := Dirs{Config: t.TempDir(), State: t.TempDir(), Runtime: filepath.Join(t.TempDir(), "run")}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	if _, err := DialLink(context.Background(), d); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no daemon yet: %v, want not exist", err)
	}
	ln, err := ListenLink(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := CheckPrivate(d.Link()); err != nil {
		t.Fatalf("the link file: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		if err := ln.Admit(context.Background(), c); err != nil {
			got <- "refused: " + err.Error()
			return
		}
		buf := make([]byte, 6)
		if _, err := io.ReadFull(c, buf); err != nil {
			got <- "read: " + err.Error()
			return
		}
		got <- string(buf)
	}()
	c, err := DialLink(context.Background(), d)
	if err != nil {
		t.Fatalf("DialLink: %v", err)
	}
	io.WriteString(c, "hello\n")
	if g := <-got; g != "hello\n" {
		t.Errorf("the daemon read %q", g)
	}
	c.Close()
	ln.Close()

	// The daemon gone and its port free: nothing listens.
	if _, err := DialLink(context.Background(), d); err == nil {
		t.Error("dialled a daemon that is gone")
	}
	// Half a file.
	if err := WriteFile(d.Link(), []byte(`{"addr":`)); err != nil {
		t.Fatal(err)
	}
	if _, err := DialLink(context.Background(), d); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a damaged link file: %v, want not exist", err)
	}
}

// squatter listens where the link file will point, without the key, and
// returns what it received once the client is done.
func squatter(t *testing.T) (addr string, received func() string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			ch <- ""
			return
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.WriteString(c, "ok\n")
		b, _ := io.ReadAll(c)
		ch <- string(b)
	}()
	return ln.Addr().String(), func() string { return <-ch }
}

// TestDialLinkSquatter: a process that holds the port the link file names
// but not the key gets the client's greeting and nothing else. With the
// file's daemon alive that is an *UnsafeError; with it gone, a stale file.
func TestDialLinkSquatter(t *testing.T) {
	key, _ := linkauth.NewKey()
	for _, tc := range []struct {
		name   string
		pid    int
		unsafe bool
	}{
		{"beside a live daemon", os.Getpid(), true},
		{"after the daemon died", 0x7ffffff0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Dirs{Config: t.TempDir(), State: t.TempDir(), Runtime: t.TempDir()}
			if err := d.Ensure(); err != nil {
				t.Fatal(err)
			}
			addr, received := squatter(t)
			lf := `{"addr":"` + addr + `","key":"` + strings.Repeat("ab", len(key)) + `","pid":` + itoa(tc.pid) + `,"created":` + itoa64(created(tc.pid)) + `}`
			if err := WriteFile(d.Link(), []byte(lf)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			c, err := DialLink(ctx, d)
			if err == nil {
				c.Close()
				t.Fatal("the client trusted a squatter")
			}
			var ue *UnsafeError
			if errors.As(err, &ue) != tc.unsafe {
				t.Errorf("DialLink: %v (unsafe: %v, want %v)", err, errors.As(err, &ue), tc.unsafe)
			}
			if !tc.unsafe && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a stale link file: %v, want not exist", err)
			}
			if got := received(); !strings.HasPrefix(got, "bua-link/1 ") || strings.Count(got, "\n") != 1 {
				t.Errorf("the squatter received %q, want the greeting alone", got)
			}
		})
	}
}

// TestAdmitRefusesStranger: a client without the link key is refused
// before the daemon reads a request.
func TestAdmitRefusesStranger(t *testing.T) {
	d := Dirs{Config: t.TempDir(), State: t.TempDir(), Runtime: t.TempDir()}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	ln, err := ListenLink(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			res <- err
			return
		}
		defer c.Close()
		res <- ln.Admit(context.Background(), c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	other, _ := linkauth.NewKey()
	if err := linkauth.Client(context.Background(), c, other, ln.Addr().String()); err == nil {
		t.Error("a client with another key got in")
	}
	c.Close() // as DialLink does when the daemon's proof is wrong
	if err := <-res; !errors.Is(err, linkauth.ErrClientProof) {
		t.Errorf("Admit: %v, want ErrClientProof", err)
	}
}

// TestLockWindows: one holder at a time, and the held lock file can be
// deleted (FILE_SHARE_DELETE), so deleting the home is not blocked by it.
func TestLockWindows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.lock")
	f, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Lock(path); !errors.Is(err, ErrLocked) {
		t.Errorf("second Lock: %v, want ErrLocked", err)
	}
	if !Locked(path) {
		t.Error("Locked is false while held")
	}
	if err := os.Remove(path); err != nil {
		t.Errorf("deleting the held lock file: %v", err)
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
