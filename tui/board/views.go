package board

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/theme"
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

// header is a view's heading and column header line (the footer names
// the view).
func (m Model) header(cols string) []string {
	return append(m.heading(), m.th.Muted.Render(cols))
}

// viewLines draws the view shown.
func (m Model) viewLines() []string {
	switch m.view {
	case HelpFirst:
		return m.helpLines()
	case Funnel:
		return m.funnelLines()
	case Steps:
		return m.stepLines()
	}
	return m.boardLines()
}

// The learners' table's columns.
const (
	currentWidth = 6 // "12단계", "미참여"
	timeWidth    = 9 // "1시간 5분", "머문 시간"
	hintsWidth   = 4 // "12+"
)

// table is the learners' table's layout at the board's width: the name
// column takes what the others leave, the marks column is as wide as the
// widest marks a row has, and the step glyphs lose their blanks before
// a mark would be cut.
type table struct {
	steps, stepWidth, name, marks int
}

func (m Model) layout() table {
	t := table{steps: m.steps(), stepWidth: 2, marks: ansi.StringWidth(content.Msg("class.board.col.mark"))}
	for _, r := range m.rows {
		t.marks = max(t.marks, ansi.StringWidth(strings.Join(m.marks(r), " ")))
	}
	fixed := func() int {
		return 2 + 1 + t.steps*t.stepWidth + 1 + currentWidth + 1 + timeWidth + 1 + hintsWidth + 1 + t.marks
	}
	if m.width-fixed() < 6 {
		t.stepWidth = 1
	}
	t.name = max(6, min(24, m.width-fixed()))
	return t
}

func (m Model) steps() int {
	n := 0
	for _, r := range m.rows {
		n = max(n, len(r.Steps))
	}
	if n == 0 {
		if t := m.titles[m.opts.Lab]; len(t) > 0 {
			n = len(t)
		}
	}
	return n
}

func (m Model) boardLines() []string {
	t := m.layout()
	head := "  " + pad(content.Msg("class.board.col.name"), t.name) + " "
	for i := 1; i <= t.steps; i++ {
		head += pad(fmt.Sprint(i%10), t.stepWidth)
	}
	head += " " + pad(content.Msg("class.board.col.current"), currentWidth) + " " + padLeft(content.Msg("class.board.col.time"), timeWidth) +
		" " + padLeft(content.Msg("class.board.col.hints"), hintsWidth) + " " + content.Msg("class.board.col.mark")
	lines := m.header(head)
	if len(m.rows) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.empty")))
	}
	end := min(len(m.rows), m.top+m.listRows())
	for i := m.top; i < end; i++ {
		lines = append(lines, m.row(m.rows[i], i == m.cursor, t))
	}
	return lines
}

// marks are a row's marks, in the order shown.
func (m Model) marks(r class.Record) []string {
	var out []string
	if m.Regressed(r) {
		out = append(out, content.Msg("class.board.mark.regressed"))
	}
	if m.Stuck(r) {
		out = append(out, content.Msg("class.board.mark.stuck"))
	}
	if m.Behind(r) {
		out = append(out, content.Msg("class.board.mark.behind"))
	}
	if r.Shared {
		out = append(out, content.Msg("class.board.mark.shared"))
	}
	return out
}

func (m Model) row(r class.Record, selected bool, t table) string {
	cur := "  "
	if selected {
		cur = theme.GlyphCurrent + " "
	}
	var b strings.Builder
	b.WriteString(cur)
	b.WriteString(pad(r.Shown(), t.name) + " ")
	b.WriteString(m.progress(r, t))
	var marks []string
	for _, mk := range m.marks(r) {
		style := m.th.Muted
		switch mk {
		case content.Msg("class.board.mark.regressed"), content.Msg("class.board.mark.shared"):
			style = m.th.Alert
		case content.Msg("class.board.mark.stuck"):
			style = m.th.Banner
		}
		marks = append(marks, style.Render(mk))
	}
	b.WriteString(strings.Join(marks, " "))
	line := strings.TrimRight(b.String(), " ")
	if selected {
		return m.th.Current.Render(ansi.Strip(line))
	}
	return line
}

// progress is a row's step glyphs and its current, time and hints
// columns; a flagged record has none of them, only its flag across the
// glyphs and the current column.
func (m Model) progress(r class.Record, t table) string {
	if r.Flag != "" {
		word := content.Msg("class.board.mark." + string(r.Flag))
		return m.th.Alert.Render(pad(word, t.steps*t.stepWidth+1+currentWidth)) + " " + padLeft("", timeWidth) + " " + padLeft("", hintsWidth) + " "
	}
	var b strings.Builder
	for i := 1; i <= t.steps; i++ {
		st := checks.Unknown
		if s := r.Step(i); s != nil {
			st = s.Status
		}
		b.WriteString(m.th.Status(st).Render(st.Glyph()) + strings.Repeat(" ", t.stepWidth-1))
	}
	current, since, hints := content.Msg("class.board.done"), "", ""
	if r.Current > 0 {
		current = content.Msg("class.board.step", "n", r.Current)
		if !r.CurrentSince.IsZero() {
			since = Ago(m.now.Sub(r.CurrentSince))
		}
		if s := r.Step(r.Current); s != nil {
			hints = fmt.Sprint(s.Hints)
			if s.Solution {
				hints += "+"
			}
		}
	}
	if r.Absent() {
		current = content.Msg("class.board.no_record")
	}
	if t.stepWidth == 1 {
		b.WriteString(" ")
	}
	b.WriteString(" " + pad(current, currentWidth) + " " + padLeft(since, timeWidth) + " " + padLeft(hints, hintsWidth) + " ")
	return b.String()
}

// fitCount is text shortened to w cells with an ellipsis, keeping the
// tail (a count: " 외 2개", " (9명)") whole.
func fitCount(text, tail string, w int) string {
	tw := ansi.StringWidth(tail)
	if ansi.StringWidth(text)+tw <= w {
		return text + tail
	}
	return pad(text, max(1, w-tw)) + tail
}

func (m Model) helpLines() []string {
	nw := max(6, min(20, m.width/5))
	// The hint column holds "99 풀이 봄" at most.
	hw := ansi.StringWidth("99 " + content.Msg("class.board.detail.solution"))
	cw := max(8, m.width-2-3-nw-1-7-1-timeWidth-1-1-hw)
	head := "  " + padLeft("#", 2) + " " + pad(content.Msg("class.board.col.name"), nw) + " " + pad(content.Msg("class.board.col.current"), 7) + " " +
		padLeft(content.Msg("class.board.col.time"), timeWidth) + " " + pad(content.Msg("class.board.col.check"), cw) + " " + content.Msg("class.board.col.hints")
	// Raised hands and the room's mistakes first, in at most half the
	// rows, while the learners who wait longest follow below.
	room := m.roomLines(m.roomRows())
	lines := append(m.heading(), room...)
	lines = append(lines, m.th.Muted.Render(head))
	if len(m.queue) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.help.nobody")))
	}
	end := min(len(m.queue), m.qtop+max(1, m.listRows()-len(room))) // queueRows, the room drawn once
	for i := m.qtop; i < end; i++ {
		w := m.queue[i]
		more := ""
		if w.More > 0 {
			more = content.Msg("class.board.help.more", "n", w.More)
		}
		check := pad(fitCount(w.Check, more, cw), cw)
		hints := fmt.Sprint(w.Hints)
		if w.Solution {
			hints += " " + content.Msg("class.board.detail.solution")
		}
		since := padLeft(Ago(w.For), timeWidth)
		cur := "  "
		if i == m.qcursor {
			cur = theme.GlyphCurrent + " "
		}
		line := cur + padLeft(fmt.Sprint(i+1), 2) + " " + pad(w.Name, nw) + " " + pad(content.Msg("class.board.step", "n", w.Step), 7) + " "
		if i == m.qcursor {
			lines = append(lines, m.th.Current.Render(strings.TrimRight(line+since+" "+check+" "+hints, " ")))
			continue
		}
		if w.For >= m.opts.Stuck {
			since = m.th.Banner.Render(since)
		}
		lines = append(lines, line+since+" "+m.th.Status(checks.Failed).Render(check)+" "+m.th.Hint.Render(hints))
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
	lines := m.header(head)
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
	total := content.Msg("class.board.funnel.total", "done", s.Done, "absent", s.Absent, "flagged", s.Flagged, "other", m.otherLabs)
	lines = append(lines, "")
	for _, l := range pageWrap(total, m.width-2) {
		lines = append(lines, "  "+m.th.Muted.Render(l))
	}
	return lines
}

func (m Model) stepLines() []string {
	tw := max(6, min(24, m.width/4))
	cw := max(8, m.width-2-tw-1-timeWidth-1-timeWidth-1)
	head := "  " + pad(content.Msg("class.board.col.step"), tw+1) + padLeft(content.Msg("class.board.col.median"), timeWidth) + " " +
		padLeft(content.Msg("class.board.col.slowest"), timeWidth) + " " + content.Msg("class.board.col.failing_most")
	lines := m.header(head)
	if len(m.stats.Steps) == 0 {
		return append(lines, "  "+m.emptyWord(content.Msg("class.board.empty")))
	}
	for _, st := range m.stats.Steps {
		median, slowest := "-", "-"
		if len(st.Times) > 0 {
			median, slowest = Ago(st.Median()), Ago(st.Slowest())
		}
		line := "  " + m.stepTitle(st.Number, tw) + " " + padLeft(median, timeWidth) + " " + padLeft(slowest, timeWidth)
		if len(st.Failing) > 0 {
			f := st.Failing[0]
			line += " " + m.th.Status(checks.Failed).Render(fitCount(f.ID, content.Msg("class.board.steps.failing", "n", f.N), cw))
		}
		lines = append(lines, line)
	}
	return lines
}

// detailView is the open learner's detail: its first line and, while
// the class is not current, the connection's line stay; the rest
// scrolls.
func (m Model) detailView() []string {
	lines := m.detailLines()
	if len(lines) == 0 {
		return nil
	}
	fixed := append([]string{lines[0]}, m.heading()[1:]...)
	body := lines[1:]
	if m.scroll < len(body) {
		body = body[m.scroll:]
	} else {
		body = nil
	}
	return append(fixed, body...)
}

// detailRows is how many rows of the open detail scroll: the pane less
// its fixed lines (detailView).
func (m Model) detailRows() int { return max(1, m.bodyRows()-len(m.heading())) }

// detailScrollable reports whether the open detail is longer than the
// pane.
func (m Model) detailScrollable() bool {
	return m.detail != "" && len(m.detailLines())-1 > m.detailRows()
}

// detailLines is the open learner's detail, every line fitted to the
// width: who, their labmate and lab, why a record is flagged, then per
// step its status, its hints, attempts and time, and the checks that
// did not pass.
func (m Model) detailLines() []string {
	r, ok := m.Detail()
	if !ok {
		return nil
	}
	wrap := func(style func(...string) string, s string) []string {
		var out []string
		for _, l := range pageWrap(s, m.width) {
			out = append(out, style(l))
		}
		return out
	}
	title := content.Msg("class.board.detail.title", "name", r.Shown(), "learner", r.Learner, "lab", r.Lab)
	lines := []string{m.th.Title.Render(fit(title, m.width))}
	if r.Listed != "" && r.Name != r.Learner && r.Name != r.Listed {
		lines = append(lines, wrap(m.th.Muted.Render, content.Msg("class.board.detail.chosen", "name", r.Name))...)
	}
	updated := "-"
	if !r.Updated.IsZero() {
		updated = content.Msg("class.board.ago", "t", Ago(m.now.Sub(r.Updated)))
	}
	meta := content.Msg("class.board.detail.meta", "version", r.Labmate, "updated", updated)
	if r.LabVersion != "" {
		meta += "  " + content.Msg("class.board.detail.lab_version", "version", r.LabVersion)
	}
	lines = append(lines, wrap(m.th.Muted.Render, meta)...)
	lines = append(lines, m.detailHand(r)...)
	if g := r.Regression; g != nil {
		lines = append(lines, wrap(m.th.Alert.Render, content.Msg("class.board.detail.regression", "step", g.Step, "t", Ago(m.now.Sub(g.At))))...)
	}
	if r.Shared {
		lines = append(lines, wrap(m.th.Alert.Render, content.Msg("class.board.detail.shared", "learner", r.Learner))...)
	}
	if r.Flag != "" {
		lines = append(lines, wrap(m.th.Alert.Render, content.Msg("class.board.detail."+string(r.Flag), "object", class.ObjectName(r.Learner, r.Lab)))...)
	}
	titles := m.titles[r.Lab]
	for _, s := range r.Steps {
		word := content.Msg("status." + string(s.Status))
		head := fmt.Sprintf("%s %d ", m.th.Status(s.Status).Render(s.Status.Glyph()), s.Number)
		room := m.width - ansi.StringWidth(head) - 2 - ansi.StringWidth(word)
		line := head
		if t := titles[s.Number]; t != "" && room > 4 {
			line += pad(t, room) + "  "
		}
		lines = append(lines, line+m.th.Muted.Render(word))
		var more []string
		if s.Hints > 0 || s.Solution {
			h := content.Msg("class.board.detail.hints", "n", s.Hints)
			if s.Solution {
				h += " " + content.Msg("class.board.detail.solution")
			}
			more = append(more, m.th.Hint.Render(h))
		}
		if s.Attempts > 0 {
			more = append(more, m.th.Muted.Render(content.Msg("class.board.detail.attempts", "n", s.Attempts)))
		}
		if s.Status != checks.Passed && !s.Since.IsZero() {
			more = append(more, m.th.Muted.Render(content.Msg("class.board.ago", "t", Ago(m.now.Sub(s.Since)))))
		}
		if len(more) > 0 {
			lines = append(lines, "    "+strings.Join(more, "  "))
		}
		for _, c := range s.Failing {
			lines = append(lines, "    "+m.th.Status(c.Status).Render(c.Status.Glyph())+" "+fit(c.ID, m.width-6))
		}
	}
	if r.Absent() {
		lines = append(lines, "  "+content.Msg("class.board.no_record"))
	}
	return lines
}

// pageWrap breaks text into lines of at most width cells, as the
// learner's TUI breaks its own text (page.Wrap).
func pageWrap(s string, width int) []string {
	return page.Wrap(s, max(width, 8), "", "")
}
