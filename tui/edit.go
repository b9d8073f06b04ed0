package tui

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/editor"
	"github.com/labhub/labmate/tui/terminal"
)

// opener is the edit key: the file a failing check points at, opened at
// its line in the learner's editor. Inside tmux the editor gets a pane
// beside labmate's, so the lab stays on screen; outside, labmate hands
// the terminal to it and takes it back, on the same step, when it exits.
// What it needs of the outside world is resolved from the environment
// once (New) and used from commands only.
type opener struct {
	env  editor.Env
	tmux bool   // $TMUX: open a pane
	pane string // $TMUX_PANE: the pane to open it beside
	// handover runs the editor with the terminal (terminal.Run's writer);
	// nil: tea.ExecProcess, for a program with bubbletea's renderer.
	handover terminal.Handover
	// start runs a command that returns at once (tmux split-window, a
	// windowed editor); nil: run it for real.
	start func(argv []string) error
}

func newOpener() opener {
	return opener{env: editor.System(), tmux: os.Getenv("TMUX") != "", pane: os.Getenv("TMUX_PANE")}
}

// editedMsg says how opening the editor went.
type editedMsg struct {
	place checks.Place
	name  string // the editor
	how   editHow
	err   error
}

type editHow int

const (
	editedHere   editHow = iota // the editor had the terminal and exited
	editedPane                  // a tmux pane beside labmate's
	editedWindow                // an editor with a window of its own
)

// editPlace is the place the edit key opens on this page: the first
// check of the step that did not pass and points at a line of a lab file
// (checks.PlaceOf); ok is false when there is none, on the introduction
// and over the help.
func (m Model) editPlace() (checks.Place, bool) {
	s := m.stepAt(m.page)
	r := m.result(s)
	if s == nil || r == nil || m.showHelp || m.ending || m.opts.Root == "" {
		return checks.Place{}, false
	}
	for _, c := range r.Checks {
		if c.Status == checks.Passed {
			continue
		}
		if p, ok := checks.PlaceOf(c.Where); ok && filepath.IsLocal(filepath.FromSlash(p.File)) {
			return p, true
		}
	}
	return checks.Place{}, false
}

// edit opens the place the edit key offers, from a command.
func (m *Model) edit() tea.Cmd {
	p, ok := m.editPlace()
	if !ok {
		return nil
	}
	return m.opener.open(m.opts.Root, p, m.width)
}

// open finds the editor and opens p under root: in a tmux pane, in a
// window of its own, or with the terminal handed over.
func (o opener) open(root string, p checks.Place, width int) tea.Cmd {
	return func() tea.Msg {
		path, err := editor.Resolve(root, p.File)
		if err != nil {
			return editedMsg{place: p, err: err}
		}
		ed, err := editor.Find(o.env)
		if err != nil {
			return editedMsg{place: p, err: err}
		}
		at := editor.Place{Path: path, Line: p.Line, Col: p.Col}
		res := editedMsg{place: p, name: ed.Name}
		switch {
		case ed.Window:
			res.how, res.err = editedWindow, o.run(ed.Command(at))
			return res
		case o.tmux:
			res.how = editedPane
			res.err = o.run(append([]string{"tmux"}, ed.Split(at, o.pane, root, width, MinWidth)...))
			return res
		}
		argv := ed.Command(at)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = root
		done := func(err error) tea.Msg { return editedMsg{place: p, name: ed.Name, how: editedHere, err: err} }
		if o.handover != nil {
			return o.handover.Exec(cmd, done)()
		}
		return tea.ExecProcess(cmd, done)()
	}
}

// run runs a command that returns at once; its own words on failure
// become the error.
func (o opener) run(argv []string) error {
	if o.start != nil {
		return o.start(argv)
	}
	if argv[0] != "tmux" {
		// A windowed editor keeps running: started, not waited for.
		cmd := exec.Command(argv[0], argv[1:]...)
		if err := cmd.Start(); err != nil {
			return err
		}
		return cmd.Process.Release()
	}
	return tmuxRun("", argv[1:]...)
}

// edited says, in a toast, where the editor opened or why it did not;
// the screen is otherwise as it was.
func (m *Model) edited(msg editedMsg) tea.Cmd {
	at := msg.place.File
	if msg.place.Line > 0 {
		at += ":" + strconv.Itoa(msg.place.Line)
	}
	var text string
	var bad *editor.BadVar
	var out *editor.Outside
	var exit *exec.ExitError
	switch err := msg.err; {
	case err == nil && msg.how == editedPane:
		text = content.Msg("tui.toast.edit_pane", "editor", msg.name, "file", at)
	case err == nil && msg.how == editedWindow:
		text = content.Msg("tui.toast.edit_window", "editor", msg.name, "file", at)
	case err == nil:
		text = content.Msg("tui.toast.edit_done", "editor", msg.name)
	case errors.Is(err, editor.ErrNone):
		text = content.Msg("tui.toast.edit_none")
	case errors.As(err, &bad):
		text = content.Msg("tui.toast.edit_bad_var", "var", bad.Var)
	case errors.As(err, &out):
		text = content.Msg("tui.toast.edit_outside", "file", msg.place.File)
	case errors.As(err, &exit):
		text = content.Msg("tui.toast.edit_exit", "editor", msg.name, "code", exit.ExitCode())
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		text = content.Msg("tui.toast.edit_missing", "editor", msg.name)
	case msg.how == editedPane:
		text = content.Msg("tui.toast.edit_pane_failed", "err", err.Error())
	default:
		text = content.Msg("tui.toast.edit_failed", "editor", msg.name)
	}
	return m.foot.showToast(toast{text: text, target: -1})
}
