package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
)

// EnvLab names the environment variable that chooses a lab like --lab.
const EnvLab = "LABMATE_LAB"

// chooseLab is the answer of resolveLab when nothing says which of
// several labs to open: the TUI shows a picker, doctor looks at every
// lab, the other commands say how to choose.
type chooseLab struct {
	labs []labOption
	cmd  string // the command that asked ("labmate check"), for the commands to suggest
	// unread says the installed labs could not be listed ("" if they were).
	unread string
}

// suggested is the command to suggest: the one that asked, else labmate.
func (e *chooseLab) suggested() string {
	if e.cmd == "" {
		return "labmate"
	}
	return e.cmd
}

func (e *chooseLab) Error() string {
	ids := make([]string, len(e.labs))
	var commands []string
	for i, l := range e.labs {
		ids[i] = l.Ref
		commands = append(commands, content.Msg("cli.choose_lab_command", "cmd", e.suggested(), "lab", l.Ref, "title", l.Text.Title, "root", l.Text.DefaultRoot))
	}
	msg := content.Msg("cli.choose_lab", "labs", strings.Join(ids, ", "), "commands", strings.Join(commands, "\n"), "env", EnvLab)
	if e.unread != "" {
		msg = e.unread + "\n" + msg
	}
	return msg
}

// resolveLab decides which lab a command works on: --lab-dir, --lab,
// $LABMATE_LAB, the lab last chosen for this root (while it is still
// there), the only lab there is, then the lab the root points to
// (labForRoot), in that order; the labs are the embedded ones and the
// installed ones (labOptions). Anything else is a *chooseLab.
func (c *common) resolveLab() (*labkit.Lab, error) {
	if c.resolved != nil {
		return c.resolved, nil
	}
	l, err := c.findLab()
	if err == nil {
		c.resolved = l
	}
	return l, err
}

func (c *common) findLab() (*labkit.Lab, error) {
	if c.labDir != "" {
		if c.lab != "" {
			return nil, envError{content.Msg("cli.lab_and_dir")}
		}
		return openLabDir(c.labDir)
	}
	// Deciding reads the labs' text only; only the chosen lab is
	// compiled (its CEL and all), so a start costs one lab, not every one.
	options, unread := labOptions()
	ref := c.lab
	if ref == "" {
		ref = os.Getenv(EnvLab)
	}
	if ref == "" && unread != "" && !slices.Contains(c.notices, unread) {
		// The choice below is made without the installed labs.
		c.notices = append(c.notices, unread)
	}
	if ref == "" {
		// A remembered lab that is gone (renamed, removed in an
		// upgrade or by lab remove) is no choice: the other rules decide.
		chosen, _ := state.ChosenLab(c.stateDir, c.rootKey())
		if slices.ContainsFunc(options, func(l labOption) bool { return l.Ref == chosen }) {
			ref = chosen
		}
	}
	if ref == "" && len(options) == 1 {
		ref = options[0].Ref
	}
	if ref == "" {
		ref = c.labForRoot(options)
	}
	if ref == "" {
		return nil, &chooseLab{labs: options, cmd: c.cmdPath, unread: unread}
	}
	l, err := openRef(ref, options)
	if err != nil {
		return nil, envError{content.Msg("cli.lab_missing", "lab", ref, "err", err)}
	}
	c.ref = ref
	return l, nil
}

// labForRoot is the one lab the lab root points to, or "".
// A named root chooses the lab whose default root it is, else the lab
// used with it before (labmate keeps progress for that lab and root).
// With no root named, each lab would use its default root: the one lab
// whose default root exists chooses, else the one used there before.
func (c *common) labForRoot(options []labOption) string {
	only := func(match func(l *content.Lab) bool) string {
		var refs []string
		for _, l := range options {
			if match(l.Text) {
				refs = append(refs, l.Ref)
			}
		}
		if len(refs) == 1 {
			return refs[0]
		}
		return ""
	}
	usedAt := func(l *content.Lab, root string) bool { return state.Used(c.stateDir, l.ID, root) }
	if key := c.rootKey(); key != "" {
		if ref := only(func(l *content.Lab) bool { return sameDir(l.DefaultRoot, key) }); ref != "" {
			return ref
		}
		return only(func(l *content.Lab) bool { return usedAt(l, key) })
	}
	if ref := only(func(l *content.Lab) bool { return isDir(l.DefaultRoot) }); ref != "" {
		return ref
	}
	return only(func(l *content.Lab) bool {
		root, err := c.rootFor(l)
		return err == nil && usedAt(l, root)
	})
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

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// openLabDir compiles the lab in dir (--lab-dir, `lab verify DIR`).
func openLabDir(dir string) (*labkit.Lab, error) {
	l, err := labkit.OpenDir(dir)
	if err != nil {
		return nil, envError{content.Msg("cli.lab_missing", "lab", dir, "err", err)}
	}
	return l, nil
}

// namedRoot is the root the learner named: --root, else $LABMATE_ROOT,
// else "".
func (c *common) namedRoot() string {
	if c.root != "" {
		return c.root
	}
	return os.Getenv("LABMATE_ROOT")
}

// rootKey is the named root made absolute, or "" when none was named: the
// key a lab choice is remembered by.
func (c *common) rootKey() string {
	root := c.namedRoot()
	if root == "" {
		return ""
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// rootFor is the lab root a command works in: the named one, else the
// lab's default, made absolute.
func (c *common) rootFor(lab *content.Lab) (string, error) {
	root := c.namedRoot()
	if root == "" {
		root = lab.DefaultRoot
	}
	return filepath.Abs(root)
}

// rememberLab keeps the TUI's lab for this root, as --lab named it, so
// the next `labmate` opens it without asking. Labs from a directory
// (--lab-dir) are not remembered.
func (c *common) rememberLab(*labkit.Lab) {
	if c.ref != "" && c.labDir == "" {
		_ = state.RememberLab(c.stateDir, c.rootKey(), c.ref)
	}
}

// newLabCmd is `labmate lab`: the installed labs, and the author's tools.
func newLabCmd(c *common, streams ioStreams) *cobra.Command {
	cmd := newCommand("lab", content.Msg("cli.help.command_arg"), noArgs, func(cmd *cobra.Command, _ []string) int {
		_ = cmd.Help()
		return exitOK
	})
	cmd.AddCommand(newLabListCmd(streams), newLabVerifyCmd(c, streams), newLabRBACCmd(c, streams),
		newLabInstallCmd(streams), newLabPackCmd(streams), newLabRemoveCmd(streams))
	return cmd
}

// isChooseLab reports whether err asks for a lab to be chosen.
func isChooseLab(err error) (*chooseLab, bool) {
	var ch *chooseLab
	return ch, errors.As(err, &ch)
}

// openTrace reads a trace and the lab it was recorded on: "reference" is
// the reference run of the lab the command works on; a file names its lab
// in its header (the lab of --lab-dir when the IDs match, else an
// installed one).
func (c *common) openTrace(name string) (*trace.Trace, *labkit.Lab, error) {
	if name == trace.ReferenceName {
		kit, err := c.resolveLab()
		if err != nil {
			return nil, nil, err
		}
		tr, err := trace.ReferenceOf(kit.Text)
		if err != nil {
			return nil, nil, envError{err.Error()}
		}
		return tr, kit, nil
	}
	tr, err := trace.Open(name)
	if err != nil {
		return nil, nil, envError{err.Error()}
	}
	if c.labDir != "" {
		kit, err := c.resolveLab()
		if err != nil {
			return nil, nil, err
		}
		if kit.ID() == tr.Header.Lab {
			return tr, kit, nil
		}
	}
	// A store that cannot be read fails openRef's own look-up, which says so.
	options, _ := labOptions()
	kit, err := openRef(tr.Header.Lab, options)
	if err != nil {
		return nil, nil, envError{content.Msg("cli.lab_missing", "lab", tr.Header.Lab, "err", err)}
	}
	return tr, kit, nil
}

// pickLab lets the learner choose a lab in a picker when nothing else
// says which to open and labmate runs on a terminal; the choice is then
// what --lab would have said. ok is false when the command must end with
// code (the learner left the picker, or it could not run).
func (c *common) pickLab(ctx context.Context, themeName string, streams ioStreams) (code int, ok bool) {
	_, err := c.resolveLab()
	ch, choose := isChooseLab(err)
	if !choose || !isTerminal(streams.Out) {
		return 0, true // resolved, or an error the command reports itself
	}
	var labs []tui.LabChoice
	for _, l := range ch.labs {
		labs = append(labs, tui.LabChoice{ID: l.Ref, Title: l.Text.Title, Steps: len(l.Text.Steps)})
	}
	id, err := tui.PickLab(ctx, labs, themeName)
	if errors.Is(err, tui.ErrNoChoice) {
		return exitOK, false
	}
	if err != nil {
		fmt.Fprintln(streams.ErrOut, content.Msg("cli.tui_failed", "err", err))
		return exitFail, false
	}
	c.lab = id
	return 0, true
}
