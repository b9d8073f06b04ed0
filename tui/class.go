package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
)

// classMsg is the class publisher's newest status.
type classMsg struct{ st learner.Status }

// waitClass re-arms on the class publisher's statuses (nil: no class, no
// command, so an unconfigured class costs nothing).
func waitClass(ch <-chan learner.Status) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		st, ok := <-ch
		if !ok {
			return nil
		}
		return classMsg{st}
	}
}

// classNote is the small class marker at the end of the step strip:
// connected, retrying (the class cluster is away; progress waits in
// memory) or refused. None without --class.
func (m Model) classNote() (stripNote, bool) {
	if m.opts.Class == nil {
		return stripNote{}, false
	}
	st := m.class.State
	if st == "" {
		st = learner.Connecting
	}
	text := content.Msg("class.indicator." + string(st))
	if h := m.handNote(); h != "" {
		text += " " + h
	}
	switch st {
	case learner.Connected:
		return stripNote{text, m.th.Muted}, true
	case learner.Refused:
		return stripNote{text, m.th.Alert}, true
	default:
		return stripNote{text, m.th.Hint}, true
	}
}

// classLabMsg is the newest classlab.LabNote.
type classLabMsg struct{ note classlab.LabNote }

// waitClassLab re-arms on the class lab's notes (nil: none, no command).
func waitClassLab(ch <-chan classlab.LabNote) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return classLabMsg{n}
	}
}

// classLabNote is the step strip's note about the class's lab: a new
// version waiting for the next start, or a refused one.
func (m Model) classLabNote() (stripNote, bool) {
	switch n := m.classLab; {
	case n == nil:
		return stripNote{}, false
	case n.Refused:
		return stripNote{content.Msg("class.indicator.lab_refused"), m.th.Alert}, true
	default:
		return stripNote{content.Msg("class.indicator.lab_new", "version", n.Version), m.th.Banner}, true
	}
}

// noteClassLab shows a class lab note: in the strip until the next one,
// and once, whole, as a toast.
func (m *Model) noteClassLab(n classlab.LabNote) tea.Cmd {
	m.classLab = &n
	text := n.Why
	if !n.Refused {
		text = content.Msg("class.lab.toast_new", "version", n.Version)
	}
	return tea.Batch(m.foot.showToast(toast{text: text, target: -1}), waitClassLab(m.opts.ClassLab))
}
