package browser

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a launched browser runs in a job object the launching
// process (the daemon) holds, with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE:
// when the daemon exits, crashed or killed included, the system closes
// its handle and ends the browser and every helper it started, so no
// orphan is left for a later daemon to find. Stop and Kill terminate the
// job. The browser starts suspended, joins the job, then runs, so not one
// of its helpers can start outside it.

// sysProc is what Windows adds to a launched browser: its job object (0
// when the browser could not be put in one, and the tree is then ended by
// parent pid, Group).
type sysProc struct{ job windows.Handle }

// startBrowser starts cmd suspended in a process group of its own (so a
// Ctrl-C in bua's console does not reach it), puts it in a new
// kill-on-close job, and resumes it.
func startBrowser(cmd *exec.Cmd) (sysProc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	job, jerr := newKillOnCloseJob()
	if err := cmd.Start(); err != nil {
		if job != 0 {
			windows.CloseHandle(job)
		}
		return sysProc{}, err
	}
	pid := uint32(cmd.Process.Pid)
	if jerr == nil {
		jerr = assign(job, pid)
	}
	if jerr != nil && job != 0 {
		// Not in the job: closing it now ends nothing.
		windows.CloseHandle(job)
		job = 0
	}
	if err := resume(pid); err != nil {
		_ = cmd.Process.Kill()
		if job != 0 {
			windows.CloseHandle(job)
		}
		return sysProc{}, fmt.Errorf("resume the suspended browser: %w", err)
	}
	return sysProc{job: job}, nil
}

// newKillOnCloseJob creates an unnamed job object whose processes all end
// when its last handle closes.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// assign puts process pid in job.
func assign(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resume resumes the threads of process pid, which CREATE_SUSPENDED
// started with its one main thread suspended: os/exec keeps the thread
// handle CreateProcess returned to itself, so the thread is found in a
// Toolhelp snapshot.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	var e windows.ThreadEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	resumed := 0
	for err = windows.Thread32First(snap, &e); err == nil; err = windows.Thread32Next(snap, &e) {
		if e.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, e.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of pid %d found", pid)
	}
	return nil
}

// stop terminates the job, or the tree by parent pid without one, and
// waits, at most StopGrace or until ctx ends, for the group to go.
func (s sysProc) stop(ctx context.Context, g Group) error {
	if s.job == 0 {
		return g.Stop(ctx, StopGrace)
	}
	if err := windows.TerminateJobObject(s.job, 1); err != nil {
		return fmt.Errorf("browser: terminate its job: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, StopGrace)
	defer cancel()
	if !waitGroup(wctx, g.PGID) {
		return fmt.Errorf("browser: %d processes of pid %d's tree still run %s after its job was terminated", len(GroupMembers(g.PGID)), g.PGID, StopGrace)
	}
	return nil
}

// kill terminates the job (or the tree) at once, without waiting.
func (s sysProc) kill(g Group) error {
	if s.job == 0 {
		return g.Kill()
	}
	return windows.TerminateJobObject(s.job, 1)
}

// release closes the job's handle once the browser is reaped: with
// kill-on-close that ends whatever helper outlived it.
func (s sysProc) release() {
	if s.job != 0 {
		windows.CloseHandle(s.job)
	}
}
