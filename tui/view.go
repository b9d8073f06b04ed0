package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// headerRows is how many fixed rows are above the viewport: the step
// strip, in a replay the replay's progress, the page title and the page
// status.
func (m Model) headerRows() int {
	if m.replay.on() {
		return 4
	}
	return 3
}

// View draws the model. It is a pure function of the model: every line
// fits the pane and there are exactly as many lines as the pane is tall.
func (m Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.tooSmall() {
		return m.fit([]string{
			content.Msg("tui.small.title"),
			content.Msg("tui.small.size", "width", m.width, "height", m.height, "minw", MinWidth, "minh", MinHeight),
			content.Msg("tui.small.quit", "key", keys.Display(m.keys.Quit.Keys()[0])),
		})
	}
	footer := strings.Split(m.foot.View(), "\n")
	rows := max(m.height-m.headerRows()-len(footer), 0)
	lines := make([]string, 0, m.height)
	lines = append(lines, m.header())
	if m.replay.on() {
		lines = append(lines, m.replay.View())
	}
	lines = append(lines, m.title(), m.statusLine())
	body := strings.Split(m.pg.View(), "\n")
	for i := 0; i < rows; i++ {
		if i < len(body) {
			lines = append(lines, body[i])
		} else {
			lines = append(lines, "")
		}
	}
	lines = append(lines, footer...)
	return m.fit(lines)
}

// fit makes lines exactly the pane: never wider, exactly as many. A line
// that holds East-Asian-ambiguous characters from the content (an em dash
// in a title) keeps one spare cell per such character, so it still fits a
// terminal that draws them two cells wide.
func (m Model) fit(lines []string) string {
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	for i, l := range lines {
		w := ansi.StringWidth(l)
		if 2*w <= m.width {
			continue // fits even if every character were drawn double
		}
		if extra := page.AmbiguousRunes(l); w+extra > m.width {
			lines[i] = ansi.Truncate(l, max(m.width-extra, 0), "")
			m.cuts.note("fit", l, lines[i])
		}
	}
	return strings.Join(lines, "\n")
}

// cutLog records the lines the layout had to cut to the pane after the
// fact. Each part of the layout sizes its own lines (wrapping, or
// shortening with ".." where it chooses to), so a cut here is text the
// learner never sees: the tests assert there is none. Each model holds
// its own (copies of a model share it); it keeps the last few only.
type cutLog struct {
	mu    sync.Mutex
	lines []string
}

const maxCuts = 32

// note records that line was cut to short; cutting only trailing blanks
// (the viewport pads lines to its width) loses nothing.
func (c *cutLog) note(where, line, short string) {
	if c == nil {
		return
	}
	visible := func(s string) string { return strings.TrimRight(ansi.Strip(s), " ") }
	if visible(line) == visible(short) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lines) == maxCuts {
		c.lines = c.lines[1:]
	}
	c.lines = append(c.lines, where+": "+visible(line))
}

// take returns and forgets the lines cut so far.
func (c *cutLog) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.lines
	c.lines = nil
	return out
}

// shorten fits one line of chrome into width cells, ending it with ".."
// when it had to be cut, and keeps the spare cells of its ambiguous
// characters (see fit).
func shorten(s string, width int) string {
	extra := page.AmbiguousRunes(s)
	if ansi.StringWidth(s)+extra <= width {
		return s
	}
	return ansi.Truncate(s, max(width-extra, 0), "..")
}

// header is the step strip: every page at a glance, glyph per status, the
// current page marked by a glyph as well as by colour, then the notes of
// stripNotes right-aligned.
func (m Model) header() string {
	var parts []string
	for p := 0; p < m.pages; p++ {
		label := "0"
		st := checks.Unknown
		if s := m.stepAt(p); s != nil {
			st = m.status(s)
			label = fmt.Sprintf("%d%s", s.Number, st.Glyph())
		}
		switch {
		case p == m.page:
			parts = append(parts, m.th.Current.Render(theme.GlyphCurrent+label))
		case p == 0:
			parts = append(parts, m.th.Muted.Render(label))
		default:
			parts = append(parts, m.th.Status(st).Render(label))
		}
	}
	left := m.th.Title.Render("labmate") + " " + strings.Join(parts, " ")
	if passed, total := stepCounts(m.report); total > 0 {
		left += " " + m.th.Muted.Render(fmt.Sprintf("%d/%d", passed, total))
	}
	return left + m.stripRight(left)
}

// stripNote is a short note at the right end of the step strip, in its
// own colour (the replay marker). Notes are plain text from outside
// labmate (cleaned at the doors of outside.go) or from content; the
// strip spaces and shortens them.
type stripNote struct {
	text  string
	style lipgloss.Style
}

// stripNotes are the strip's right-aligned notes, most important last (it
// stays longest when the pane is narrow). A new indicator is one more
// entry here.
func (m Model) stripNotes() []stripNote {
	var out []stripNote
	if n, ok := m.classNote(); ok {
		out = append(out, n)
	}
	if n, ok := m.classLabNote(); ok {
		out = append(out, n)
	}
	if m.opts.Banner != "" {
		out = append(out, stripNote{m.opts.Banner, m.th.Banner})
	}
	return out
}

// stripRight lays the notes out right-aligned after left, each as " text "
// in its style, one blank apart. Those that do not fit in at least four
// cells give way, first ones first.
func (m Model) stripRight(left string) string {
	notes := m.stripNotes()
	room := m.width - lipgloss.Width(left) - 1
	var shown []string
	used := 0
	for i := len(notes) - 1; i >= 0; i-- {
		r := room - used
		if len(shown) > 0 {
			r-- // the blank between two notes
		}
		if r < 4 {
			break
		}
		b := shorten(" "+page.Untab(notes[i].text)+" ", r)
		shown = append([]string{notes[i].style.Render(b)}, shown...)
		used += page.Cells(b)
		if len(shown) > 1 {
			used++
		}
	}
	if len(shown) == 0 {
		return ""
	}
	return strings.Repeat(" ", max(room-used, 0)+1) + strings.Join(shown, " ")
}

func (m Model) title() string {
	t := m.lab.Title
	if s := m.stepAt(m.page); s != nil && !m.ending {
		t = fmt.Sprintf("%d/%d %s", s.Number, len(m.lab.Steps), s.Title)
	}
	return " " + m.th.Title.Render(shorten(page.Untab(t), m.width-1))
}

// statusLine summarises the page: the step's state in glyph and word and
// how many checks pass, or, on the introduction, how many steps pass.
func (m Model) statusLine() string {
	var b strings.Builder
	b.WriteString(" ")
	if s := m.stepAt(m.page); s != nil && !m.ending {
		st := m.status(s)
		b.WriteString(m.th.Status(st).Render(statusWord(st)))
		if r := m.result(s); r != nil {
			b.WriteString("  " + content.Msg("tui.status.checks", "passed", r.PassedChecks(), "total", len(r.Checks)))
		}
	} else if passed, total := stepCounts(m.report); total > 0 {
		b.WriteString(content.Msg("tui.status.steps", "passed", passed, "total", total))
	}
	switch {
	case m.report == nil:
		b.WriteString("  " + m.th.Muted.Render(content.Msg("tui.status.no_report")))
	case !m.report.Ready:
		b.WriteString("  " + m.th.Muted.Render(content.Msg("tui.status.not_ready")))
	}
	switch {
	case m.showHelp:
		b.WriteString("  " + m.th.Section.Render("["+content.Msg("tui.mode.help")+"]"))
	case m.observed:
		b.WriteString("  " + m.th.Section.Render("["+content.Msg("tui.mode.observed")+"]"))
	case m.comparing:
		b.WriteString("  " + m.th.Section.Render("["+content.Msg("tui.mode.compare")+"]"))
	case m.ending:
		b.WriteString("  " + m.th.Section.Render("["+content.Msg("tui.mode.ending")+"]"))
	}
	// At the narrowest the notes do not all fit: say so with "..".
	return shorten(b.String(), m.width-1)
}

// layout sizes the components to the pane in one pass: the replay's row
// and the footer take the width, the pager what the header and footer
// leave. The footer's height depends on whether the page scrolls (the help
// line offers j/k only then), which depends on the viewport's height: the
// page does not scroll when it fits the taller viewport the footer without
// j/k leaves, and does otherwise (a footer with j/k is never shorter). The
// footer reads the screen's keys as they are once the pager has decided.
func (m *Model) layout() {
	if m.tooSmall() {
		return
	}
	m.replay.SetSize(m.width, 1)
	m.foot.SetSize(m.width, 0)
	rows := func(scrolls bool) int {
		m.pg.scrolls = scrolls
		m.foot.SetKeyMap(component.Keys{Short: m.ShortHelp()}, m.keys.GiveWay)
		return max(m.height-m.headerRows()-len(m.foot.lines()), 1)
	}
	h := rows(false)
	if !m.pg.fits(h) {
		h = rows(true)
	}
	m.pg.SetSize(m.width, h)
}
