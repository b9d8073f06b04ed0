package board

// The raised hands and the room's named mistakes in the help-first view:
// hands first (not yet acknowledged, then the longest up), each with its
// step, time on the step, hint rung, note and failing checks with their
// messages; then per step the mistakes the learners on it make, with how
// many learners make each, and how many caught the step up.

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
)

// Acknowledger tells a learner the instructor saw their raised hand
// (admin.Acknowledge on the class's connection).
type Acknowledger func(learner, lab string, hand class.Hand) error

// ackedMsg is an acknowledgement sent (err nil) or not.
type ackedMsg struct {
	key string
	err error
}

// acknowledge acknowledges the hand of the learner the instructor chose:
// the one whose detail is open, else the one under the help-first
// queue's cursor. A learner with no hand up, or one already
// acknowledged, gets a note on the view and nothing is sent: the
// instructor pointed at someone, and telling another learner "the
// instructor saw you" would be false. Nil when the board cannot write.
func (m *Model) acknowledge() tea.Cmd {
	if m.opts.Acknowledge == nil {
		return nil
	}
	chosen, name := m.detail, ""
	if r, ok := m.Detail(); ok {
		name = r.Shown()
	} else if m.view == HelpFirst && m.qcursor < len(m.queue) {
		w := m.queue[m.qcursor]
		chosen, name = w.Learner+"/"+w.Lab, w.Name
		if name == "" {
			name = w.Learner
		}
	}
	if chosen == "" {
		return nil
	}
	for _, h := range m.hands {
		if h.Learner+"/"+h.Lab != chosen {
			continue
		}
		if h.Acked || m.acked[handKey(h.Learner, h.Lab, h.Hand)] {
			m.ackNote = content.Msg("class.board.ack_already", "name", name)
			return nil
		}
		k := handKey(h.Learner, h.Lab, h.Hand)
		m.acked[k], m.ackNote = true, "" // shown at once; the learner's record confirms it
		ack, learner, lab, hand := m.opts.Acknowledge, h.Learner, h.Lab, h.Hand
		return func() tea.Msg { return ackedMsg{key: k, err: ack(learner, lab, hand)} }
	}
	m.ackNote = content.Msg("class.board.ack_no_hand", "name", name)
	return nil
}

// handKey names one raised hand: its learner, lab and when it went up.
func handKey(learner, lab string, h class.Hand) string {
	return learner + "/" + lab + "/" + h.Raised.String()
}

// detailHandWaits reports whether the learner whose detail is open has
// a hand up that nobody acknowledged yet.
func (m Model) detailHandWaits() bool {
	r, ok := m.Detail()
	return ok && r.Hand != nil && r.Hand.Acked.IsZero() && !m.acked[handKey(r.Learner, r.Lab, *r.Hand)]
}

// detailHand are the lines of the raised hand of r in its detail: the
// step, how long ago it went up, whether it was acknowledged, the note.
func (m Model) detailHand(r class.Record) []string {
	h := r.Hand
	if h == nil {
		return nil
	}
	state, style := content.Msg("class.board.detail.hand_waiting"), m.th.Banner
	if !h.Acked.IsZero() || m.acked[handKey(r.Learner, r.Lab, *h)] {
		state, style = content.Msg("class.board.detail.hand_acked"), m.th.Muted
	}
	var out []string
	for _, l := range pageWrap(content.Msg("class.board.detail.hand", "step", h.Step, "t", Ago(m.now.Sub(h.Raised)), "state", state), m.width) {
		out = append(out, style.Render(l))
	}
	if h.Note != "" {
		out = append(out, pageWrap(content.Msg("class.board.hand.note", "note", h.Note), m.width)...)
	}
	return out
}

// handLines are the raised hands, each a line and its checks under it,
// at most rows lines in all.
func (m Model) handLines(rows int) []string {
	var out []string
	w := max(20, m.width-2)
	for _, h := range m.hands {
		if len(out) >= rows {
			break
		}
		state := content.Msg("class.board.hand.waiting")
		style := m.th.Banner
		if h.Acked || m.acked[handKey(h.Learner, h.Lab, h.Hand)] {
			state, style = content.Msg("class.board.hand.acked"), m.th.Muted
		}
		head := content.Msg("class.board.hand.line", "name", termtext.Clean(h.Name), "step", h.Step, "up", Ago(h.Up),
			"on", Ago(h.OnStep), "hints", h.Hints)
		out = append(out, " "+style.Render(runewidth.Truncate(state+" "+head, w, "…")))
		if h.Note != "" {
			out = append(out, "   "+runewidth.Truncate(content.Msg("class.board.hand.note", "note", termtext.Clean(h.Note)), w-2, "…"))
		}
		for _, c := range h.Checks {
			line := termtext.Clean(c.ID)
			if c.Message != "" {
				line += ": " + termtext.Clean(c.Message)
			}
			out = append(out, "   "+m.th.Status(checks.Failed).Render(runewidth.Truncate(line, w-2, "…")))
		}
	}
	if len(out) > rows {
		out = out[:rows]
	}
	return out
}

// mistakeLines are, per step, the named mistakes of the learners on it
// ("7명: …"), then one line of how many caught each step up.
func (m Model) mistakeLines() []string {
	var out, caught []string
	w := max(20, m.width-2)
	for _, st := range m.stats.Steps {
		for _, mk := range st.Mistakes {
			out = append(out, " "+runewidth.Truncate(content.Msg("class.board.mistake", "step", st.Number, "n", mk.N,
				"label", termtext.Clean(mk.ID)), w, "…"))
		}
		if st.CaughtUp > 0 {
			caught = append(caught, content.Msg("class.board.caught_up_step", "step", st.Number, "n", st.CaughtUp))
		}
	}
	if len(caught) > 0 {
		out = append(out, " "+m.th.Muted.Render(runewidth.Truncate(content.Msg("class.board.caught_up", "steps", strings.Join(caught, ", ")), w, "…")))
	}
	return out
}

// roomLines are what the help-first view shows above the queue: the
// hands, then the mistakes, each block under its heading, in at most
// rows lines.
func (m Model) roomLines(rows int) []string {
	var out []string
	if m.ackErr != nil {
		out = append(out, m.th.Alert.Render(runewidth.Truncate(content.Msg("class.board.ack_failed", "err", termtext.Clean(m.ackErr.Error())), max(20, m.width-2), "…")))
	}
	if m.ackNote != "" {
		out = append(out, m.th.Banner.Render(runewidth.Truncate(m.ackNote, max(20, m.width-2), "…")))
	}
	if len(m.hands) > 0 {
		out = append(out, m.th.Alert.Render(content.Msg("class.board.hands", "n", len(m.hands))))
		out = append(out, m.handLines(max(0, rows-1))...)
	}
	if mk := m.mistakeLines(); len(mk) > 0 && len(out)+1 < rows {
		out = append(out, m.th.Muted.Render(content.Msg("class.board.mistakes")))
		out = append(out, mk[:min(len(mk), rows-len(out))]...)
	}
	return out[:min(len(out), rows)]
}

// roomRows is how many rows the help-first view gives the room's lines
// at most: half the list's.
func (m Model) roomRows() int { return m.listRows() / 2 }

// queueRows is how many rows of the help-first queue fit below the
// room's lines.
func (m Model) queueRows() int { return max(1, m.listRows()-len(m.roomLines(m.roomRows()))) }
