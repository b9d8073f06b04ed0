// Package tui is labmate's terminal interface: the lab's introduction and
// steps rendered from markdown, each step's live checks, and keys that
// work in a narrow tmux pane. It only shows: reports come in on a channel
// from the engine, and every slow or outside action (markdown rendering,
// the clipboard, re-running checks, saving progress) is a tea.Cmd, so
// Update and View stay pure and the program is idle when nothing changes.
package tui

import (
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// Minimum pane size; below it a short notice replaces the layout.
const (
	MinWidth  = 40
	MinHeight = 10
)

// maxCache bounds the rendered-markdown cache (pages × widths seen).
const maxCache = 64

// replayStatusGap is the least time between two reads of the replay's
// status: at high speed a replay changes hundreds of times a second, and
// the screen draws at most 20 frames a second anyway.
const replayStatusGap = 50 * time.Millisecond

// Model is the TUI's state. It is a tea.Model.
type Model struct {
	opts  Options
	lab   *content.Lab
	th    theme.Theme
	keys  keys.KeyMap
	foot  footer
	clip  clipboard
	pg    pager
	pages int // introduction + steps

	width, height int
	gen           uint64 // layout generation: bumped on every resize

	page     int // 0: introduction, 1..: steps (index into lab.Steps + 1)
	offsets  map[int]int
	showHelp bool
	observed bool
	scrolls  bool // the page is longer than the viewport (set by layout)
	cuts     *cutLog

	report   *engine.Report
	progress map[int]HintProgress // by step number
	copyNext map[int]int          // by page: which copy target comes next
	targets  [][]string           // by page: what the copy key offers

	replayStatus string       // the replay's last Status (replay mode only)
	class        class.Status // the class publisher's newest status (--class only)
	replayDone   bool         // the replay has ended: its controls do nothing

	// jumpTyped are the digits typed so far of a page number that more
	// digits could still extend (labs of more than nine steps).
	jumpTyped string
	jumpToast int // the id of the toast showing them
}

// viewKey says what the viewport shows: which page, and whether the help
// or the observed view is open on it.
type viewKey struct {
	page           int
	help, observed bool
}

func (m Model) viewKey() viewKey { return viewKey{m.page, m.showHelp, m.observed} }

type reportMsg struct{ upd labrun.Update }
type reportsClosedMsg struct{}

// replayMsg carries the replay's status, and whether it has ended, read
// at time at.
type replayMsg struct {
	status string
	done   bool
	at     time.Time
}
type replayEndedMsg struct{}

// New returns the model for opts. It never fails: a missing lab shows an
// empty introduction.
func New(opts Options) Model {
	narrowAmbiguous()
	lab := opts.Lab
	if lab == nil {
		lab = &content.Lab{Title: "labmate"}
	}
	th := theme.New(opts.Theme, opts.Colors.profile())
	m := Model{
		opts:     opts,
		lab:      lab,
		th:       th,
		keys:     keys.Default(len(lab.Steps)),
		pages:    len(lab.Steps) + 1,
		offsets:  map[int]int{},
		progress: map[int]HintProgress{},
		copyNext: map[int]int{},
		clip:     clipboard{mode: opts.Clipboard, tmux: os.Getenv("TMUX") != ""},
		cuts:     &cutLog{},
	}
	// What the copy key offers depends only on the text and the root.
	for p := 0; p < m.pages; p++ {
		m.targets = append(m.targets, copyTargets(m.pageMarkdown(p), opts.Root))
	}
	if m.clip.mode == "" {
		m.clip.mode = ClipboardAuto
	}
	for step, p := range opts.Progress {
		m.progress[step] = p
	}
	notices := append([]string(nil), opts.Notices...)
	notices = append(notices, m.keys.Rebind(opts.Keys)...)
	m.opts.Notices = notices
	m.foot = newFooter(th)
	m.pg = newPager()
	m.syncKeys()
	if opts.StartPage > 0 && opts.StartPage < m.pages {
		m.page = opts.StartPage
	}
	return m
}

// Init starts reading reports (and, in a replay, its progress) and shows
// start-up notices.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitReport(m.opts.Updates), readReplay(m.opts.Replay), waitClass(m.opts.Class)}
	if len(m.opts.Notices) > 0 {
		cmds = append(cmds, func() tea.Msg { return noticesMsg{} })
	}
	return tea.Batch(cmds...)
}

type noticesMsg struct{}

// waitReport reads the next update; Update re-arms it after each one.
func waitReport(ch <-chan labrun.Update) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return reportsClosedMsg{}
		}
		return reportMsg{u}
	}
}

// readReplay reads the replay's status at once (at start).
func readReplay(r ReplayControl) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg { return replayMsg{status: r.Status(), done: r.Done(), at: time.Now()} }
}

// waitReplay waits for the replay's next change and then reads its
// status; Update re-arms it after each one. Nothing runs while the replay
// does not change (paused, finished). Changes closer together than
// replayStatusGap after the last read are folded into one read.
func waitReplay(r ReplayControl, last time.Time) tea.Cmd {
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-r.Updates(); !ok {
			return replayEndedMsg{}
		}
		if d := replayStatusGap - time.Since(last); d > 0 {
			time.Sleep(d)
		}
		return replayMsg{status: r.Status(), done: r.Done(), at: time.Now()}
	}
}

// replayCmd calls one of the replay's controls, from a command: the
// replay answers on Updates.
func (m Model) replayCmd(call func(ReplayControl)) tea.Cmd {
	if r := m.opts.Replay; r != nil {
		return sideEffect(func() { call(r) })
	}
	return nil
}

// sideEffect runs f from a command that reports nothing back: calls out
// of the TUI never happen in Update.
func sideEffect(f func()) tea.Cmd {
	return func() tea.Msg {
		f()
		return nil
	}
}

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		cmds = append(cmds, m.resize(msg.Width, msg.Height))
	case tea.KeyMsg:
		// Keys typed faster than they are read arrive as one message with
		// several runes: take them one by one (a paste is not keys).
		for _, k := range splitRunes(msg) {
			c, quit := m.key(k)
			if quit {
				return m, tea.Quit
			}
			cmds = append(cmds, c)
		}
	case reportMsg:
		cmds = append(cmds, m.applyReport(msg.upd), waitReport(m.opts.Updates))
	case classMsg:
		m.class = msg.st
		cmds = append(cmds, waitClass(m.opts.Class))
	case reportsClosedMsg:
		// The engine stopped; keep showing the last report.
	case replayMsg:
		m.replayStatus = msg.status
		m.replayDone = msg.done
		cmds = append(cmds, waitReplay(m.opts.Replay, msg.at))
	case replayEndedMsg:
		// The replay will not change again; keep its last status.
		m.replayDone = true
	case renderedMsg:
		if msg.key.width != m.width || msg.key.theme != m.th.Name || msg.gen != m.gen {
			return m, nil // stale: asked for another size or layout
		}
		delete(m.pg.inflight, msg.key)
		m.pg.cache[msg.key] = msg.blocks
		m.rebuild()
		cmds = append(cmds, m.prefetch())
	case toastExpiredMsg:
		m.foot.expire(msg.id)
	case copiedMsg:
		cmds = append(cmds, m.foot.showToast(toast{
			text: copiedText(msg, 0), target: -1,
			words: func(room int) string { return copiedText(msg, room) },
		}))
	case noticesMsg:
		if len(m.opts.Notices) > 0 {
			// The notices themselves are listed on the introduction.
			cmds = append(cmds, m.foot.showToast(toast{text: content.Msg("tui.toast.notices", "n", len(m.opts.Notices), "key", keys.Display(m.keys.Go.Keys()[0])), target: 0}))
		}
	}
	m.syncKeys()
	m.layout()
	return m, tea.Batch(cmds...)
}

func splitRunes(msg tea.KeyMsg) []tea.KeyMsg {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste {
		return []tea.KeyMsg{msg}
	}
	out := make([]tea.KeyMsg, len(msg.Runes))
	for i, r := range msg.Runes {
		out[i] = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}
	}
	return out
}

// resize adopts a new pane size: the scroll position is remembered as a
// paragraph and the markdown is re-rendered for the new width (or taken
// from the cache).
func (m *Model) resize(w, h int) tea.Cmd {
	if w == m.width && h == m.height {
		return nil
	}
	if m.pg.anchor == nil && len(m.pg.blockStarts) > 0 {
		if k := m.pg.kept; k != nil && k.y == m.pg.vp.YOffset && k.view == m.viewKey() {
			a := k.a
			m.pg.anchor = &a
		} else {
			m.pg.anchor = m.pg.anchorAt(m.pg.vp.YOffset)
		}
	}
	m.width, m.height = max(w, 0), max(h, 0)
	m.gen++
	m.pg.vp.Width = m.width
	m.layout()
	if m.tooSmall() {
		return nil
	}
	// Without a rendering for this width yet, rebuild shows the old one
	// cut to the new width and keeps the anchor for when it comes.
	m.rebuild()
	return m.requestDocs()
}

func (m Model) tooSmall() bool { return m.width < MinWidth || m.height < MinHeight }

// key handles a key press; quit is true when the program should end.
func (m *Model) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.keys
	if key.Matches(msg, k.Quit) {
		return nil, true
	}
	if m.tooSmall() {
		return nil, false
	}
	if m.foot.confirm {
		switch {
		case key.Matches(msg, k.Yes):
			m.foot.confirm = false
			return m.openSolution(), false
		case key.Matches(msg, k.No):
			m.foot.confirm = false
			m.rebuild()
		}
		return nil, false
	}
	if !m.jumping() {
		m.jumpTyped = ""
	}
	if m.jumpTyped != "" && !key.Matches(msg, k.Jump) {
		typed := m.jumpTyped
		m.jumpTyped = ""
		if key.Matches(msg, k.Go) {
			m.foot.toast = nil
			// jump kept only digits that parsed, so this does not fail;
			// if it did, going nowhere beats going to the introduction.
			if n, err := strconv.Atoi(typed); err == nil {
				return m.goPage(n), false
			}
			return nil, false
		}
	}
	switch {
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		m.rebuildTop()
	case key.Matches(msg, k.Close):
		switch {
		case m.showHelp:
			m.showHelp = false
			m.rebuildTop()
		case m.observed:
			m.observed = false
			m.rebuildTop()
		default:
			m.foot.dismiss()
		}
	case key.Matches(msg, k.Next):
		return m.goPage(m.page + 1), false
	case key.Matches(msg, k.Prev):
		return m.goPage(m.page - 1), false
	case key.Matches(msg, k.Jump):
		return m.jump(msg.String()), false
	case key.Matches(msg, k.Go):
		if t := m.goTarget(); t >= 0 {
			m.foot.alert = nil
			m.foot.toast = nil
			return m.goPage(t), false
		}
	case key.Matches(msg, k.Down):
		m.pg.vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		m.pg.vp.ScrollUp(1)
	case key.Matches(msg, k.PageDown):
		m.pg.vp.PageDown()
	case key.Matches(msg, k.PageUp):
		m.pg.vp.PageUp()
	case key.Matches(msg, k.HalfDown):
		m.pg.vp.HalfPageDown()
	case key.Matches(msg, k.HalfUp):
		m.pg.vp.HalfPageUp()
	case key.Matches(msg, k.Top):
		m.pg.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		m.pg.vp.GotoBottom()
	case key.Matches(msg, k.Hint):
		return m.nextHint(), false
	case key.Matches(msg, k.Observed):
		if m.page > 0 {
			m.observed = !m.observed
			m.showHelp = false
			m.rebuildTop()
		}
	case key.Matches(msg, k.Copy):
		return m.copyNextTarget(), false
	case key.Matches(msg, k.Pause):
		return m.replayCmd(ReplayControl.TogglePause), false
	case key.Matches(msg, k.Speed):
		return m.replayCmd(ReplayControl.CycleSpeed), false
	case key.Matches(msg, k.NextChange):
		return m.replayCmd(ReplayControl.NextChange), false
	case key.Matches(msg, k.Rescan):
		if m.opts.Rescan != nil {
			rescan := m.opts.Rescan
			return tea.Batch(
				sideEffect(rescan),
				m.foot.showToast(toast{text: content.Msg("tui.toast.rescan"), target: -1}),
			), false
		}
	}
	return nil, false
}

// jump takes a digit key. With up to nine steps it goes to that page at
// once; with more, digits add up to a page number, which is gone to as
// soon as no longer number starts with them ("1" waits for "12" in a
// twelve-step lab; "3" goes at once), or on enter.
func (m *Model) jump(digit string) tea.Cmd {
	last := m.pages - 1
	typed := m.jumpTyped + digit
	if n, err := strconv.Atoi(typed); err != nil || n > last {
		typed = digit // a new number begins
	}
	n, err := strconv.Atoi(typed)
	if err != nil || n > last {
		m.jumpTyped = ""
		return nil
	}
	if n == 0 || n*10 > last {
		m.jumpTyped = ""
		return m.goPage(n)
	}
	m.jumpTyped = typed
	cmd := m.foot.showToast(toast{text: content.Msg("tui.jump.typed", "typed", typed, "max", last), target: n})
	m.jumpToast = m.foot.toastID
	return cmd
}

// jumping reports whether typed digits are still on screen (their toast
// has not gone or been replaced).
func (m Model) jumping() bool {
	return m.jumpTyped != "" && m.foot.toast != nil && m.foot.toast.id == m.jumpToast
}

// goPage shows page p (clamped), remembering where the old one was
// scrolled to.
func (m *Model) goPage(p int) tea.Cmd {
	p = max(0, min(p, m.pages-1))
	if p == m.page && !m.showHelp && !m.observed {
		return nil
	}
	m.offsets[m.page] = m.pg.vp.YOffset
	m.page = p
	m.showHelp = false
	m.observed = false
	m.pg.anchor = nil
	m.rebuild()
	m.pg.vp.SetYOffset(m.offsets[p])
	return tea.Batch(m.requestDocs(), m.notePage(p))
}

// notePage tells OnPage where the learner went, from a command.
func (m Model) notePage(p int) tea.Cmd {
	on := m.opts.OnPage
	if on == nil {
		return nil
	}
	return sideEffect(func() { on(p) })
}

// stepAt returns the lab step shown on page p (nil for the introduction).
func (m Model) stepAt(p int) *content.Step {
	if p < 1 || p > len(m.lab.Steps) {
		return nil
	}
	return &m.lab.Steps[p-1]
}

// pageOf returns the page that shows step number n, or -1.
func (m Model) pageOf(n int) int {
	for i, s := range m.lab.Steps {
		if s.Number == n {
			return i + 1
		}
	}
	return -1
}

// result returns the latest result for a step, or nil before any report.
func (m Model) result(s *content.Step) *engine.StepResult {
	if m.report == nil || s == nil {
		return nil
	}
	return m.report.Step(s.Number)
}

func (m Model) status(s *content.Step) checks.Status {
	if r := m.result(s); r != nil {
		return r.Status
	}
	return checks.Waiting
}

// applyReport adopts a new report: a toast for steps that just passed, an
// alert for steps that were green and turned red. Transitions count only
// from a report taken after every source had synced, so start-up does not
// flood the learner with toasts for work done earlier.
func (m *Model) applyReport(u labrun.Update) tea.Cmd {
	rep := u.Report
	m.report = &rep
	// Steps that are no longer red leave the alert first, so a pass
	// toast for them can offer enter.
	if m.foot.alert != nil {
		m.foot.alert = m.stillRed(m.foot.alert)
	}
	var cmd tea.Cmd
	if u.SinceReady {
		var passed, regressed []int
		for _, c := range u.Changes {
			switch {
			case c.Passed():
				passed = append(passed, c.Step)
			case c.Regressed():
				regressed = append(regressed, c.Step)
			}
		}
		if len(regressed) > 0 {
			m.raiseAlert(regressed)
		}
		if len(passed) > 0 {
			cmd = m.passedToast(passed)
		}
	}
	m.rebuild()
	return cmd
}

func (m *Model) raiseAlert(steps []int) {
	if a := m.foot.alert; a != nil {
		for _, n := range a.steps {
			if !slices.Contains(steps, n) {
				steps = append(steps, n)
			}
		}
	}
	m.foot.raise(&alert{steps: steps, text: m.alertText(steps)})
}

// stillRed drops steps from an alert that are no longer red.
func (m *Model) stillRed(a *alert) *alert {
	var keep []int
	for _, n := range a.steps {
		if r := m.report.Step(n); r != nil && (r.Status == checks.Failed || r.Status == checks.Error) {
			keep = append(keep, n)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	if len(keep) == len(a.steps) {
		return a
	}
	return &alert{steps: keep, text: m.alertText(keep)}
}

func (m Model) alertText(steps []int) string {
	first := steps[0]
	reason := ""
	if r := m.report.Step(first); r != nil {
		for _, c := range r.Checks {
			if c.Status == checks.Failed || c.Status == checks.Error {
				reason = firstLine(sanitize(c.Message))
				break
			}
		}
	}
	return content.Msg("tui.alert.regressed", "steps", joinInts(steps), "reason", reason)
}

// passedToast says which steps just passed and, unless a regression
// alert holds the enter key, that enter goes on: the same key the help
// line offers for it.
func (m *Model) passedToast(passed []int) tea.Cmd {
	if m.report.AllPassed() {
		return m.foot.showToast(toast{text: content.Msg("tui.toast.all_passed"), target: -1, steps: passed})
	}
	last := passed[len(passed)-1]
	t := toast{text: content.Msg("tui.toast.passed", "steps", joinInts(passed)), target: -1, steps: passed}
	if p := m.pageOf(last); p >= 0 && p+1 < m.pages && m.foot.alert == nil {
		t.gone = t.text
		t.target = p + 1
		t.text += " " + content.Msg("tui.toast.passed_go", "key", keys.Display(m.keys.Go.Keys()[0]), "next", m.stepAt(p+1).Number)
	}
	return m.foot.showToast(t)
}

// goTarget is the page enter goes to: a regressed step, else the step a
// toast points at; never the page already on screen (-1: none).
func (m Model) goTarget() int {
	if a := m.foot.alert; a != nil {
		for _, n := range a.steps {
			if p := m.pageOf(n); p >= 0 && m.leadsAway(p) {
				return p
			}
		}
		return -1
	}
	if t := m.foot.toast; t != nil && t.target >= 0 && m.leadsAway(t.target) {
		return t.target
	}
	return -1
}

// leadsAway reports whether going to page p changes what is on screen.
func (m Model) leadsAway(p int) bool { return p != m.page || m.showHelp || m.observed }

// nextHint climbs the current step's hint ladder: one more hint, then the
// worked solution behind a question.
func (m *Model) nextHint() tea.Cmd {
	s := m.stepAt(m.page)
	if s == nil {
		return nil
	}
	m.observed = false
	m.showHelp = false
	p := m.progress[s.Number]
	switch {
	case p.Seen < len(s.Hints):
		p.Seen++
		m.progress[s.Number] = p
		m.rebuild()
		m.pg.scrollToBlock(m.hintBlock(p.Seen - 1))
		return m.saveProgress(s.Number)
	case !p.Solution:
		m.foot.confirm = true
		m.rebuild()
		m.pg.vp.GotoBottom()
	default:
		m.rebuild()
		m.pg.scrollToBlock(m.solutionBlock())
	}
	return nil
}

func (m *Model) openSolution() tea.Cmd {
	s := m.stepAt(m.page)
	if s == nil {
		return nil
	}
	p := m.progress[s.Number]
	p.Solution = true
	m.progress[s.Number] = p
	m.rebuild()
	m.pg.scrollToBlock(m.solutionBlock())
	return tea.Batch(m.saveProgress(s.Number), m.requestDocs())
}

func (m Model) saveProgress(step int) tea.Cmd {
	if m.opts.OnProgress == nil {
		return nil
	}
	p := m.progress[step]
	on := m.opts.OnProgress
	return sideEffect(func() { on(step, p.Seen, p.Solution) })
}

// Progress returns how far the learner went up each step's hint ladder.
func (m Model) Progress() map[int]HintProgress {
	out := make(map[int]HintProgress, len(m.progress))
	for k, v := range m.progress {
		out[k] = v
	}
	return out
}

func (m *Model) copyNextTarget() tea.Cmd {
	targets := m.copyTargets()
	if len(targets) == 0 || !m.clip.enabled() {
		return nil
	}
	i := m.copyNext[m.page] % len(targets)
	m.copyNext[m.page] = i + 1
	return copyCmd(m.clip, targets[i])
}

func (m Model) copyTargets() []string {
	if m.page < len(m.targets) {
		return m.targets[m.page]
	}
	return nil
}

func (m Model) pageMarkdown(p int) string {
	if s := m.stepAt(p); s != nil {
		return s.Body
	}
	return m.lab.Intro
}

// copiedText says where a copy went, with the copied text and any error
// cut to room cells (0: whole).
func copiedText(c copiedMsg, room int) string {
	shown := elide(firstLine(c.text), room)
	if firstLine(c.text) != c.text {
		shown += " ..."
	}
	errText := func() string { return elide(sanitize(c.tmuxErr.Error()), room) }
	switch {
	case c.tmux && c.tmuxClipboard == "off":
		// tmux drops OSC 52 from programs: only its buffer has the text.
		return content.Msg("tui.toast.copied_tmux_clipboard_off", "text", shown)
	case c.tmux && c.osc52:
		return content.Msg("tui.toast.copied_tmux", "text", shown)
	case c.tmux:
		return content.Msg("tui.toast.copied_tmux_only", "text", shown)
	case c.osc52 && c.tmuxErr != nil:
		return content.Msg("tui.toast.copied_osc52_tmux_failed", "text", shown, "err", errText())
	case c.osc52:
		return content.Msg("tui.toast.copied_osc52", "text", shown)
	case c.tmuxErr != nil:
		return content.Msg("tui.toast.copy_failed", "err", errText())
	}
	return content.Msg("tui.toast.copy_failed", "err", "-")
}

// elide shortens s to n cells (n <= 0: not at all) by cutting its middle:
// the end of a path or a command says the most.
func elide(s string, n int) string {
	w := ansi.StringWidth(s)
	if n <= 0 || w <= n {
		return s
	}
	head := max(n-2, 0) / 3
	tail := max(n-2-head, 0)
	return ansi.Truncate(s, head, "") + ".." + ansi.TruncateLeft(s, w-tail, "")
}
