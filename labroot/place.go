package labroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/labhub/labmate/content"
)

// State is what the lab root is like now.
type State string

const (
	Ready      State = "ready"      // a directory the learner can list and write in
	Missing    State = "missing"    // nothing there yet
	NotDir     State = "not_dir"    // something that is not a directory where it goes
	Unreadable State = "unreadable" // cannot be looked at or listed
	Unwritable State = "unwritable" // can be listed, not written in
)

// Place is a lab root as observed.
type Place struct {
	Root
	State State
	// Entries is how many entries the directory holds (Ready,
	// Unwritable).
	Entries int
	// Parent is a missing root's nearest existing parent, and CanMake
	// whether the learner can create the root there.
	Parent  string
	CanMake bool
	// Blocker is the directory in the learner's way (a missing root's
	// parent, the nearest one on the way to a root that cannot be looked
	// at, the root itself), and Own whether it is theirs: changing its
	// mode is theirs to do. A chmod is never the advice for anyone
	// else's.
	Blocker string
	Own     bool
	// Err is what the system said when the root could not be looked at.
	Err error
}

// Look observes the lab root: stat, a listing, access(2) for writing.
// It changes nothing.
func Look(r Root) Place {
	p := Place{Root: r}
	fi, err := os.Stat(r.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.State = Missing
		p.Parent = nearest(filepath.Dir(r.Path))
		p.CanMake = isDir(p.Parent) && writable(p.Parent)
		p.Blocker, p.Own = p.Parent, owns(p.Parent)
		return p
	case err != nil:
		p.State, p.Err = Unreadable, err
		p.Blocker = nearest(r.Path)
		p.Own = owns(p.Blocker)
		return p
	case !fi.IsDir():
		p.State, p.Blocker, p.Own = NotDir, r.Path, ownsInfo(fi)
		return p
	}
	p.Blocker, p.Own = r.Path, ownsInfo(fi)
	entries, err := os.ReadDir(r.Path)
	if err != nil {
		p.State, p.Err = Unreadable, err
		return p
	}
	p.Entries = len(entries)
	if !writable(r.Path) {
		p.State = Unwritable
		return p
	}
	p.State = Ready
	return p
}

// nearest is p or its nearest parent that exists (as os.Stat sees it).
func nearest(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// writable asks the kernel whether this process may create entries in
// dir (access(2) with W_OK|X_OK: permissions, ACLs, a read-only mount).
func writable(dir string) bool { return unix.Access(dir, unix.W_OK|unix.X_OK) == nil }

func owns(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && ownsInfo(fi)
}

func ownsInfo(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// usable reports whether the learner could work in dir: it is ready, or
// missing where they can create it.
func usable(dir string) bool {
	p := Look(Root{Path: dir})
	return p.State == Ready || p.State == Missing && p.CanMake
}

// Note is what the learner reads about the place, in Korean: where the
// lab's files go (as they would type it, ~/gpuop) and, when the learner
// cannot work there yet, why. "" when it is ready.
func (p Place) Note() string {
	root := p.Home.Short(p.Path)
	switch p.State {
	case Ready:
		return ""
	case Missing:
		if p.CanMake {
			return content.Msg("root.missing", "root", root)
		}
		return content.Msg("root.cannot_make", "root", root, "parent", p.Home.Short(p.Parent))
	case NotDir:
		return content.Msg("root.not_dir", "root", root)
	case Unwritable:
		return content.Msg("root.unwritable", "root", root)
	}
	return content.Msg("root.unreadable", "root", root, "why", Why(p.Err))
}

// Detail is the place in one Korean line for a list of findings
// (doctor): where the files go, where that was chosen, and what is
// wrong with it.
func (p Place) Detail() string {
	from := content.Msg("root.from."+string(p.From), "path", p.ConfigPath)
	if p.State == Ready {
		return content.Msg("root.ready", "root", p.Home.Short(p.Path), "entries", p.Entries, "from", from)
	}
	return p.Note() + " " + content.Msg("root.chosen", "from", from)
}

// Fixes are the commands that let the learner work (one a line, a
// comment after #): make the directory when they can; else change the
// mode of a directory that is theirs, or name another root the way this
// one was named (the flag, the environment, the settings file). Never
// sudo, never a chmod of a directory that is not theirs.
func (p Place) Fixes() []string {
	switch p.State {
	case Ready:
		return nil
	case Missing:
		if p.CanMake {
			return []string{content.Msg("root.fix.mkdir", "root", p.Home.Short(p.Path))}
		}
		if p.Own && isDir(p.Blocker) {
			return []string{content.Msg("root.fix.chmod", "dir", p.Home.Short(p.Blocker))}
		}
	case Unreadable, Unwritable:
		// A mode is what a chmod changes: not a loop of links, a
		// read-only mount or a failing disk.
		denied := p.State == Unwritable || errors.Is(p.Err, fs.ErrPermission)
		if p.Own && denied && p.Blocker != "" {
			return []string{content.Msg("root.fix.chmod", "dir", p.Home.Short(p.Blocker))}
		}
	case NotDir:
		if p.Own {
			return append([]string{content.Msg("root.fix.move", "root", p.Home.Short(p.Path))}, p.elsewhere()...)
		}
	}
	return p.elsewhere()
}

// elsewhere names another root the way this one was named.
func (p Place) elsewhere() []string {
	alt := p.alternative()
	flag := content.Msg("root.fix.flag", "alt", alt)
	config := ""
	if p.ConfigPath != "" {
		config = content.Msg("root.fix.config", "path", p.Home.Short(p.ConfigPath), "lab", p.Lab, "alt", alt)
	}
	var out []string
	switch p.From {
	case FromFlag:
		out = []string{flag}
	case FromEnv:
		out = []string{content.Msg("root.fix.env", "alt", alt)}
	case FromConfig:
		out = []string{config}
	default:
		out = []string{flag, config}
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// alternative is a root the learner can use instead, as they would type
// it: where the lab's files go when nothing is named, else a directory
// of the same name in their home, else a placeholder.
func (p Place) alternative() string {
	if p.Default != "" && p.Default != p.Path && usable(p.Default) {
		return p.Home.Short(p.Default)
	}
	if p.Home.Dir != "" {
		if c := filepath.Join(p.Home.Dir, filepath.Base(p.Path)); c != p.Path && usable(c) {
			return p.Home.Short(c)
		}
	}
	return content.Msg("root.fix.any")
}

// Say is the note with its fixes, for a line of text (the problems
// check prints): "" when the place is ready.
func (p Place) Say() string {
	note := p.Note()
	if note == "" {
		return note
	}
	return note + "\n  " + strings.Join(p.Fixes(), "\n  ")
}

// Make creates the lab root, only the directory and the parents it
// lacks, as `mkdir -p` does (mode 0777 less the umask); nothing goes in
// it. made is false when a directory was there already (made since it
// was looked at). Its error is Korean and says what to do instead.
func (p Place) Make() (made bool, err error) {
	if fi, err := os.Stat(p.Path); err == nil && fi.IsDir() {
		return false, nil
	}
	if err := os.MkdirAll(p.Path, 0o777); err != nil {
		now := Look(p.Root)
		why := Why(err)
		if now.State == NotDir {
			why = content.Msg("root.why.exists") // ENOTDIR names the root itself
		}
		msg := content.Msg("root.make_failed", "root", p.Home.Short(p.Path), "why", why)
		if fixes := now.Fixes(); len(fixes) > 0 {
			msg += " " + content.Msg("root.instead", "fix", strings.Join(fixes, " / "))
		}
		return false, errors.New(msg)
	}
	return true, nil
}

// Why words what the system said about a path in Korean (the errno's
// name where Korean has no word for it).
func Why(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrPermission):
		return content.Msg("root.why.permission")
	case errors.As(err, &errno):
		switch errno {
		case syscall.ENOTDIR:
			return content.Msg("root.why.not_dir")
		case syscall.ELOOP:
			return content.Msg("root.why.loop")
		case syscall.EROFS:
			return content.Msg("root.why.read_only")
		case syscall.ENOSPC, syscall.EDQUOT:
			return content.Msg("root.why.no_space")
		case syscall.EEXIST:
			return content.Msg("root.why.exists")
		}
		return content.Msg("root.why.other", "errno", unix.ErrnoName(errno))
	}
	return content.Msg("root.why.other", "errno", "?")
}
