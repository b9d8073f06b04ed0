package tui

// The raised hand: a key opens a one-line note (optional; enter raises
// the hand, esc cancels), the same key lowers a raised hand; the step
// strip's class note says whether the hand is up and whether the
// instructor acknowledged it, and the footer says so when it happens.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
)

// Hands is the learner's hand in the class (class/learner.Publisher).
// Its methods never block.
type Hands interface {
	RaiseHand(note string)
	LowerHand()
	// Hand is the hand up now (nil: none; it lowers itself when its
	// step passes).
	Hand() *class.Hand
	// Acks delivers the instructor's acknowledgements.
	Acks() <-chan class.Ack
}

// ackMsg is an acknowledgement from the instructor.
type ackMsg struct{ ack class.Ack }

// waitAcks re-arms on the acknowledgements (nil: no class, no command).
func waitAcks(h Hands) tea.Cmd {
	if h == nil || h.Acks() == nil {
		return nil
	}
	ch := h.Acks()
	return func() tea.Msg {
		a, ok := <-ch
		if !ok {
			return nil
		}
		return ackMsg{a}
	}
}

// noting reports whether the learner is typing a hand's note.
func (m Model) noting() bool { return m.note != nil }

// toggleHand lowers a raised hand, or opens the note of a new one.
func (m *Model) toggleHand() tea.Cmd {
	if m.opts.Hands == nil {
		return nil
	}
	if m.opts.Hands.Hand() != nil {
		m.opts.Hands.LowerHand()
		return m.foot.showToast(toast{text: content.Msg("tui.hand.lowered"), target: -1})
	}
	m.note = []rune{}
	m.syncNote()
	return nil
}

// noteKey takes a key while the note is typed: enter raises the hand,
// esc cancels, backspace takes a character back, anything printable is
// typed (bounded by class.MaxNoteRunes).
func (m *Model) noteKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEnter:
		note := string(m.note)
		m.note = nil
		m.syncNote()
		m.opts.Hands.RaiseHand(note)
		if m.opts.Hands.Hand() == nil {
			return m.foot.showToast(toast{text: content.Msg("tui.hand.no_step"), target: -1})
		}
		return m.foot.showToast(toast{text: content.Msg("tui.hand.raised"), target: -1})
	case tea.KeyEsc:
		m.note = nil
	case tea.KeyBackspace:
		if len(m.note) > 0 {
			m.note = m.note[:len(m.note)-1]
		}
	case tea.KeySpace:
		m.note = append(m.note, ' ')
	case tea.KeyRunes:
		m.note = append(m.note, msg.Runes...)
	}
	if len(m.note) > class.MaxNoteRunes {
		m.note = m.note[:class.MaxNoteRunes]
	}
	m.syncNote()
	return nil
}

// syncNote shows the note being typed in the footer (cleaned: what the
// learner typed or pasted is text like any other).
func (m *Model) syncNote() {
	if m.note == nil {
		m.foot.input = ""
		return
	}
	m.foot.input = content.Msg("tui.hand.prompt", "note", class.Clip(string(m.note), class.MaxNoteRunes))
}

// acked shows an acknowledgement of the hand up now in the footer.
func (m *Model) acked(a class.Ack) tea.Cmd {
	cmds := []tea.Cmd{waitAcks(m.opts.Hands)}
	if a.Acknowledges(m.opts.Hands.Hand()) {
		cmds = append(cmds, m.foot.showToast(toast{text: content.Msg("tui.hand.acked"), target: -1}))
	}
	return tea.Batch(cmds...)
}

// handNote is the class note's word on the hand: up, acknowledged, or
// nothing.
func (m Model) handNote() string {
	if m.opts.Hands == nil {
		return ""
	}
	switch h := m.opts.Hands.Hand(); {
	case h == nil:
		return ""
	case !h.Acked.IsZero():
		return content.Msg("class.indicator.hand_acked")
	default:
		return content.Msg("class.indicator.hand_up")
	}
}
