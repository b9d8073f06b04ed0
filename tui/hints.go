package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/keys"
)

// ladder is how far the learner went up each step's hint ladder (hints
// one by one, then the worked solution), by step number, and where that
// is saved.
type ladder struct {
	progress map[int]HintProgress
	onSave   func(step int, hintsSeen int, solutionSeen bool) error // nil: not saved
}

func newLadder(from map[int]HintProgress, onSave func(int, int, bool) error) ladder {
	l := ladder{progress: map[int]HintProgress{}, onSave: onSave}
	for step, p := range from {
		l.progress[step] = p
	}
	return l
}

// at is step's place on the ladder.
func (l ladder) at(step int) HintProgress { return l.progress[step] }

// climb opens step's next hint; solve opens its worked solution.
func (l ladder) climb(step int) {
	p := l.progress[step]
	p.Seen++
	l.progress[step] = p
}

func (l ladder) solve(step int) {
	p := l.progress[step]
	p.Solution = true
	l.progress[step] = p
}

// save hands step's place to onSave, from a command.
func (l ladder) save(step int) tea.Cmd {
	if l.onSave == nil {
		return nil
	}
	p := l.progress[step]
	on := l.onSave
	return saving(func() error { return on(step, p.Seen, p.Solution) })
}

// syncKeys words the hint key for the next rung of step s's ladder (nil:
// not a step page).
func (l ladder) syncKeys(k *keys.KeyMap, s *content.Step) {
	if s == nil {
		return
	}
	p := l.progress[s.Number]
	switch {
	case p.Seen < len(s.Hints):
		k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.hint", "n", p.Seen+1, "total", len(s.Hints)))
	case !p.Solution:
		k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.solution"))
	default:
		k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.solution_again"))
	}
}

// Progress returns how far the learner went up each step's hint ladder.
func (m Model) Progress() map[int]HintProgress {
	out := make(map[int]HintProgress, len(m.hints.progress))
	for k, v := range m.hints.progress {
		out[k] = v
	}
	return out
}

// nextHint climbs the current step's hint ladder: one more hint, then the
// worked solution behind a question.
func (m *Model) nextHint() tea.Cmd {
	s := m.stepAt(m.page)
	if s == nil {
		return nil
	}
	m.observed, m.showHelp, m.comparing, m.ending = false, false, false, false
	p := m.hints.at(s.Number)
	switch {
	case p.Seen < len(s.Hints):
		m.hints.climb(s.Number)
		m.rebuild()
		m.pg.scrollToBlock(m.hintBlock(p.Seen))
		return m.hints.save(s.Number)
	case !p.Solution:
		m.foot.ask()
		m.rebuild()
		m.pg.vp.GotoBottom()
	default:
		m.rebuild()
		m.pg.scrollToBlock(m.solutionBlock())
	}
	return nil
}

// openSolution opens the current step's worked solution (the question
// was answered yes).
func (m *Model) openSolution() tea.Cmd {
	s := m.stepAt(m.page)
	if s == nil {
		return nil
	}
	m.hints.solve(s.Number)
	m.rebuild()
	m.pg.scrollToBlock(m.solutionBlock())
	return tea.Batch(m.hints.save(s.Number), m.requestDocs())
}
