package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/labhub/labmate/catalog"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/cli"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/trace"
	"github.com/labhub/labmate/tui"
)

// query is what the flags say of the lab to open, for the catalog.
func (c *common) query() catalog.Query {
	return catalog.Query{Lab: c.lab, Dir: c.labDir, Root: c.namedRoot(), StateDir: c.stateDir, Command: c.cmdPath}
}

// resolveLab is the lab the command works on (catalog.Resolve), found
// once: a command that asks twice (the TUI: the picker, then the wiring)
// compiles it once.
func (c *common) resolveLab() (*labkit.Lab, error) {
	if c.resolved != nil {
		return c.resolved, nil
	}
	r, err := catalog.Resolve(c.query())
	if err != nil {
		return nil, err // Korean, or a *catalog.Choose
	}
	if r.Notice != "" && !slices.Contains(c.notices, r.Notice) {
		c.notices = append(c.notices, r.Notice)
	}
	c.resolved, c.ref = r.Kit, r.Ref
	return r.Kit, nil
}

// namedRoot is the root the learner named: --root, else $LABMATE_ROOT,
// else "".
func (c *common) namedRoot() string {
	if c.root != "" {
		return c.root
	}
	return os.Getenv("LABMATE_ROOT")
}

// rootFor is the lab root a command works in (catalog.RootFor).
func (c *common) rootFor(lab *content.Lab) (string, error) {
	return catalog.RootFor(c.namedRoot(), lab)
}

// rememberLab keeps the TUI's lab for this root, as --lab named it, so
// the next `labmate` opens it without asking.
func (c *common) rememberLab() { catalog.Remember(c.query(), c.ref) }

// labFor is the lab a command's [ID|DIR] argument names, else the one
// the flags name (labcmd.LabFor).
func (c *common) labFor(args []string) (*labkit.Lab, error) {
	c.labArg(args)
	return c.resolveLab()
}

// labText is the text of the lab the flags name (sandboxcmd.Lab).
func (c *common) labText() (*content.Lab, error) {
	kit, err := c.resolveLab()
	if err != nil {
		return nil, err
	}
	return kit.Text, nil
}

// labArg reads the lab argument: an installed lab's ID or a directory.
func (c *common) labArg(args []string) {
	if len(args) != 1 {
		return
	}
	c.lab, c.labDir = catalog.Arg(args[0])
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
	// A store that cannot be read fails Open's own look-up, which says so.
	labs, _ := catalog.List()
	kit, err := catalog.Open(tr.Header.Lab, labs)
	if err != nil {
		return nil, nil, envError{content.Msg("cli.lab_missing", "lab", tr.Header.Lab, "err", err)}
	}
	return tr, kit, nil
}

// pickLab lets the learner choose a lab in a picker when nothing else
// says which to open and labmate runs on a terminal; the choice is then
// what --lab would have said. ok is false when the command must end with
// code (the learner left the picker, or it could not run).
func (c *common) pickLab(ctx context.Context, themeName string, streams cli.Streams) (code int, ok bool) {
	_, err := c.resolveLab()
	ch, choose := catalog.IsChoose(err)
	if !choose || !isTerminal(streams.Out) {
		return 0, true // resolved, or an error the command reports itself
	}
	var labs []tui.LabChoice
	for _, l := range ch.Labs {
		labs = append(labs, tui.LabChoice{ID: l.Ref, Title: l.Text.Title, Steps: len(l.Text.Steps)})
	}
	id, err := tui.PickLab(ctx, labs, themeName)
	if errors.Is(err, tui.ErrNoChoice) {
		return cli.ExitOK, false
	}
	if err != nil {
		fmt.Fprintln(streams.ErrOut, content.Msg("cli.tui_failed", "err", err))
		return cli.ExitFail, false
	}
	c.lab = id
	return 0, true
}
