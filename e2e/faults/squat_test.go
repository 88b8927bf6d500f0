//go:build linux

package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
	"github.com/bua-dev/bua/pkg/home"
)

// The socket cases run two throwaway non-root users through setpriv: the
// attacker, who creates bua's socket directory first and listens on the
// socket's path, and the victim, who runs bua. Both must be non-root:
// root's chmod of another user's directory succeeds, which hid the bug
// (before the checks, `bua type --text-env SECRET` delivered the secret to
// the attacker, and `bua eval` printed the attacker's answer).
const (
	attackerUID = 61001
	victimUID   = 61002
	// squatEnv, set, makes this test binary the attacker (squat): it
	// names the socket path to listen on. squatEnv+"_DIR" is a directory
	// to create first at mode squatEnv+"_MODE" (octal), and squatEnv+
	// "_LINK" a symlink to create, leading to that directory.
	squatEnv = "BUA_FAULTS_SQUAT"
	// fallbackDir is the short path the victim's socket moves to when its
	// natural path is too long for sun_path (home.Dirs.Socket): the victim
	// runs with no TMPDIR.
	fallbackDir = "/tmp/bua-61002"
)

// squat is the attacker. It listens, says "listening", answers every
// request line with a forged result (1337, which no daemon answers), and once its
// stdin closes reports "connections N bytes M" and what it received.
func squat() int {
	dir := os.Getenv(squatEnv + "_DIR")
	if dir != "" {
		mode, err := strconv.ParseUint(os.Getenv(squatEnv+"_MODE"), 8, 32)
		if err == nil {
			err = os.MkdirAll(dir, 0o700)
		}
		if err == nil {
			err = os.Chmod(dir, os.FileMode(mode))
		}
		if err != nil {
			fmt.Println("squat:", err)
			return 1
		}
	}
	if link := os.Getenv(squatEnv + "_LINK"); link != "" {
		if err := os.Symlink(dir, link); err != nil {
			fmt.Println("squat:", err)
			return 1
		}
	}
	ln, err := net.Listen("unix", os.Getenv(squatEnv))
	if err != nil {
		fmt.Println("squat:", err)
		return 1
	}
	_ = os.Chmod(os.Getenv(squatEnv), 0o777) // anyone the directory lets in may connect
	fmt.Println("listening")
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		// Take what is queued (a victim that connected and left), then stop.
		_ = ln.(*net.UnixListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
	}()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		got   []byte
		conns int
	)
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		conns++
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				mu.Lock()
				got = append(append(got, sc.Bytes()...), '\n')
				mu.Unlock()
				var req struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(sc.Bytes(), &req)
				fmt.Fprintf(c, "{\"id\":%q,\"result\":1337}\n", req.ID)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("connections %d bytes %d\n%s", conns, len(got), got)
	return 0
}

// squatter is a running attacker.
type squatter struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// asUser is setpriv's argument list that runs argv as uid (and gid uid),
// with no supplementary groups.
func asUser(uid int, argv ...string) []string {
	id := strconv.Itoa(uid)
	return append([]string{"--reuid=" + id, "--regid=" + id, "--clear-groups", "--"}, argv...)
}

// report stops the attacker and returns what it received.
func (s *squatter) report(t *testing.T) (conns, bytes int, got string) {
	t.Helper()
	s.stdin.Close()
	rest, _ := io.ReadAll(s.out)
	_ = s.cmd.Wait()
	head, got, _ := strings.Cut(string(rest), "\n")
	if _, err := fmt.Sscanf(head, "connections %d bytes %d", &conns, &bytes); err != nil {
		t.Fatalf("attacker's report %q: %v", rest, err)
	}
	return conns, bytes, got
}

// squatLab is what the socket cases share: the binaries where both users
// can run them, and a root for their homes.
type squatLab struct {
	base, bua, squatter string
	attackerHome        string
	n                   int
}

func newSquatLab(t *testing.T) *squatLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("TestSquat runs the attacker and the victim as throwaway uids %d and %d through setpriv, which takes root (CI runs as root): run it as root", attackerUID, victimUID)
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("TestSquat needs setpriv: apt-get install -y util-linux")
	}
	for _, id := range []int{attackerUID, victimUID} {
		if u, err := user.LookupId(strconv.Itoa(id)); err == nil {
			t.Fatalf("uid %d is an account here (%s): TestSquat needs uids nobody uses", id, u.Username)
		}
	}
	base := harness.TempDir("buasq")
	t.Cleanup(func() { os.RemoveAll(base) })
	lab := &squatLab{base: base}
	bin := filepath.Join(base, "bin")
	lab.bua, lab.squatter = filepath.Join(bin, "bua"), filepath.Join(bin, "faults.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to string }{{buaBin, lab.bua}, {self, lab.squatter}} {
		data, err := os.ReadFile(c.from)
		if err == nil {
			err = os.MkdirAll(bin, 0o755)
		}
		if err == nil {
			err = os.WriteFile(c.to, data, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{base, bin} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lab.attackerHome = lab.userDir(t, attackerUID, "a")
	clearFallback(t)
	t.Cleanup(func() { clearFallback(t) })
	return lab
}

// clearFallback removes whatever stands at fallbackDir, as root can.
func clearFallback(t *testing.T) {
	if err := os.RemoveAll(fallbackDir); err != nil {
		t.Fatal(err)
	}
}

// userDir is a fresh directory under the lab's base that belongs to uid,
// at 0700: a home for one user.
func (l *squatLab) userDir(t *testing.T, uid int, name string) string {
	t.Helper()
	l.n++
	dir := filepath.Join(l.base, fmt.Sprintf("%s%d", name, l.n))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	return dir
}

// victimHome is a fresh home for the victim, long when the victim's
// socket must not fit in sun_path (so that it moves to fallbackDir).
func (l *squatLab) victimHome(t *testing.T, long bool) string {
	t.Helper()
	dir := l.userDir(t, victimUID, "v")
	if !long {
		return dir
	}
	deep := filepath.Join(dir, strings.Repeat("h", 70))
	if err := os.Mkdir(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(deep, victimUID, victimUID); err != nil {
		t.Fatal(err)
	}
	return deep
}

// squat starts the attacker with env (squatEnv and the rest) and waits
// until it listens.
func (l *squatLab) squat(t *testing.T, env ...string) *squatter {
	t.Helper()
	cmd := exec.Command("setpriv", asUser(attackerUID, l.squatter)...)
	cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + l.attackerHome}, env...)
	cmd.Dir = l.attackerHome
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s := &squatter{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	if line, _ := s.out.ReadString('\n'); line != "listening\n" {
		t.Fatalf("the attacker did not listen: %q %s", line, stderr.String())
	}
	return s
}

// victim runs bua as the victim, in home with env added (never
// XDG_RUNTIME_DIR unless env sets it, nor TMPDIR), within 20 s.
func (l *squatLab) victim(t *testing.T, home string, env []string, args ...string) harness.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "BUA_LISTEN=127.0.0.1:0", "CI=true", "SECRET=" + squatSecret}
	return harness.Cmd{Bin: "setpriv", Env: append(base, env...), Dir: home}.Run(ctx, asUser(victimUID, append([]string{l.bua}, args...)...)...)
}

// squatSecret is what the victim types from $SECRET.
const squatSecret = "hunter2-never-leaves"

// socketName is the name the victim's socket takes in fallbackDir when
// its runtime dir is runtime (home.Dirs.Socket: a hash of the dir).
func socketName(t *testing.T, runtime string) string {
	t.Helper()
	sock := home.Dirs{Runtime: runtime}.Link()
	if filepath.Dir(sock) == runtime {
		t.Fatalf("%s is short enough for its own socket: the case needs one that moves to %s", runtime, fallbackDir)
	}
	return filepath.Base(sock)
}

// TestSquat: a second local user who creates the victim's socket
// directory first, and listens on the socket's path, receives nothing:
// every command the victim runs is refused before the first byte with an
// error that names the path and its owner and says to set BUA_HOME or
// XDG_RUNTIME_DIR; `bua doctor` reports it as a FAIL; `bua serve` does not
// serve from it. Without XDG_RUNTIME_DIR the victim's socket is in its own
// state dir, where the squatted /tmp path never comes into it.
func TestSquat(t *testing.T) {
	t.Parallel() // no browser: it runs beside the others
	lab := newSquatLab(t)
	var probes, refused, leaked atomic.Int64
	defer func() {
		t.Logf("hostile local user: %d of %d probes refused before the first byte; %d bytes reached the attacker", refused.Load(), probes.Load(), leaked.Load())
	}()

	for _, tc := range []struct {
		name string
		// set lays the trap for a victim in a fresh home and returns the
		// victim's home and environment, the attacker, the path the
		// refusal must name, and whether the victim may connect at all
		// (only a daemon's uid gives that trap away).
		set      func(t *testing.T) (vhome string, env []string, a *squatter, named string, connects bool)
		noServe  bool   // serve would rightly replace the socket in the victim's own dir
		wantWord string // what the refusal must also say: the variable it suggests first, or the trap's kind
	}{
		{"short-socket dir at 0777", func(t *testing.T) (string, []string, *squatter, string, bool) {
			vhome := lab.victimHome(t, true)
			name := socketName(t, filepath.Join(vhome, ".local/state/bua/run"))
			a := lab.squat(t, squatEnv+"="+filepath.Join(fallbackDir, name), squatEnv+"_DIR="+fallbackDir, squatEnv+"_MODE=777")
			return vhome, nil, a, fallbackDir, false
		}, false, "XDG_RUNTIME_DIR"},
		{"short-socket dir at 0700, the attacker's", func(t *testing.T) (string, []string, *squatter, string, bool) {
			vhome := lab.victimHome(t, true)
			name := socketName(t, filepath.Join(vhome, ".local/state/bua/run"))
			a := lab.squat(t, squatEnv+"="+filepath.Join(fallbackDir, name), squatEnv+"_DIR="+fallbackDir, squatEnv+"_MODE=700")
			return vhome, nil, a, fallbackDir, false
		}, false, "XDG_RUNTIME_DIR"},
		{"deep BUA_HOME", func(t *testing.T) (string, []string, *squatter, string, bool) {
			vhome := lab.victimHome(t, true)
			buaHome := filepath.Join(vhome, "bua")
			a := lab.squat(t, squatEnv+"="+filepath.Join(fallbackDir, socketName(t, buaHome)), squatEnv+"_DIR="+fallbackDir, squatEnv+"_MODE=777")
			return vhome, []string{"BUA_HOME=" + buaHome}, a, fallbackDir, false
		}, false, "BUA_HOME to a new directory of yours with a short path"},
		{"XDG_RUNTIME_DIR in a shared directory", func(t *testing.T) (string, []string, *squatter, string, bool) {
			shared := filepath.Join(lab.base, "shared")
			if err := os.Mkdir(shared, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(shared, 0o1777); err != nil { // like /tmp
				t.Fatal(err)
			}
			run := filepath.Join(shared, "bua")
			a := lab.squat(t, squatEnv+"="+filepath.Join(run, "bua.sock"), squatEnv+"_DIR="+run, squatEnv+"_MODE=777")
			return lab.victimHome(t, false), []string{"XDG_RUNTIME_DIR=" + shared}, a, run, false
		}, false, "XDG_RUNTIME_DIR"},
		{"short-socket dir is a symlink", func(t *testing.T) (string, []string, *squatter, string, bool) {
			vhome := lab.victimHome(t, true)
			name := socketName(t, filepath.Join(vhome, ".local/state/bua/run"))
			trap := filepath.Join(lab.attackerHome, "trap")
			a := lab.squat(t, squatEnv+"="+filepath.Join(trap, name), squatEnv+"_DIR="+trap, squatEnv+"_MODE=777", squatEnv+"_LINK="+fallbackDir)
			if err := os.Chmod(lab.attackerHome, 0o755); err != nil { // so the link leads somewhere the victim can reach
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(lab.attackerHome, 0o700) })
			return vhome, nil, a, fallbackDir, false
		}, false, "is a symlink that belongs to another local user"},
		{"daemon of another user in the victim's own dir", func(t *testing.T) (string, []string, *squatter, string, bool) {
			// Every directory passes (root moves the attacker's socket into
			// the victim's own 0700 runtime dir and gives the file to the
			// victim): only the listener's uid gives it away.
			vhome := lab.victimHome(t, false)
			run := filepath.Join(vhome, ".local", "state", "bua", "run")
			if err := os.MkdirAll(run, 0o700); err != nil {
				t.Fatal(err)
			}
			for p := run; p != vhome; p = filepath.Dir(p) {
				if err := os.Chown(p, victimUID, victimUID); err != nil {
					t.Fatal(err)
				}
			}
			staged := filepath.Join(lab.attackerHome, "peer.sock")
			a := lab.squat(t, squatEnv+"="+staged)
			sock := filepath.Join(run, "bua.sock")
			if err := os.Rename(staged, sock); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(sock, victimUID, victimUID); err != nil {
				t.Fatal(err)
			}
			return vhome, nil, a, sock, true
		}, true, "XDG_RUNTIME_DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearFallback(t)
			vhome, env, a, named, connects := tc.set(t)
			owner := fmt.Sprintf("uid %d", attackerUID)
			probe := func(what string, r harness.Result, ok bool, why string) {
				t.Helper()
				probes.Add(1)
				if strings.Contains(r.Output(), squatSecret) || strings.Contains(r.Output(), "1337") {
					t.Errorf("%s: the output shows the secret or the attacker's answer:\n%s", what, r.Output())
					return
				}
				if !ok {
					t.Errorf("%s: %s (exit %d)\n%s", what, why, r.Code, r.Output())
					return
				}
				refused.Add(1)
			}
			for _, args := range [][]string{
				{"--json", "type", "#password", "--text-env", "SECRET"},
				{"--json", "eval", "return 1+1"},
				{"--json", "status"},
			} {
				r := lab.victim(t, vhome, env, args...)
				e := harness.Failure(t, r)
				msg := e.Error.Message
				probe(args[1], r, r.Code == 4 && e.Error.Reason == "unsafe_socket" &&
					strings.Contains(msg, named) && strings.Contains(msg, owner) && strings.Contains(msg, "another local user") &&
					strings.Contains(msg, tc.wantWord) && strings.Contains(msg, "BUA_HOME") && strings.Contains(msg, "XDG_RUNTIME_DIR") == !strings.Contains(tc.wantWord, "BUA_HOME"),
					"want exit 4, reason unsafe_socket, a message naming "+named+", "+owner+", and "+tc.wantWord)
			}
			r := lab.victim(t, vhome, env, "doctor")
			probe("doctor", r, r.Code == 4 && strings.Contains(r.Stdout, "[FAIL] socket") && strings.Contains(r.Stdout, named) &&
				strings.Contains(r.Stdout, owner) && strings.Contains(r.Stdout, tc.wantWord),
				"want exit 4 and a FAIL socket line naming "+named+" and "+owner)
			if !tc.noServe {
				r := lab.victim(t, vhome, env, "serve")
				probe("serve", r, r.Code == 4 && strings.Contains(r.Stderr, named) && strings.Contains(r.Stderr, owner),
					"want the daemon to refuse at once, exit 4, naming "+named+" and "+owner)
			}
			conns, n, got := a.report(t)
			leaked.Add(int64(n))
			if n != 0 {
				t.Errorf("the attacker received %d bytes:\n%s", n, got)
			}
			if want := map[bool]int{false: 0, true: 4}[connects]; conns != want {
				t.Errorf("the attacker saw %d connections, want %d", conns, want)
			}
		})
	}

	// The squatted /tmp path was the default: now it never comes into it.
	t.Run("default layout ignores /tmp", func(t *testing.T) {
		clearFallback(t)
		vhome := lab.victimHome(t, false)
		a := lab.squat(t, squatEnv+"="+filepath.Join(fallbackDir, "bua.sock"), squatEnv+"_DIR="+fallbackDir, squatEnv+"_MODE=777")
		t.Cleanup(func() { lab.victim(t, vhome, nil, "stop") })
		// --browser user: the victim's own daemon answers, with no
		// browser to launch.
		r := lab.victim(t, vhome, nil, "--json", "--browser", "user", "type", "#password", "--text-env", "SECRET")
		if e := harness.Failure(t, r); r.Code != 4 || e.Error.Reason == "unsafe_socket" {
			t.Fatalf("want the victim's own daemon to say no browser is connected, exit 4: got exit %d\n%s", r.Code, r.Output())
		}
		r = lab.victim(t, vhome, nil, "--json", "status")
		var st struct {
			Socket string `json:"socket"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.Socket != filepath.Join(vhome, ".local/state/bua/run/bua.sock") {
			t.Fatalf("status: the socket is %q (%v), want it in the victim's state dir\n%s", st.Socket, err, r.Output())
		}
		conns, n, got := a.report(t)
		leaked.Add(int64(n))
		if conns != 0 || n != 0 {
			t.Errorf("the attacker saw %d connections and %d bytes:\n%s", conns, n, got)
		}
	})
}
