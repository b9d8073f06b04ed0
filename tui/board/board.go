// Package board is the instructor's live board: one row per learner, one
// column per step with the glyphs the learner sees, time on the current
// step, hint level, and a mark on anyone stuck or who just regressed. It is
// fed a stream of class.Class values (an informer on the class namespace,
// see class.Watch) and does no I/O itself.
package board

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

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
	names  *collate.Collator
	class  class.Class
	rows   []class.Record
	sort   Sort
	width  int
	height int
	titles map[string]map[int]string // lab -> step -> title
	now    time.Time

	view View
	// cursor and top are the learners' table's, qcursor and qtop the
	// help-first queue's.
	cursor, top   int
	qcursor, qtop int
	// detail is the learner whose detail is open ("" for none), as
	// learner/lab; scroll is how far it is scrolled.
	detail string
	scroll int
	// keysShown: the page of every key (?) is open.
	keysShown bool

	stats     classstats.Class     // of statsLab's records
	otherLabs int                  // records of other labs than statsLab
	queue     []classstats.Waiting // every learner on a step, longest first
	hands     []classstats.Hand    // raised hands, not yet acknowledged first
	acked     map[string]bool      // hands this board acknowledged (handKey)
	ackErr    error                // the last acknowledgement that failed
	// ackNote says why the acknowledge key sent nothing (the learner
	// chosen has no hand up, or it was acknowledged); the next key
	// takes it down.
	ackNote string
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
	m := Model{opts: o, th: th, keys: keys.NewBoard(), help: h, titles: map[string]map[int]string{}, acked: map[string]bool{}, width: 80, height: 24,
		names: collate.New(language.Korean, collate.Numeric, collate.IgnoreCase)}
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

// syncKeys enables the keys that work in the state on screen: moving
// and opening in the lists (the learners' table, the help-first queue),
// sorting in the learners' table, scrolling and back in a learner's
// detail, the view keys outside it, back on the page of every key.
func (m *Model) syncKeys() {
	k := &m.keys
	detail := m.detail != ""
	list := !detail && (m.view == Learners || m.view == HelpFirst)
	scroll := detail && m.detailScrollable()
	for _, b := range []*key.Binding{&k.Move, &k.Up, &k.Down, &k.Top, &k.Bottom, &k.PageUp, &k.PageDown} {
		b.SetEnabled(!m.keysShown && (list || scroll))
	}
	k.Open.SetEnabled(!m.keysShown && list)
	k.Sort.SetEnabled(!m.keysShown && !detail && m.view == Learners)
	k.Back.SetEnabled(m.keysShown || detail)
	// In the help-first view a (the learner under the cursor may have
	// no hand: the view says so); in a learner's detail, while their
	// hand waits.
	k.Ack.SetEnabled(!m.keysShown && m.opts.Acknowledge != nil &&
		((!detail && m.view == HelpFirst) || (detail && m.detailHandWaits())))
	for _, b := range append([]*key.Binding{&k.Next, &k.Prev}, &k.Views[0], &k.Views[1], &k.Views[2], &k.Views[3]) {
		b.SetEnabled(!m.keysShown && !detail)
	}
	k.Help.SetEnabled(true)
}

// ShortHelp is the footer's keys for the state shown, most wanted first:
// the footer leaves the last ones out when the pane is narrow (never ?
// and q), and ? lists them all.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	return component.Enabled(k.Ack, k.Move, k.Open, k.Back, k.Sort, k.Next, k.Help, k.Quit)
}

// FullHelp is every key of the board, by what it does.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Open, k.Back, k.Sort, k.Ack},
		append([]key.Binding{k.Next, k.Prev}, k.Views[:]...),
		{k.Help, k.Quit},
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
		if key.Matches(msg, m.keys.Ack) {
			cmd := m.acknowledge()
			m.clamp() // a note above the queue, the key off once sent
			return m, cmd
		}
		m.ackNote = ""
		m.key(msg)
		m.clamp()
		if key.Matches(msg, m.keys.Quit) {
			return m, tea.Quit
		}
	case ackedMsg:
		m.ackErr = msg.err
		if msg.err != nil {
			delete(m.acked, msg.key) // not sent: the key may try again
		}
		m.clamp()
	}
	return m, nil
}

// key acts on a key. Disabled keys match nothing (syncKeys).
func (m *Model) key(msg tea.KeyMsg) {
	k := m.keys
	page := max(1, m.listRows()-1)
	switch {
	case key.Matches(msg, k.Help):
		m.keysShown = !m.keysShown
	case key.Matches(msg, k.Back) && m.keysShown:
		m.keysShown = false
	case key.Matches(msg, k.Back):
		m.detail, m.scroll = "", 0
	case key.Matches(msg, k.Next):
		m.view = (m.view + 1) % viewCount
	case key.Matches(msg, k.Prev):
		m.view = (m.view + viewCount - 1) % viewCount
	case m.viewKey(msg) >= 0:
		m.view = m.viewKey(msg)
	case key.Matches(msg, k.Open):
		m.open()
	case key.Matches(msg, k.Sort):
		m.sort = (m.sort + 1) % 2
		m.order()
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-page)
	case key.Matches(msg, k.PageDown):
		m.move(page)
	case key.Matches(msg, k.Top):
		m.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.move(1 << 30)
	}
}

// move moves what the keys move on screen: the detail's scroll, the
// queue's cursor or the table's (clamp keeps each in range).
func (m *Model) move(d int) {
	switch {
	case m.detail != "":
		m.scroll = clampAdd(m.scroll, d)
	case m.view == HelpFirst:
		m.qcursor = clampAdd(m.qcursor, d)
	default:
		m.cursor = clampAdd(m.cursor, d)
	}
}

// clampAdd adds without overflowing (the bounds are clamp's).
func clampAdd(a, d int) int {
	switch {
	case d > 0 && a > 1<<30:
		return a
	case d < 0 && a < -(1<<30):
		return a
	}
	return a + d
}

// open opens the detail of the learner under the cursor of the list on
// screen.
func (m *Model) open() {
	m.clamp()
	if m.view == HelpFirst {
		if m.qcursor < len(m.queue) {
			w := m.queue[m.qcursor]
			m.detail, m.scroll = w.Learner+"/"+w.Lab, 0
		}
		return
	}
	if r, ok := m.Selected(); ok {
		m.detail, m.scroll = recordKey(r), 0
	}
}

func recordKey(r class.Record) string { return r.Learner + "/" + r.Lab }

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

// Detail is the learner whose detail is open.
func (m Model) Detail() (class.Record, bool) {
	if m.detail == "" {
		return class.Record{}, false
	}
	for _, r := range m.rows {
		if recordKey(r) == m.detail {
			return r, true
		}
	}
	return class.Record{}, false
}

// Selected is the learner under the learners' table's cursor, if any.
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

// group is where a learner stands in the time-stuck order: on a step
// (longest first), on a step since a time not known, done, flagged, and
// last those who never joined, who need no help yet.
func group(r class.Record) int {
	switch {
	case r.Flag != "":
		return 3
	case r.Absent():
		return 4
	case r.Current == 0:
		return 2
	case r.CurrentSince.IsZero():
		return 1
	}
	return 0
}

// order sorts the rows and keeps the cursors on the same learners.
func (m *Model) order() {
	var keep string
	if r, ok := m.Selected(); ok {
		keep = recordKey(r)
	}
	m.rows = slices.Clone(m.class.Records)
	slices.SortStableFunc(m.rows, m.compare)
	for i, r := range m.rows {
		if recordKey(r) == keep {
			m.cursor = i
		}
	}
	var qkeep string
	if m.qcursor < len(m.queue) {
		qkeep = m.queue[m.qcursor].Learner + "/" + m.queue[m.qcursor].Lab
	}
	m.summarize()
	for i, w := range m.queue {
		if w.Learner+"/"+w.Lab == qkeep {
			m.qcursor = i
		}
	}
	m.clamp()
}

// compare orders two rows: absent learners last in both orders; then
// most steps passed, or longest on their step; then by name as Korean
// readers order names, then by slot.
func (m Model) compare(a, b class.Record) int {
	switch m.sort {
	case ByStuck:
		if ga, gb := group(a), group(b); ga != gb {
			return ga - gb
		}
		if !a.CurrentSince.Equal(b.CurrentSince) {
			return a.CurrentSince.Compare(b.CurrentSince)
		}
	default:
		if a.Absent() != b.Absent() {
			if a.Absent() {
				return 1
			}
			return -1
		}
		if a.Passed() != b.Passed() {
			return b.Passed() - a.Passed()
		}
	}
	if c := m.compareNames(a.Shown(), b.Shown()); c != 0 {
		return c
	}
	return strings.Compare(a.Learner, b.Learner)
}

// compareNames orders names as a Korean reader does: CLDR's Korean
// collation, whose tailoring puts Hangul, then Han, before Latin
// ([reorder Hang Hani] in CLDR's ko.xml), digits by value (learner-2
// before learner-10), case ignored. x/text's collator has the Korean
// table but ignores its reordering of scripts (it sorts 김지민 after
// learner-01), so the script of a name's first letter orders first.
func (m Model) compareNames(a, b string) int {
	if ra, rb := scriptRank(a), scriptRank(b); ra != rb {
		return ra - rb
	}
	return m.names.CompareString(a, b)
}

// scriptRank is where CLDR's Korean order puts a name by its first
// character: digits and punctuation, then Hangul, then Han, then the
// other scripts.
func scriptRank(s string) int {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.Is(unicode.Hangul, r):
		return 1
	case unicode.Is(unicode.Han, r):
		return 2
	case unicode.IsLetter(r):
		return 3
	}
	return 0
}

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.rows)-1))
	m.qcursor = max(0, min(m.qcursor, len(m.queue)-1))
	if _, ok := m.Detail(); !ok {
		m.detail, m.scroll = "", 0
	}
	n := m.listRows()
	m.top = follow(m.top, m.cursor, n, len(m.rows))
	m.qtop = follow(m.qtop, m.qcursor, m.queueRows(), len(m.queue))
	if m.detail != "" {
		body := len(m.detailLines()) - 1 // the title line stays
		m.scroll = max(0, min(m.scroll, body-m.detailRows()))
	}
	m.syncKeys() // the detail may have closed
}

// follow is the first row shown of a list of count rows, n at a time,
// so that the cursor is on screen.
func follow(top, cursor, n, count int) int {
	if cursor < top {
		top = cursor
	}
	if cursor >= top+n {
		top = cursor - n + 1
	}
	return max(0, min(top, count-n))
}

// bodyRows is how many rows the view has above the footer.
func (m Model) bodyRows() int { return max(1, m.height-1) }

// listRows is how many rows of a list fit: the title, the connection's
// line while the class is not current, the column header and the footer
// take the rest.
func (m Model) listRows() int {
	return max(1, m.bodyRows()-len(m.heading())-1)
}

// Stuck reports whether r has been on its current step longer than the
// threshold.
func (m Model) Stuck(r class.Record) bool {
	return r.Current > 0 && !r.CurrentSince.IsZero() && m.now.Sub(r.CurrentSince) >= m.opts.Stuck
}

// Behind reports whether r runs another version of the class's lab than
// the one the class carries now (an older one, until the learner restarts
// labmate after a push). A built-in lab the class only names is each
// learner's labmate's own version: no restart changes it.
func (m Model) Behind(r class.Record) bool {
	l := m.class.Lab
	return r.Flag == "" && l.ID != "" && !l.Builtin && r.Lab == l.ID && r.LabVersion != "" && r.LabVersion != l.Version
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

// View draws the view on screen, every line within the width: what
// cannot shrink (marks, counts, keys) is laid out to fit, and only a
// name or a title is shortened, with an ellipsis.
func (m Model) View() string {
	var lines []string
	switch {
	case m.keysShown:
		lines = m.keyLines()
	case m.detail != "":
		lines = m.detailView()
	default:
		lines = m.viewLines()
	}
	body := m.bodyRows()
	for len(lines) < body {
		lines = append(lines, "")
	}
	lines = append(lines[:body], m.footer())
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			l = ansi.Truncate(l, m.width, "")
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// heading is the lines above a view's column header: the title, and the
// connection's line while the class is not current.
func (m Model) heading() []string {
	out := []string{m.title()}
	if w := m.linkWords(); w != "" {
		for _, l := range pageWrap(w, m.width) {
			out = append(out, m.th.Alert.Render(l))
		}
	}
	return out
}

// asOf is the time the class was last known current, as the board shows
// it ("" when it never was).
func (m Model) asOf() string {
	if !m.class.Synced || m.class.StaleSince.IsZero() {
		return ""
	}
	return m.class.StaleSince.In(m.now.Location()).Format("15:04")
}

// linkWords says why the class on screen is not current ("" while it is).
func (m Model) linkWords() string {
	at := m.asOf()
	switch m.class.Link {
	case class.Lost:
		if at != "" {
			return content.Msg("class.board.link.lost_as_of", "at", at)
		}
		return content.Msg("class.board.link.lost")
	case class.Denied:
		return content.Msg("class.board.link.denied")
	}
	return ""
}

// title is the board's first line: the connection while it is not
// current, the counts, the view (the sort of the learners' table), the
// namespace and the lab; when the pane is narrow, the lab, the
// namespace and the name of the program give way, never a count.
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
	var link string
	linkStyle := m.th.Alert
	switch at := m.asOf(); {
	case m.class.Link == class.Lost && at != "":
		link = content.Msg("class.board.title.lost_as_of", "at", at)
	case m.class.Link == class.Lost:
		link = content.Msg("class.board.title.lost")
	case m.class.Link == class.Denied:
		link = content.Msg("class.board.title.denied")
	case !m.class.Synced:
		link, linkStyle = content.Msg("class.board.title.syncing"), m.th.Muted
	}
	counts := content.Msg("class.board.title.counts", "n", len(m.rows), "stuck", stuck, "regressed", regressed)
	// What the view shows: the sort of the learners' table, else the
	// view's name.
	view := content.Msg("class.board.view_is", "view", m.viewName(m.view))
	if m.view == Learners {
		view = content.Msg("class.board.title.sort", "sort", content.Msg(fmt.Sprintf("class.board.sort.%d", m.sort)))
	}
	lab := ""
	if l := m.class.Lab; l.ID != "" {
		lab = content.Msg("class.board.title.lab", "lab", l.ID, "version", l.Version)
	}
	// In order on the line; by how long they stay when room is short.
	parts := []struct {
		text  string
		keep  int
		style lipgloss.Style
	}{
		{content.Msg("class.board.title.program"), 0, m.th.Title},
		{m.opts.Namespace, 2, m.th.Title},
		{lab, 1, m.th.Title},
		{link, 9, linkStyle},
		{counts, 9, m.th.Title},
		{view, 3, m.th.Title},
	}
	for drop := 0; ; drop++ {
		var plain, styled []string
		for _, p := range parts {
			if p.text != "" && p.keep >= drop {
				plain = append(plain, p.text)
				styled = append(styled, p.style.Render(p.text))
			}
		}
		if ansi.StringWidth(strings.Join(plain, "  ")) <= m.width || drop > 9 {
			return strings.Join(styled, m.th.Title.Render("  "))
		}
	}
}

// footer is the help line of the keys that work now (ShortHelp): what
// does not fit the pane whole leaves from the end, never ? and q.
func (m Model) footer() string {
	bs := m.ShortHelp()
	item := func(b key.Binding) string {
		return m.help.Styles.ShortKey.Render(b.Help().Key) + " " + m.help.Styles.ShortDesc.Render(b.Help().Desc)
	}
	var must, may []key.Binding
	for _, b := range bs {
		if h := b.Help().Key; h == m.keys.Help.Help().Key || h == m.keys.Quit.Help().Key {
			must = append(must, b)
		} else {
			may = append(may, b)
		}
	}
	width := func(items []key.Binding) int {
		w := 0
		for i, b := range items {
			if i > 0 {
				w += 2
			}
			w += ansi.StringWidth(b.Help().Key + " " + b.Help().Desc)
		}
		return w
	}
	shown := slices.Clone(must)
	for len(may) > 0 && width(append(slices.Clone(may), must...)) > m.width {
		may = may[:len(may)-1]
	}
	shown = append(may, shown...)
	parts := make([]string, len(shown))
	for i, b := range shown {
		parts[i] = item(b)
	}
	return strings.Join(parts, "  ")
}

// keyLines is the page of every key (?): each key and what it does.
func (m Model) keyLines() []string {
	lines := []string{m.th.Title.Render(content.Msg("class.board.keys"))}
	for _, col := range m.FullHelp() {
		lines = append(lines, "")
		for _, b := range col {
			lines = append(lines, "  "+m.help.Styles.FullKey.Render(pad(b.Help().Key, 10))+" "+m.help.Styles.FullDesc.Render(b.Help().Desc))
		}
	}
	return lines
}

// ClassMsg is the message the board gets for a new class (for tests and
// benchmarks that drive the model with class.Watch themselves).
func ClassMsg(c class.Class) tea.Msg { return classMsg{c} }
