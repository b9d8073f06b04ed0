package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/labhub/labmate/config"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/state"
)

// EnvLab names the environment variable that chooses a lab like --lab.
const EnvLab = "LABMATE_LAB"

// Query is what a command knows when it asks which lab to open.
type Query struct {
	Lab string // --lab
	Dir string // --lab-dir
	// Root is the lab root --root names ("" when none); $LABMATE_ROOT
	// is read here, as $LABMATE_LAB is.
	Root string
	// Config is the settings file whose [roots] name labs' roots
	// (--config; "" for its default place).
	Config   string
	StateDir string // --state-dir: where the lab chosen per root is kept
	// Command is the command that asks ("labmate check"), for the
	// commands a Choose suggests.
	Command string
}

// Resolved is the lab a Query chose.
type Resolved struct {
	Kit *labkit.Lab
	// Ref is how the lab was named ("gpu-incident", "my-lab@installed"),
	// "" for a directory: what Remember keeps.
	Ref string
	// Notice is a Korean line to show with the run: the choice was made
	// without the installed labs, whose store could not be read.
	Notice string
}

// Resolve decides which lab a command works on: the directory, the
// reference (Lab, else $LABMATE_LAB), the lab last chosen for this root
// (while it is still there), the only lab there is, then the lab the
// root points to (forRoot), in that order. Only the chosen lab is
// compiled (its CEL and all): deciding reads the labs' text, so a start
// costs one lab, not every one. Nothing to decide by is a *Choose; the
// other errors are Korean.
func Resolve(q Query) (Resolved, error) {
	if q.Dir != "" {
		if q.Lab != "" {
			return Resolved{}, errors.New(content.Msg("cli.lab_and_dir"))
		}
		kit, err := OpenDir(q.Dir)
		return Resolved{Kit: kit}, err
	}
	labs, unread := List()
	ref := q.Lab
	if ref == "" {
		ref = os.Getenv(EnvLab)
	}
	var r Resolved
	if ref == "" {
		r.Notice = unread
		// A remembered lab that is gone (renamed, removed in an
		// upgrade or by lab remove) is no choice: the other rules decide.
		chosen, _ := state.ChosenLab(q.StateDir, RootKey(q.named()))
		if slices.ContainsFunc(labs, func(l Lab) bool { return l.Ref == chosen }) {
			ref = chosen
		}
	}
	if ref == "" && len(labs) == 1 {
		ref = labs[0].Ref
	}
	if ref == "" {
		ref = q.forRoot(labs)
	}
	if ref == "" {
		return Resolved{}, &Choose{Labs: labs, Command: q.Command, Unread: unread}
	}
	kit, err := Open(ref, labs)
	if err != nil {
		return Resolved{}, errors.New(content.Msg("cli.lab_missing", "lab", ref, "err", err))
	}
	r.Kit, r.Ref = kit, ref
	return r, nil
}

// Remember keeps the lab a reference named for the query's root, so the
// next start there opens it without asking. A lab from a directory is
// not remembered.
func Remember(q Query, ref string) {
	if ref != "" && q.Dir == "" {
		_ = state.RememberLab(q.StateDir, RootKey(q.named()), ref)
	}
}

// forRoot is the one lab the lab root points to, or "". A named root
// chooses the lab whose own root (the settings file's, else its default
// for this learner, or the LabHub pages' /root/gpuop) it is, else the
// lab used with it before (labmate keeps progress for that lab and
// root). With no root named, each lab would use its own root: the one
// lab whose root exists chooses, else the one used there before.
func (q Query) forRoot(labs []Lab) string {
	only := func(match func(l *content.Lab) bool) string {
		var refs []string
		for _, l := range labs {
			if match(l.Text) {
				refs = append(refs, l.Ref)
			}
		}
		if len(refs) == 1 {
			return refs[0]
		}
		return ""
	}
	usedAt := func(l *content.Lab, root string) bool { return state.Used(q.StateDir, l.ID, root) }
	if key := RootKey(q.named()); key != "" {
		if ref := only(func(l *content.Lab) bool {
			r, err := q.root(l, false)
			return err == nil && sameDir(r.Path, key) || sameDir(labroot.AtLabHub(l.DefaultRoot), key)
		}); ref != "" {
			return ref
		}
		return only(func(l *content.Lab) bool { return usedAt(l, key) })
	}
	if ref := only(func(l *content.Lab) bool {
		r, err := q.RootOf(l)
		return err == nil && isDir(r.Path)
	}); ref != "" {
		return ref
	}
	return only(func(l *content.Lab) bool {
		r, err := q.RootOf(l)
		return err == nil && usedAt(l, r.Path)
	})
}

// named is the root the learner named for every lab: --root, else
// $LABMATE_ROOT ("" when neither).
func (q Query) named() string {
	if q.Root != "" {
		return q.Root
	}
	return os.Getenv(labroot.EnvRoot)
}

// RootKey is the named root made absolute, or "" when none was named:
// the key a lab choice is remembered by.
func RootKey(named string) string {
	if named == "" {
		return ""
	}
	if abs, err := labroot.CurrentHome().Expand(named); err == nil {
		return abs
	}
	return named
}

// RootOf is the lab root a command works in for lab, and where it was
// chosen (labroot.Choose): --root, $LABMATE_ROOT, the settings file's
// [roots], the lab's default made the learner's own. The settings
// file's warnings are the TUI's to show; here a bad entry is no root.
func (q Query) RootOf(lab *content.Lab) (labroot.Root, error) { return q.root(lab, true) }

// root is RootOf; without named, the lab's own root: what --root and
// $LABMATE_ROOT would replace.
func (q Query) root(lab *content.Lab, named bool) (labroot.Root, error) {
	path := config.Path(q.Config)
	cfg, _ := config.Load(path)
	n := labroot.Named{Config: cfg.Roots[lab.ID], ConfigPath: path}
	if named {
		n.Flag, n.Env = q.Root, os.Getenv(labroot.EnvRoot)
	}
	return labroot.Choose(lab, n, labroot.CurrentHome())
}

// sameDir reports whether a and b name the same directory: the same
// absolute path, or, when both exist, the same file (a symlink).
func sameDir(a, b string) bool {
	if abs, err := filepath.Abs(a); err == nil && abs == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && fa.IsDir() && os.SameFile(fa, fb)
}

// Choose is Resolve's answer when nothing says which of several labs to
// open: the TUI shows a picker, doctor looks at every lab, the other
// commands say how to choose.
type Choose struct {
	Labs    []Lab
	Command string // the command that asked ("labmate check")
	// Unread says the installed labs could not be listed ("" if they were).
	Unread string
}

// IsChoose reports whether err asks for a lab to be chosen.
func IsChoose(err error) (*Choose, bool) {
	var ch *Choose
	return ch, errors.As(err, &ch)
}

func (e *Choose) Error() string {
	cmd := e.Command
	if cmd == "" {
		cmd = "labmate"
	}
	ids := make([]string, len(e.Labs))
	var commands []string
	for i, l := range e.Labs {
		ids[i] = l.Ref
		commands = append(commands, content.Msg("cli.choose_lab_command", "cmd", cmd, "lab", l.Ref, "title", l.Text.Title, "root", DefaultShown(l.Text)))
	}
	msg := content.Msg("cli.choose_lab", "labs", strings.Join(ids, ", "), "commands", strings.Join(commands, "\n"), "env", EnvLab)
	if e.Unread != "" {
		msg = e.Unread + "\n" + msg
	}
	return msg
}

// DefaultShown is the lab's default root for this learner as they would
// type it (~/gpuop), or as declared when it cannot be known: for help
// texts and the commands a Choose suggests.
func DefaultShown(l *content.Lab) string {
	h := labroot.CurrentHome()
	if d, err := labroot.Default(l.DefaultRoot, h); err == nil {
		return h.Short(d)
	}
	return l.DefaultRoot
}

// OpenAll compiles every lab to choose among; one that does not compile
// is left out.
func (e *Choose) OpenAll() []*labkit.Lab {
	var out []*labkit.Lab
	for _, l := range e.Labs {
		if k, err := Open(l.Ref, e.Labs); err == nil {
			out = append(out, k)
		}
	}
	return out
}
