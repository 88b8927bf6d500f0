package home

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a file's owner is a SID and who may open it is its DACL, not
// mode bits (os.FileMode reads 0666 or 0777 for everything). "Private to
// the user" is a DACL whose allowing entries name only the user, SYSTEM or
// the Administrators group, the same three that %LOCALAPPDATA%'s own
// default DACL names: SYSTEM and Administrators can take any file anyway,
// as root can on Unix.

// principal is a local user or group as the file system records owners:
// a SID in its string form ("S-1-5-21-…-1001").
type principal string

// me is this process's user, from its token.
var me = currentUser()

// defaultOwner is the owner the token gives the files this process
// creates: the user, or the Administrators group for an elevated
// administrator (Windows' default policy), which isMine accepts too.
var defaultOwner = tokenOwner()

func currentUser() principal {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		// No token user is no identity to trust anything with: every
		// owner then differs, and bua refuses its files loudly.
		return "unknown"
	}
	return principal(u.User.Sid.String())
}

// tokenOwner reads TOKEN_OWNER, which x/sys/windows has no helper for.
func tokenOwner() principal {
	t := windows.GetCurrentProcessToken()
	var n uint32
	_ = windows.GetTokenInformation(t, windows.TokenOwner, nil, 0, &n)
	if n == 0 {
		return me
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(t, windows.TokenOwner, &buf[0], n, &n); err != nil {
		return me
	}
	owner := (*struct{ Owner *windows.SID })(unsafe.Pointer(&buf[0])).Owner
	return principal(owner.String())
}

// isMine reports whether p is this process's user, or the owner its token
// gives new files.
func isMine(p principal) bool { return p == me || p == defaultOwner }

var names sync.Map // principal → its account name, looked up once

// String names p for a message: `HOST\alice (S-1-5-21-…)`, or the SID
// alone when the system has no name for it.
func (p principal) String() string {
	if n, ok := names.Load(p); ok {
		return n.(string)
	}
	name := string(p)
	if sid, err := windows.StringToSid(string(p)); err == nil {
		if account, domain, _, err := sid.LookupAccount(""); err == nil && account != "" {
			if domain != "" {
				account = domain + `\` + account
			}
			name = account + " (" + string(p) + ")"
		}
	}
	names.Store(p, name)
	return name
}

// trusted are the SIDs besides the user that a private DACL may name:
// SYSTEM, the Administrators group, and CREATOR OWNER (which stands for
// whoever creates a file inside, on inheritable entries).
var trusted = []string{"S-1-5-18", "S-1-5-32-544", "S-1-3-0"}

// The ACE types that deny access; every other type in a DACL is treated
// as allowing it (object ACEs included, whose SID bua does not read), so
// that an ACE bua does not understand counts as open.
var denyTypes = []byte{windows.ACCESS_DENIED_ACE_TYPE, 0x06 /* ACCESS_DENIED_OBJECT */, 0x0A /* ACCESS_DENIED_CALLBACK */, 0x0C /* ACCESS_DENIED_CALLBACK_OBJECT */}

// inspect reads who owns path and, when its DACL lets anyone but the
// user, SYSTEM and Administrators in, how ("grants access to
// BUILTIN\Users (S-1-5-32-545)"; "" when private). It reads the path
// itself, never what a symlink or junction there leads to.
func inspect(path string, _ fs.FileInfo) (owner principal, open string, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return "", "", err
	}
	h, err := windows.CreateFile(p, windows.READ_CONTROL,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return "", "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", "", fmt.Errorf("%s: read its owner and access rules: %w", path, err)
	}
	o, _, err := sd.Owner()
	if err != nil || o == nil {
		return "", "", fmt.Errorf("%s: it has no owner", path)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return "", "", fmt.Errorf("%s: read its access rules: %w", path, err)
	}
	return principal(o.String()), openness(dacl), nil
}

// openness says whom dacl lets in besides the user and the trusted SIDs,
// or "", and lists their SIDs. A missing (NULL) DACL lets everyone in.
func openness(dacl *windows.ACL) string {
	desc, _ := outsiders(dacl)
	return desc
}

// outsiders is openness with the SIDs it names (for icacls /remove).
func outsiders(dacl *windows.ACL) (desc string, sids []string) {
	if dacl == nil {
		return "has no access rules at all, so everyone may open it", nil
	}
	var names []string
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return "has an access rule bua cannot read", sids
		}
		if slices.Contains(denyTypes, ace.Header.AceType) {
			continue
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			names = append(names, fmt.Sprintf("an access rule of type %d", ace.Header.AceType))
			continue
		}
		s := principal((*windows.SID)(unsafe.Pointer(&ace.SidStart)).String())
		if isMine(s) || slices.Contains(trusted, string(s)) || slices.Contains(sids, string(s)) {
			continue
		}
		sids = append(sids, string(s))
		names = append(names, s.String())
	}
	if len(names) == 0 {
		return "", nil
	}
	return "grants access to " + strings.Join(names, ", "), sids
}

// privateDACL is the DACL makePrivate sets: protected (nothing inherited
// from the parent), full control for the user, SYSTEM and Administrators,
// and, on a directory, inherited by what is created inside.
func privateDACL(dir bool) (*windows.ACL, error) {
	inherit := ""
	if dir {
		inherit = "OICI"
	}
	sddl := fmt.Sprintf("D:P(A;%[1]s;FA;;;%[2]s)(A;%[1]s;FA;;;SY)(A;%[1]s;FA;;;BA)", inherit, string(me))
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		return nil, err
	}
	dacl, _, err := sd.DACL()
	return dacl, err
}

// makePrivate gives path, a file or directory of the user's own, the
// private DACL; Windows carries a directory's inheritable entries down to
// what it holds.
func makePrivate(path string, dir bool) error {
	dacl, err := privateDACL(dir)
	if err != nil {
		return err
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("%s: make it private to you: %w", path, err)
	}
	return nil
}

// fixCommand is the command that makes path private by hand: icacls
// drops the inherited entries, removes the other users' it names, and
// grants the user, SYSTEM and Administrators full control (on a
// directory, inherited by what it holds).
func fixCommand(path string, dir bool) string {
	grant := "F"
	if dir {
		grant = "(OI)(CI)F"
	}
	cmd := fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r *%s:%s *S-1-5-18:%s *S-1-5-32-544:%s`, path, string(me), grant, grant, grant)
	if _, sids := readDACL(path); len(sids) > 0 {
		cmd += " /remove:g *" + strings.Join(sids, " *")
	}
	return cmd
}

// readDACL is outsiders of path's DACL, or nothing when it cannot be read.
func readDACL(path string) (desc string, sids []string) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", nil
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return "", nil
	}
	return outsiders(dacl)
}

// PrivateFiles says what private means for bua's files on this OS, for
// `bua doctor`.
const PrivateFiles = "owned by you, with no access rule for other users"

// PrivateFix is the command that makes path, a file of the user's own
// (dir: a directory), private to the user.
func PrivateFix(path string, dir bool) string { return fixCommand(path, dir) }
