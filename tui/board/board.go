// Package board is the instructor's live board: one row per learner, one
// column per step with the glyphs the learner sees, time on the current
// step, hint level, and a mark on anyone stuck or who just regressed. It is
// fed a stream of class.Class values (an informer on the class namespace,
// see class.Watch) and does no I/O itself.
package board

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/class/classstats"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/termtext"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// Options configure the board.
type Options struct {
	// Classes delivers the class after every change; nil: nothing comes.
	Classes <-chan class.Class
	// Namespace and Lab are shown in the title.
	Namespace string
	Lab       string
	// Stuck is how long on one step marks a learner as stuck (10 minutes
	// when zero).
	Stuck time.Duration
	// Regressed is how long a regression stays marked (5 minutes when zero).
	Regressed time.Duration
	// Now is the clock (time.Now when nil).
	Now     func() time.Time
	Theme   string
	Profile termenv.Profile
	// Acknowledge, if set, tells a learner the instructor saw their
	// raised hand (the help-first view's key).
	Acknowledge Acknowledger
}

// Sort orders.
type Sort int

const (
	ByProgress Sort = iota // most steps passed first
	ByStuck                // longest on their current step first
)

// Model is the board. It is a component: its footer is its key map's
// help line, the keys that work in the view shown.
type Model struct {
	opts   Options
	th     theme.Theme
	keys   keys.Board
	help   help.Model
	class  class.Class
	rows   []class.Record
	sort   Sort
	cursor int
	top    int
	detail bool
	width  int
	height int
	titles map[string]map[int]string // lab -> step -> title
	now    time.Time

	view      View
	stats     classstats.Class     // of statsLab's records
	otherLabs int                  // records of other labs than statsLab
	queue     []classstats.Waiting // every learner on a step, longest first
	hands     []classstats.Hand    // raised hands, not yet acknowledged first
	acked     map[string]bool      // hands this board acknowledged (handKey)
	ackErr    error                // the last acknowledgement that failed
}

// classMsg carries a new class from the watch.
type classMsg struct{ c class.Class }

// tickMsg redraws the times on the board.
type tickMsg struct{ at time.Time }

// New returns a board.
func New(o Options) Model {
	if o.Stuck <= 0 {
		o.Stuck = 10 * time.Minute
	}
	if o.Regressed <= 0 {
		o.Regressed = 5 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	th := theme.New(o.Theme, o.Profile)
	h := th.Help()
	h.Styles.ShortSeparator = lipgloss.NewStyle() // the blanks between keys are plain
	m := Model{opts: o, th: th, keys: keys.NewBoard(), help: h, titles: map[string]map[int]string{}, acked: map[string]bool{}, width: 80, height: 24}
	m.now = o.Now()
	m.syncKeys()
	return m
}

var _ component.Component = (*Model)(nil)

// SetSize gives the board the pane.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// syncKeys enables the keys that work in the state on screen: the view
// keys outside a learner's detail, moving, opening and sorting in the
// learners' table and its detail, back in the detail.
func (m *Model) syncKeys() {
	k := &m.keys
	table := m.view == Learners || m.detail
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Top, &k.Bottom, &k.Open, &k.Sort} {
		b.SetEnabled(table)
	}
	k.Back.SetEnabled(m.detail)
	k.Ack.SetEnabled(m.view == HelpFirst && !m.detail && m.opts.Acknowledge != nil)
	for _, b := range append([]*key.Binding{&k.Next, &k.Prev}, &k.Views[0], &k.Views[1], &k.Views[2], &k.Views[3]) {
		b.SetEnabled(!m.detail)
	}
}

// ShortHelp is the footer's keys for the view shown: moving, opening and
// sorting only in the learners' table; back and quit in a learner's
// detail.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch {
	case m.detail:
		return []key.Binding{k.Back, k.Quit}
	case m.view == Learners:
		return []key.Binding{k.Up, k.Open, k.Sort, k.Next, k.Quit}
	case m.view == HelpFirst && m.opts.Acknowledge != nil:
		return []key.Binding{k.Ack, k.Next, k.Quit}
	}
	return []key.Binding{k.Next, k.Quit}
}

// FullHelp is every key of the board, by what it does.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.Open, k.Back, k.Sort, k.Ack},
		append([]key.Binding{k.Next, k.Prev}, k.Views[:]...),
		{k.Quit},
	}
}

// Init waits for the first class.
func (m Model) Init() tea.Cmd { return m.wait() }

func (m Model) wait() tea.Cmd {
	ch := m.opts.Classes
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		c, ok := <-ch
		if !ok {
			return nil
		}
		return classMsg{c}
	}
}

// tick schedules the next redraw of the times at the next whole minute:
// the board shows minutes, so nothing else changes in between.
func (m Model) tick() tea.Cmd {
	now := m.opts.Now()
	next := now.Truncate(time.Minute).Add(time.Minute)
	return tea.Tick(next.Sub(now), func(t time.Time) tea.Msg { return tickMsg{t} })
}

// Update handles keys, sizes, classes and ticks.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
	case classMsg:
		first := !m.class.Synced && msg.c.Synced
		// The one door of the class's text: records are written by the
		// learners' labmates, anyone with write access to the class
		// namespace can put anything in them.
		m.class = termtext.Deep(msg.c)
		m.now = m.opts.Now()
		m.loadTitles()
		m.order()
		if first {
			return m, tea.Batch(m.wait(), m.tick())
		}
		return m, m.wait()
	case tickMsg:
		m.now = m.opts.Now()
		m.order()
		return m, m.tick()
	case tea.KeyMsg:
		// Disabled keys match nothing (syncKeys): the view keys do
		// nothing in a learner's detail, moving, opening and sorting
		// nothing outside the learners' table.
		switch {
		case key.Matches(msg, m.keys.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Next):
			m.view = (m.view + 1) % viewCount
		case key.Matches(msg, m.keys.Prev):
			m.view = (m.view + viewCount - 1) % viewCount
		case m.viewKey(msg) >= 0:
			m.view = m.viewKey(msg)
		case key.Matches(msg, m.keys.Back):
			m.detail = false
		case key.Matches(msg, m.keys.Open):
			m.detail = len(m.rows) > 0
		case key.Matches(msg, m.keys.Up):
			m.cursor--
		case key.Matches(msg, m.keys.Down):
			m.cursor++
		case key.Matches(msg, m.keys.Top):
			m.cursor = 0
		case key.Matches(msg, m.keys.Bottom):
			m.cursor = len(m.rows) - 1
		case key.Matches(msg, m.keys.Sort):
			m.sort = (m.sort + 1) % 2
			m.order()
		case key.Matches(msg, m.keys.Ack):
			return m, m.acknowledge()
		}
		m.clamp()
	case ackedMsg:
		m.ackErr = msg.err
		if msg.err != nil {
			delete(m.acked, msg.key) // not sent: the key may try again
		}
	}
	return m, nil
}

// viewKey is the view a number key names, or -1.
func (m Model) viewKey(msg tea.KeyMsg) View {
	for v, b := range m.keys.Views {
		if key.Matches(msg, b) {
			return View(v)
		}
	}
	return -1
}

// Shown is the view on screen.
func (m Model) Shown() View { return m.view }

// Selected is the learner under the cursor, if any.
func (m Model) Selected() (class.Record, bool) {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return class.Record{}, false
	}
	return m.rows[m.cursor], true
}

// Rows are the learners in board order.
func (m Model) Rows() []class.Record { return m.rows }

func (m *Model) loadTitles() {
	for _, r := range m.class.Records {
		if _, ok := m.titles[r.Lab]; ok {
			continue
		}
		t := map[int]string{}
		if lab, err := content.Load(r.Lab); err == nil {
			for _, s := range lab.Steps {
				t[s.Number] = termtext.Clean(s.Title) // an installed lab's
			}
		}
		m.titles[r.Lab] = t
	}
}

// order sorts the rows and keeps the cursor on the same learner.
func (m *Model) order() {
	var keep string
	if r, ok := m.Selected(); ok {
		keep = r.Learner + "/" + r.Lab
	}
	m.rows = slices.Clone(m.class.Records)
	done := func(r class.Record) bool { return len(r.Steps) > 0 && r.Passed() == len(r.Steps) }
	sort.SliceStable(m.rows, func(i, j int) bool {
		a, b := m.rows[i], m.rows[j]
		switch m.sort {
		case ByStuck:
			if done(a) != done(b) {
				return done(b)
			}
			if !a.CurrentSince.Equal(b.CurrentSince) {
				return a.CurrentSince.Before(b.CurrentSince)
			}
		default:
			if a.Passed() != b.Passed() {
				return a.Passed() > b.Passed()
			}
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Learner < b.Learner
	})
	for i, r := range m.rows {
		if r.Learner+"/"+r.Lab == keep {
			m.cursor = i
		}
	}
	m.clamp()
	m.summarize()
}

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.rows)-1))
	if m.detail && len(m.rows) == 0 {
		m.detail = false
	}
	n := m.listRows()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+n {
		m.top = m.cursor - n + 1
	}
	m.top = max(0, min(m.top, len(m.rows)-n))
	m.syncKeys() // the detail may have closed
}

// listRows is how many learner rows fit: title, column header and footer
// take three rows.
func (m Model) listRows() int { return max(1, m.height-3) }

// Stuck reports whether r has been on its current step longer than the
// threshold.
func (m Model) Stuck(r class.Record) bool {
	return r.Current > 0 && !r.CurrentSince.IsZero() && m.now.Sub(r.CurrentSince) >= m.opts.Stuck
}

// Behind reports whether r runs another version of the class's lab than
// the one the class carries now (an older one, until the learner restarts
// labmate after a push).
func (m Model) Behind(r class.Record) bool {
	l := m.class.Lab
	return r.Flag == "" && l.ID != "" && r.Lab == l.ID && r.LabVersion != "" && r.LabVersion != l.Version
}

// Regressed reports whether r went back from passed recently.
func (m Model) Regressed(r class.Record) bool {
	g := r.Regression
	if g == nil || m.now.Sub(g.At) >= m.opts.Regressed {
		return false
	}
	s := r.Step(g.Step)
	return s != nil && s.Status != checks.Passed
}

// View draws the board or one learner's detail, every line clamped to the
// width.
func (m Model) View() string {
	lines := m.viewLines()
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	if len(lines) > m.height-1 {
		lines = lines[:max(0, m.height-1)]
	}
	lines = append(lines, m.footer())
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			l = ansi.Truncate(l, m.width, "")
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func (m Model) title() string {
	stuck, regressed := 0, 0
	for _, r := range m.rows {
		if m.Stuck(r) {
			stuck++
		}
		if m.Regressed(r) {
			regressed++
		}
	}
	key, l := "class.board.title", m.class.Lab
	if l.ID != "" {
		key = "class.board.title_lab"
	}
	t := content.Msg(key, "ns", m.opts.Namespace, "lab", l.ID, "version", l.Version, "n", len(m.rows), "stuck", stuck,
		"regressed", regressed, "sort", content.Msg(fmt.Sprintf("class.board.sort.%d", m.sort)))
	switch {
	case m.class.Err != nil:
		t += "  " + m.th.Alert.Render(content.Msg("class.board.watch_error"))
	case !m.class.Synced:
		t += "  " + m.th.Muted.Render(content.Msg("class.board.syncing"))
	}
	return m.th.Title.Render(t)
}

// Column widths.
const (
	markWidth = 4 // "정체" / "퇴보"
	stepWidth = 2 // glyph + space
)

func (m Model) nameWidth(steps int) int {
	fixed := 2 + steps*stepWidth + 1 + 6 + 1 + 9 + 1 + 4 + 1 + markWidth
	return max(6, min(24, m.width-fixed))
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
	n := m.steps()
	nw := m.nameWidth(n)
	head := "  " + pad(content.Msg("class.board.col.name"), nw) + " "
	for i := 1; i <= n; i++ {
		head += pad(fmt.Sprint(i%10), stepWidth)
	}
	head += " " + pad(content.Msg("class.board.col.current"), 6) + " " + padLeft(content.Msg("class.board.col.time"), 9) +
		" " + padLeft(content.Msg("class.board.col.hints"), 4) + " " + content.Msg("class.board.col.mark")
	lines := []string{m.title(), m.th.Muted.Render(head)}
	if len(m.rows) == 0 {
		msg := content.Msg("class.board.empty")
		if !m.class.Synced {
			msg = content.Msg("class.board.syncing")
		}
		return append(lines, "  "+msg)
	}
	end := min(len(m.rows), m.top+m.listRows())
	for i := m.top; i < end; i++ {
		lines = append(lines, m.row(m.rows[i], i == m.cursor, n, nw))
	}
	return lines
}

func (m Model) row(r class.Record, selected bool, n, nw int) string {
	cur := "  "
	if selected {
		cur = theme.GlyphCurrent + " "
	}
	var b strings.Builder
	b.WriteString(cur)
	b.WriteString(pad(r.Name, nw) + " ")
	b.WriteString(m.progress(r, n))
	var marks []string
	if m.Regressed(r) {
		marks = append(marks, m.th.Alert.Render(content.Msg("class.board.mark.regressed")))
	}
	if m.Stuck(r) {
		marks = append(marks, m.th.Banner.Render(content.Msg("class.board.mark.stuck")))
	}
	if m.Behind(r) {
		marks = append(marks, m.th.Muted.Render(content.Msg("class.board.mark.behind")))
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
func (m Model) progress(r class.Record, n int) string {
	if r.Flag != "" {
		word := content.Msg("class.board.mark." + string(r.Flag))
		return m.th.Alert.Render(pad(word, n*stepWidth+1+6)) + " " + padLeft("", 9) + " " + padLeft("", 4) + " "
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		st := checks.Unknown
		if s := r.Step(i); s != nil {
			st = s.Status
		}
		b.WriteString(m.th.Status(st).Render(st.Glyph()) + " ")
	}
	current, since, hints := content.Msg("class.board.done"), "", ""
	if r.Current > 0 {
		current = content.Msg("class.board.step", "n", r.Current)
		since = Ago(m.now.Sub(r.CurrentSince))
		if s := r.Step(r.Current); s != nil {
			hints = fmt.Sprint(s.Hints)
			if s.Solution {
				hints += "+"
			}
		}
	}
	if len(r.Steps) == 0 {
		current = content.Msg("class.board.no_record")
	}
	b.WriteString(" " + pad(current, 6) + " " + padLeft(since, 9) + " " + padLeft(hints, 4) + " ")
	return b.String()
}

func (m Model) detailLines() []string {
	r, ok := m.Selected()
	if !ok {
		return nil
	}
	lines := []string{m.th.Title.Render(content.Msg("class.board.detail.title", "name", r.Name, "learner", r.Learner, "lab", r.Lab))}
	updated := "-"
	if !r.Updated.IsZero() {
		updated = content.Msg("class.board.ago", "t", Ago(m.now.Sub(r.Updated)))
	}
	meta := content.Msg("class.board.detail.meta", "version", r.Labmate, "updated", updated)
	if r.LabVersion != "" {
		meta += "  " + content.Msg("class.board.detail.lab_version", "lab", r.Lab, "version", r.LabVersion)
	}
	lines = append(lines, m.th.Muted.Render(meta))
	if g := r.Regression; g != nil {
		lines = append(lines, m.th.Alert.Render(content.Msg("class.board.detail.regression", "step", g.Step, "t", Ago(m.now.Sub(g.At)))))
	}
	if r.Flag != "" {
		why := content.Msg("class.board.detail."+string(r.Flag), "object", class.ObjectName(r.Learner, r.Lab))
		for _, l := range strings.Split(ansi.Wrap(why, m.width, " "), "\n") {
			lines = append(lines, m.th.Alert.Render(l))
		}
	}
	titles := m.titles[r.Lab]
	for _, s := range r.Steps {
		word := content.Msg("status." + string(s.Status))
		line := fmt.Sprintf("%s %d %s  %s", m.th.Status(s.Status).Render(s.Status.Glyph()), s.Number, titles[s.Number], m.th.Muted.Render(word))
		if s.Hints > 0 || s.Solution {
			h := content.Msg("class.board.detail.hints", "n", s.Hints)
			if s.Solution {
				h += " " + content.Msg("class.board.detail.solution")
			}
			line += "  " + m.th.Hint.Render(h)
		}
		if s.Attempts > 0 {
			line += "  " + m.th.Muted.Render(content.Msg("class.board.detail.attempts", "n", s.Attempts))
		}
		if s.Status != checks.Passed && !s.Since.IsZero() {
			line += "  " + m.th.Muted.Render(content.Msg("class.board.ago", "t", Ago(m.now.Sub(s.Since))))
		}
		lines = append(lines, line)
		for _, c := range s.Failing {
			lines = append(lines, "    "+m.th.Status(c.Status).Render(c.Status.Glyph())+" "+c.ID)
		}
	}
	if len(r.Steps) == 0 && r.Flag == "" {
		lines = append(lines, "  "+content.Msg("class.board.no_record"))
	}
	return lines
}

// footer is the help line of the board's keys (ShortHelp) and, outside a
// learner's detail, the name of the view shown.
func (m Model) footer() string {
	line := m.help.ShortHelpView(m.ShortHelp())
	if !m.detail {
		line += "  " + m.th.Section.Render(content.Msg("class.board.view_is", "view", m.viewName(m.view)))
	}
	return line
}

// ClassMsg is the message the board gets for a new class (for tests and
// benchmarks that drive the model with class.Watch themselves).
func ClassMsg(c class.Class) tea.Msg { return classMsg{c} }
