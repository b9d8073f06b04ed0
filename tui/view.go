package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// headerRows is how many fixed rows are above the viewport: the step
// strip, in a replay the replay's progress, the page title and the page
// status.
func (m Model) headerRows() int {
	if m.opts.Replay != nil {
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
	footer := m.footer()
	rows := max(m.height-m.headerRows()-len(footer), 0)
	lines := make([]string, 0, m.height)
	lines = append(lines, m.header())
	if m.opts.Replay != nil {
		lines = append(lines, m.replayLine())
	}
	lines = append(lines, m.title(), m.statusLine())
	body := strings.Split(m.vp.View(), "\n")
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
		if extra := ambiguousRunes(l); w+extra > m.width {
			lines[i] = ansi.Truncate(l, max(m.width-extra, 0), "")
			noteCut("fit", l, lines[i])
		}
	}
	return strings.Join(lines, "\n")
}

// cuts records, while on (the tests turn it on), every line the layout
// had to cut to the pane after the fact. Each part of the layout sizes its
// own lines (wrapping, or shortening with ".." where it chooses to), so a
// cut here is text the learner never sees: the tests assert there is none.
var cuts struct {
	sync.Mutex
	on    bool
	lines []string
}

// noteCut records that line was cut to short; cutting only trailing
// blanks (the viewport pads lines to its width) loses nothing.
func noteCut(where, line, short string) {
	cuts.Lock()
	defer cuts.Unlock()
	if !cuts.on {
		return
	}
	visible := func(s string) string { return strings.TrimRight(ansi.Strip(s), " ") }
	if visible(line) != visible(short) {
		cuts.lines = append(cuts.lines, where+": "+visible(line))
	}
}

// shorten fits one line of chrome into width cells, ending it with ".."
// when it had to be cut, and keeps the spare cells of its ambiguous
// characters (see fit).
func shorten(s string, width int) string {
	extra := ambiguousRunes(s)
	if ansi.StringWidth(s)+extra <= width {
		return s
	}
	return ansi.Truncate(s, max(width-extra, 0), "..")
}

// ambiguousRunes counts East-Asian-ambiguous runes in the visible text.
func ambiguousRunes(s string) int {
	n := 0
	for _, r := range ansi.Strip(s) {
		if r >= 0x80 && runewidth.IsAmbiguousWidth(r) {
			n++
		}
	}
	return n
}

// header is the step strip: every page at a glance, glyph per status, the
// current page marked by a glyph as well as by colour.
func (m Model) header() string {
	var parts []string
	for p := 0; p < m.pages; p++ {
		label := "0"
		st := checks.Unknown
		if s := m.stepAt(p); s != nil {
			st = m.status(s)
			label = fmt.Sprintf("%d%s", s.Number, theme.Glyph(st))
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
	if ci := m.classIndicator(); ci != "" && lipgloss.Width(left)+1+lipgloss.Width(ci) <= m.width {
		left += " " + ci
	}
	if m.opts.Banner != "" {
		room := m.width - lipgloss.Width(left) - 1
		if room >= 4 {
			b := shorten(" "+sanitize(m.opts.Banner)+" ", room)
			left += strings.Repeat(" ", max(room-ansi.StringWidth(b)-ambiguousRunes(b), 0)+1) + m.th.Banner.Render(b)
		}
	}
	return left
}

// replayLine is the replay's progress as the replay words it (state,
// speed, position), on one row under the strip. It is plain coloured text:
// the strip's banner already marks the session as a replay.
func (m Model) replayLine() string {
	s := firstLine(sanitize(m.replayStatus))
	if s == "" {
		return " " + m.th.Muted.Render(content.Msg("tui.loading"))
	}
	return " " + m.th.Hint.Render(shorten(s, m.width-1))
}

func (m Model) title() string {
	t := m.lab.Title
	if s := m.stepAt(m.page); s != nil {
		t = fmt.Sprintf("%d/%d %s", s.Number, len(m.lab.Steps), s.Title)
	}
	return " " + m.th.Title.Render(shorten(sanitize(t), m.width-1))
}

// statusLine summarises the page: the step's state in glyph and word and
// how many checks pass, or, on the introduction, how many steps pass.
func (m Model) statusLine() string {
	var b strings.Builder
	b.WriteString(" ")
	if s := m.stepAt(m.page); s != nil {
		st := m.status(s)
		b.WriteString(m.th.Status(st).Render(m.statusWord(st)))
		if r := m.result(s); r != nil {
			passed := 0
			for _, c := range r.Checks {
				if c.Status == checks.Passed {
					passed++
				}
			}
			b.WriteString("  " + content.Msg("tui.status.checks", "passed", passed, "total", len(r.Checks)))
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
	}
	// At the narrowest the notes do not all fit: say so with "..".
	return shorten(b.String(), m.width-1)
}

// footer holds, bottom up, the help line, then a toast, an alert or the
// solution question when there is one.
func (m Model) footer() []string {
	var out []string
	w := m.width
	if m.confirm {
		out = append(out, m.bar(m.th.Hint, content.Msg("tui.hints.confirm"), w, 2)...)
	}
	if m.alert != nil {
		out = append(out, m.bar(m.th.Alert, theme.GlyphError+" "+m.alert.text, w, 2)...)
	}
	if m.toast != nil {
		out = append(out, m.bar(m.th.Toast, m.toastText(w), w, toastLines)...)
	}
	return append(out, m.helpLines()...)
}

// toastLines is how many lines a toast may take.
const toastLines = 2

// toastText words the toast for a pane w wide: whole when it fits its
// lines, else with its variable parts shortened just enough (down to a
// few characters; past that, bar ends it with "..").
func (m Model) toastText(w int) string {
	t := m.toast
	fits := func(s string) bool { return len(wrap(sanitize(s), w-1, " ", " ")) <= toastLines }
	if t.words == nil || fits(t.text) {
		return t.text
	}
	const least = 12
	lo, hi := least, max(ansi.StringWidth(t.text), least)
	if !fits(t.words(lo)) {
		return t.words(lo)
	}
	for lo < hi { // the most room that fits
		mid := (lo + hi + 1) / 2
		if fits(t.words(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return t.words(lo)
}

// bar wraps text to at most n lines of a full-width coloured bar.
func (m Model) bar(st lipgloss.Style, text string, w, n int) []string {
	lines := wrap(sanitize(text), w-1, " ", " ")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = ansi.Truncate(lines[n-1], w-3-ambiguousRunes(lines[n-1]), "") + ".."
	}
	for i, l := range lines {
		if !m.th.NoColor() {
			l += strings.Repeat(" ", max(w-ansi.StringWidth(l)-ambiguousRunes(l), 0))
		}
		lines[i] = st.Render(l)
	}
	return lines
}

// shortKey is one key of the help line. drop orders what gives way when
// the line does not fit: higher first, 0 never (the full help, ?, lists
// everything anyway).
type shortKey struct {
	b    key.Binding
	drop int
}

// shortBindings are the help line's keys in order of use; disabled ones
// are left out.
func (m Model) shortBindings() []shortKey {
	k := m.keys
	scroll := key.NewBinding(
		key.WithKeys("scroll"),
		key.WithHelp(keys.Display(k.Down.Keys()[0])+"/"+keys.Display(k.Up.Keys()[0]), content.Msg("tui.short.scroll")),
	)
	scroll.SetEnabled(k.Down.Enabled() && m.vp.TotalLineCount() > m.vp.Height)
	all := []shortKey{
		{k.Yes, 0}, {k.No, 0}, {k.Go, 0},
		{k.Pause, 0}, {k.Speed, 0}, {k.NextChange, 0},
		{k.Next, 1}, {k.Prev, 6}, {k.Hint, 2}, {k.Observed, 5}, {k.Copy, 7}, {k.Rescan, 3},
		{k.Jump, 9}, {scroll, 8}, {k.Help, 0}, {k.Close, 4}, {k.Quit, 0},
	}
	out := all[:0]
	for _, s := range all {
		if s.b.Enabled() {
			out = append(out, s)
		}
	}
	return out
}

// helpLines packs the enabled keys into at most two lines. When they do
// not fit, the least needed give way, so the line never ends cut off
// (quit and help stay).
func (m Model) helpLines() []string {
	width := m.width - 1
	items := m.shortBindings()
	lines, fits := m.packHelp(items, width)
	for !fits {
		worst := -1
		for i, s := range items {
			if s.drop > 0 && (worst < 0 || s.drop > items[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break // bubbles/help cuts the last line with ".."
		}
		items = append(items[:worst:worst], items[worst+1:]...)
		lines, fits = m.packHelp(items, width)
	}
	h := m.help
	h.Width = width
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, " "+h.ShortHelpView(l))
	}
	return out
}

// packHelp fills the first help line and puts the rest on the second;
// fits is false when the second is too long.
func (m Model) packHelp(items []shortKey, width int) (lines [][]key.Binding, fits bool) {
	var cur []key.Binding
	curW := 0
	sepW := ansi.StringWidth(m.help.ShortSeparator)
	for _, s := range items {
		iw := ansi.StringWidth(s.b.Help().Key) + 1 + ansi.StringWidth(s.b.Help().Desc)
		sep := 0
		if len(cur) > 0 {
			sep = sepW
		}
		if len(cur) > 0 && curW+sep+iw > width && len(lines) < 1 {
			lines = append(lines, cur)
			cur, curW, sep = nil, 0, 0
		}
		cur = append(cur, s.b)
		curW += sep + iw
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines, curW <= width
}

// layout sizes the viewport to what the header and footer leave.
func (m *Model) layout() {
	if m.tooSmall() {
		return
	}
	m.vp.Width = m.width
	m.vp.Height = max(m.height-m.headerRows()-len(m.footer()), 1)
	m.vp.SetYOffset(m.vp.YOffset)
}

// syncKeys enables exactly the keys that do something now, with help text
// for this moment (gum's habit), so the help line never lies.
func (m *Model) syncKeys() {
	k := &m.keys
	asking := m.confirm
	small := m.tooSmall()
	s := m.stepAt(m.page)
	normal := !asking && !small

	k.Yes.SetEnabled(asking)
	k.No.SetEnabled(asking)
	k.Next.SetEnabled(normal && m.page < m.pages-1)
	k.Prev.SetEnabled(normal && m.page > 0)
	k.Jump.SetEnabled(normal)
	for _, b := range []*key.Binding{&k.Down, &k.Up, &k.PageDown, &k.PageUp, &k.HalfDown, &k.HalfUp, &k.Top, &k.Bottom} {
		b.SetEnabled(normal)
	}
	k.Help.SetEnabled(normal)
	k.Quit.SetEnabled(true)

	t := m.goTarget()
	k.Go.SetEnabled(normal && t >= 0)
	if t >= 0 {
		if ts := m.stepAt(t); ts != nil {
			k.Go.SetHelp(k.Go.Help().Key, content.Msg("tui.short.go_step", "step", ts.Number))
		} else {
			k.Go.SetHelp(k.Go.Help().Key, content.Msg("tui.short.go_intro"))
		}
	}

	k.Hint.SetEnabled(normal && s != nil)
	if s != nil {
		p := m.progress[s.Number]
		switch {
		case p.Seen < len(s.Hints):
			k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.hint", "n", p.Seen+1, "total", len(s.Hints)))
		case !p.Solution:
			k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.solution"))
		default:
			k.Hint.SetHelp(k.Hint.Help().Key, content.Msg("tui.short.solution_again"))
		}
	}
	k.Observed.SetEnabled(normal && s != nil)
	if m.observed {
		k.Observed.SetHelp(k.Observed.Help().Key, content.Msg("tui.short.observed_close"))
	} else {
		k.Observed.SetHelp(k.Observed.Help().Key, content.Msg("tui.short.observed"))
	}
	k.Copy.SetEnabled(normal && !m.showHelp && m.clip.enabled() && len(m.copyTargets()) > 0)
	k.Copy.SetHelp(k.Copy.Help().Key, content.Msg("tui.short.copy"))
	k.Rescan.SetEnabled(normal && m.opts.Rescan != nil)
	k.Rescan.SetHelp(k.Rescan.Help().Key, content.Msg("tui.short.rescan"))
	replay := normal && m.opts.Replay != nil && !m.replayDone
	for _, r := range []struct {
		b    *key.Binding
		text string
	}{{&k.Pause, "tui.short.pause"}, {&k.Speed, "tui.short.speed"}, {&k.NextChange, "tui.short.next_change"}} {
		r.b.SetEnabled(replay)
		r.b.SetHelp(r.b.Help().Key, content.Msg(r.text))
	}
	if m.showHelp {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help_close"))
	} else {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help"))
	}
	k.Close.SetEnabled(normal && (m.showHelp || m.observed || m.alert != nil || m.toast != nil))
	k.Close.SetHelp(k.Close.Help().Key, content.Msg("tui.short.close"))
	k.Next.SetHelp(k.Next.Help().Key, content.Msg("tui.short.next"))
	k.Prev.SetHelp(k.Prev.Help().Key, content.Msg("tui.short.prev"))
	k.Jump.SetHelp(k.Jump.Help().Key, content.Msg("tui.short.jump"))
	k.Yes.SetHelp(k.Yes.Help().Key, content.Msg("tui.short.yes"))
	k.No.SetHelp(k.No.Help().Key, content.Msg("tui.short.no"))
	k.Quit.SetHelp(k.Quit.Help().Key, content.Msg("tui.short.quit"))
}
