package windows

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The attacker is this test binary run as the second local user
// (BUA_SQUAT_USER, made by the workflow), through CreateProcessWithLogonW,
// which needs no privilege the runner lacks. It does one thing, named by
// its arguments, and writes what it saw to a JSON file in the shared
// folder for the victim (this test, as the runner's user) to read.

// attackerFlag, as the first argument, makes this binary the attacker.
const attackerFlag = "-bua-attacker"

// attackLife bounds an attacker that listens.
const attackLife = 30 * time.Second

// report is what the attacker saw.
type report struct {
	// Listening says the attacker's listener is up (written first, alone).
	Listening bool `json:"listening,omitempty"`
	// Received is every byte connections brought it, and Connections
	// their number.
	Received    string `json:"received"`
	Connections int    `json:"connections"`
	// Err is what failed: for "read", the refusal of the victim's file.
	Err string `json:"err,omitempty"`
}

// attack runs one attack: args are the mode and its operands, and last
// the report file.
//
//	home DIR REPORT     make DIR (a BUA_HOME) first, open to everyone, with a
//	                    link file that names the attacker's own listener
//	port PORT REPORT    listen on 127.0.0.1:PORT (a stale link file's port)
//	dial ADDR REPORT    connect to the victim's daemon and ask it to stop
//	read PATH REPORT    read the victim's file at PATH
func attack(args []string) int {
	if len(args) != 3 {
		return 2
	}
	mode, arg, out := args[0], args[1], args[2]
	write := func(r report) {
		data, _ := json.Marshal(r)
		_ = os.WriteFile(out+".tmp", data, 0o666)
		_ = os.Rename(out+".tmp", out)
	}
	switch mode {
	case "home":
		if err := os.MkdirAll(arg, 0o777); err != nil {
			write(report{Err: err.Error()})
			return 1
		}
		openToEveryone(arg)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			write(report{Err: err.Error()})
			return 1
		}
		key := strings.Repeat("ab", 32)
		lf := fmt.Sprintf(`{"addr":%q,"key":%q,"pid":%d,"created":1}`, ln.Addr().String(), key, os.Getpid())
		_ = os.WriteFile(filepath.Join(arg, "link.json"), []byte(lf), 0o666)
		return serve(ln, write)
	case "port":
		ln, err := net.Listen("tcp", "127.0.0.1:"+arg)
		if err != nil {
			write(report{Err: err.Error()})
			return 1
		}
		return serve(ln, write)
	case "dial":
		c, err := net.DialTimeout("tcp", arg, 5*time.Second)
		if err != nil {
			write(report{Err: err.Error()})
			return 1
		}
		defer c.Close()
		_, _ = io.WriteString(c, `{"id":"1","op":"stop"}`+"\n")
		_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
		got, _ := io.ReadAll(c)
		write(report{Received: string(got), Connections: 1})
		return 0
	case "read":
		data, err := os.ReadFile(arg)
		r := report{Received: hex.EncodeToString(data)}
		if err != nil {
			r.Err = err.Error()
		}
		write(r)
		return 0
	}
	return 2
}

// serve accepts for attackLife, answers every line with a forged result
// (the Linux suite's 1337), and writes what it received.
func serve(ln net.Listener, write func(report)) int {
	write(report{Listening: true})
	var mu sync.Mutex
	r := report{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			r.Connections++
			mu.Unlock()
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					mu.Lock()
					r.Received += string(buf[:n])
					mu.Unlock()
					if err != nil {
						return
					}
					_, _ = io.WriteString(c, `{"id":"1","result":{"value":1337}}`+"\n")
				}
			}()
		}
	}()
	time.Sleep(attackLife)
	ln.Close()
	mu.Lock()
	defer mu.Unlock()
	write(r)
	return 0
}

// openToEveryone gives dir an access rule letting Everyone change it, as
// an attacker who wants the victim to use it would.
func openToEveryone(dir string) {
	sd, err := windows.SecurityDescriptorFromString("D:(A;OICI;FA;;;WD)")
	if err != nil {
		return
	}
	dacl, _, _ := sd.DACL()
	_ = windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

var procCreateProcessWithLogonW = windows.NewLazySystemDLL("advapi32.dll").NewProc("CreateProcessWithLogonW")

// logonWithProfile is LOGON_WITH_PROFILE: load the user's profile, so
// the attacker has a %LOCALAPPDATA% of its own.
const logonWithProfile = 1

// runAs runs exe with args as user (a local account) and waits for it, at
// most limit; it returns the exit code.
func runAs(user, password, dir, exe string, limit time.Duration, args ...string) (int, error) {
	line := syscall.EscapeArg(exe)
	for _, a := range args {
		line += " " + syscall.EscapeArg(a)
	}
	u, _ := windows.UTF16PtrFromString(user)
	d, _ := windows.UTF16PtrFromString(".")
	p, _ := windows.UTF16PtrFromString(password)
	cl, _ := windows.UTF16FromString(line)
	cwd, _ := windows.UTF16PtrFromString(dir)
	var si windows.StartupInfo
	si.Cb = uint32(unsafe.Sizeof(si))
	var pi windows.ProcessInformation
	r, _, err := procCreateProcessWithLogonW.Call(
		uintptr(unsafe.Pointer(u)), uintptr(unsafe.Pointer(d)), uintptr(unsafe.Pointer(p)), logonWithProfile,
		0, uintptr(unsafe.Pointer(&cl[0])), windows.CREATE_NO_WINDOW, 0, uintptr(unsafe.Pointer(cwd)),
		uintptr(unsafe.Pointer(&si)), uintptr(unsafe.Pointer(&pi)))
	if r == 0 {
		return -1, fmt.Errorf("CreateProcessWithLogonW as %s: %w", user, err)
	}
	defer windows.CloseHandle(pi.Process)
	defer windows.CloseHandle(pi.Thread)
	if ev, _ := windows.WaitForSingleObject(pi.Process, uint32(limit.Milliseconds())); ev != windows.WAIT_OBJECT_0 {
		_ = windows.TerminateProcess(pi.Process, 1)
		return -1, fmt.Errorf("the attacker did not end within %s", limit)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(pi.Process, &code); err != nil {
		return -1, err
	}
	return int(code), nil
}

// startAs is runAs without the wait: the attacker runs in the background
// while the victim acts; its report says when it is done.
func startAs(user, password, dir, exe string, args ...string) error {
	errc := make(chan error, 1)
	go func() {
		_, err := runAs(user, password, dir, exe, attackLife+10*time.Second, args...)
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-time.After(500 * time.Millisecond):
		return nil
	}
}
