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

// classIndicator is the small class marker at the end of the step strip:
// connected, retrying (the class cluster is away; progress waits in
// memory) or refused. Empty without --class.
func (m Model) classIndicator() string {
	if m.opts.Class == nil {
		return ""
	}
	st := m.class.State
	if st == "" {
		st = class.Connecting
	}
	text := content.Msg("class.indicator." + string(st))
	switch st {
	case class.Connected:
		return m.th.Muted.Render(text)
	case class.Refused:
		return m.th.Alert.Render(text)
	default:
		return m.th.Hint.Render(text)
	}
}
