package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// classMsg is the class publisher's newest status.
type classMsg struct{ st class.Status }

// waitClass re-arms on the class publisher's statuses (nil: no class, no
// command, so an unconfigured class costs nothing).
func waitClass(ch <-chan class.Status) tea.Cmd {
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
		st = class.Connecting
	}
	text := content.Msg("class.indicator." + string(st))
	switch st {
	case class.Connected:
		return stripNote{text, m.th.Muted}, true
	case class.Refused:
		return stripNote{text, m.th.Alert}, true
	default:
		return stripNote{text, m.th.Hint}, true
	}
}
