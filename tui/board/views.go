package board

import (
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/content"
)

// View is what the board shows: the learners' table, who needs the
// instructor first, the funnel, or per step times and failing checks.
type View int

const (
	Learners  View = iota // a row per learner
	HelpFirst             // learners longest on one step, with the check that fails
	Funnel                // per step: how many are on it, how many passed it
	Steps                 // per step: median and slowest time to pass, the check failing most
	viewCount
)

// Bar glyphs: ASCII, one cell in every terminal and readable without
// colour (NO_COLOR).
const (
	barOn     = "#"
	barPassed = "="
)

// statsLab is the lab the funnel and step views count: the board's
// --lab, else the class's lab, else the lab most records are of.
func (m Model) statsLab() string {
	return classstats.MainLab(m.class.Records, m.opts.Lab, m.class.Lab.ID)
}

// summarize recomputes the views' numbers from the class (on every new
// class and every minute tick, never in View).
func (m *Model) summarize() {
	lab := m.statsLab()
	recs := classstats.OfLab(m.class.Records, lab)
	m.stats = classstats.Summarize(recs, len(m.titles[lab]))
	m.otherLabs = len(m.class.Records) - len(recs)
	m.queue = classstats.HelpFirst(m.class.Records, m.now, 0)
	m.hands = classstats.Hands(m.class.Records, m.now)
}

func (m Model) viewName(v View) string { return content.Msg(fmt.Sprintf("class.board.view.%d", v)) }

// header is a view's column header line (the footer names the view).
func (m Model) header(cols string) string { return m.th.Muted.Render(cols) }

func (m Model) helpLines() []string {
	nw := max(6, min(20, m.width/5))
	cw := max(8, m.width-2-4-nw-1-7-1-9-1-8)
	head := padLeft("#", 3) + " " + pad(content.Msg("class.board.col.name"), nw) + " " + pad(content.Msg("class.board.col.current"), 7) + " " +
		padLeft(content.Msg("class.board.col.time"), 9) + " " + pad(content.Msg("class.board.col.check"), cw) + " " + content.Msg("class.board.col.hints")
	// Raised hands and the room's mistakes first, in at most half the
	// rows while learners wait below.
	room := m.roomLines(m.listRows() / 2)
	lines := append(append([]string{m.title()}, room...), m.header(head))
	if len(m.queue) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.help.nobody")))
	}
	end := min(len(m.queue), max(0, m.listRows()-len(room)))
	for i, w := range m.queue[:end] {
		check := w.Check
		if w.More > 0 {
			check += content.Msg("class.board.help.more", "n", w.More)
		}
		hints := fmt.Sprint(w.Hints)
		if w.Solution {
			hints += " " + content.Msg("class.board.detail.solution")
		}
		since := Ago(w.For)
		if w.For >= m.opts.Stuck {
			since = m.th.Banner.Render(padLeft(since, 9))
		} else {
			since = padLeft(since, 9)
		}
		lines = append(lines, padLeft(fmt.Sprint(i+1), 3)+" "+pad(w.Name, nw)+" "+pad(content.Msg("class.board.step", "n", w.Step), 7)+" "+
			since+" "+m.th.Status(checks.Failed).Render(pad(check, cw))+" "+m.th.Hint.Render(hints))
	}
	return lines
}

// emptyWord is what a view shows with nothing to show: still reading,
// or there is nothing.
func (m Model) emptyWord(nothing string) string {
	if !m.class.Synced {
		return content.Msg("class.board.syncing")
	}
	return nothing
}

// stepTitle is step n's title in the counted lab ("" when unknown),
// fitted to w cells.
func (m Model) stepTitle(n, w int) string {
	return pad(fmt.Sprintf("%2d %s", n, m.titles[m.statsLab()][n]), w)
}

func (m Model) funnelLines() []string {
	tw := max(6, min(24, (m.width-18)/3))
	bw := max(1, (m.width-18-tw)/2)
	head := "  " + pad(content.Msg("class.board.col.step"), tw+1) + pad(content.Msg("class.board.col.on"), bw+5+2) + content.Msg("class.board.col.passed")
	lines := []string{m.title(), m.header(head)}
	s := m.stats
	if len(s.Steps) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.empty")))
	}
	counted := s.Learners - s.Flagged - s.Absent
	bar := func(n int, glyph string) string {
		w := 0
		if counted > 0 && n > 0 {
			w = max(1, (n*bw+counted-1)/counted) // any learner shows
		}
		return pad(strings.Repeat(glyph, w), bw)
	}
	for _, st := range s.Steps {
		lines = append(lines, "  "+m.stepTitle(st.Number, tw)+" "+
			m.th.Status(checks.Failed).Render(bar(st.On, barOn))+" "+padLeft(fmt.Sprint(st.On), 4)+"  "+
			m.th.Status(checks.Passed).Render(bar(st.Passed, barPassed))+" "+padLeft(fmt.Sprint(st.Passed), 4))
	}
	lines = append(lines, "", "  "+m.th.Muted.Render(content.Msg("class.board.funnel.total", "done", s.Done, "absent", s.Absent,
		"flagged", s.Flagged, "other", m.otherLabs)))
	return lines
}

func (m Model) stepLines() []string {
	tw := max(6, min(24, m.width/4))
	cw := max(8, m.width-2-tw-1-9-1-9-1)
	head := "  " + pad(content.Msg("class.board.col.step"), tw+1) + padLeft(content.Msg("class.board.col.median"), 9) + " " +
		padLeft(content.Msg("class.board.col.slowest"), 9) + " " + content.Msg("class.board.col.failing_most")
	lines := []string{m.title(), m.header(head)}
	if len(m.stats.Steps) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.empty")))
	}
	for _, st := range m.stats.Steps {
		median, slowest := "-", "-"
		if len(st.Times) > 0 {
			median, slowest = Ago(st.Median()), Ago(st.Slowest())
		}
		check := ""
		if len(st.Failing) > 0 {
			f := st.Failing[0]
			check = m.th.Status(checks.Failed).Render(runewidth.Truncate(content.Msg("class.board.steps.failing", "check", f.ID, "n", f.N), cw, "…"))
		}
		line := "  " + m.stepTitle(st.Number, tw) + " " + padLeft(median, 9) + " " + padLeft(slowest, 9)
		if check != "" {
			line += " " + check
		}
		lines = append(lines, line)
	}
	return lines
}

// viewLines draws the view shown.
func (m Model) viewLines() []string {
	switch {
	case m.detail:
		return m.detailLines()
	case m.view == HelpFirst:
		return m.helpLines()
	case m.view == Funnel:
		return m.funnelLines()
	case m.view == Steps:
		return m.stepLines()
	}
	return m.boardLines()
}
