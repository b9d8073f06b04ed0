// Package tui is labmate's terminal interface: the lab's introduction and
// steps rendered from markdown, each step's live checks, and keys that
// work in a narrow tmux pane. It only shows: reports come in on a channel
// from the engine, and every slow or outside action (markdown rendering,
// the clipboard, re-running checks, saving progress) is a tea.Cmd, so
// Update and View stay pure and the program is idle when nothing changes.
package tui

import (
	"context"
	"maps"
	"os"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class/classlab"
	"github.com/labhub/labmate/class/learner"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/page"
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

// Model is the TUI's state. It is a tea.Model. The parts of the screen
// with a state of their own are components with their own files: the
// markdown renderings (render.go), the pager (pager.go), the footer's
// notes and help line (footer.go), the hint ladder (hints.go), the copy
// key (copy.go), page numbers typed (jump.go) and the replay's row and
// controls (replay.go); the views made from the report alone are drawn on
// a canvas (canvas.go, observed.go, helppage.go).
type Model struct {
	opts  Options
	lab   *content.Lab
	th    theme.Theme
	keys  keys.KeyMap
	pages int // introduction + steps

	width, height int
	gen           uint64 // layout generation: bumped on every resize

	page     int // 0: introduction, 1..: steps (index into lab.Steps + 1)
	showHelp bool
	observed bool
	// comparing shows the step's files beside its reference (compare.go);
	// ending the closing page once every step passed (ending.go).
	comparing, ending bool
	comparison        *compareResult
	passedAt          map[int]time.Time // first passes: the learner's progress and this run's
	caughtUpAt        map[int]time.Time // catch-ups: the learner's progress and this run's

	report *engine.Report
	class  learner.Status // the class publisher's newest status (--class only)
	// classLab is the newest note about the class's lab (nil: none).
	classLab *classlab.LabNote
	// note is a raised hand's note being typed (nil: none).
	note []rune
	// catchUp is the catch-up on screen (nil: none, catchup.go);
	// catchUpID numbers them. ctx is Run's, for the catch-up's commands.
	catchUp   *catchingUp
	catchUpID int
	ctx       context.Context

	docs   renderings
	pg     pager
	foot   footer
	hints  ladder
	copier copier
	jumps  jumper
	replay replayBar
	root   rootPlace
	opener opener
	cuts   *cutLog
}

// compareResult is the newest comparison read (compare.go).
type compareResult = comparedMsg

// viewKey says what the viewport shows: which page, and whether the help
// or the observed view is open on it.
type viewKey struct {
	page                                       int
	help, observed, comparing, ending, catchUp bool
}

func (m Model) viewKey() viewKey {
	return viewKey{m.page, m.showHelp, m.observed, m.comparing, m.ending, m.catchUp != nil}
}

type reportMsg struct{ upd labrun.Update }
type reportsClosedMsg struct{}

// New returns the model for opts. It never fails: a missing lab shows an
// empty introduction.
func New(opts Options) Model {
	page.NarrowAmbiguous()
	opts = cleanOptions(opts)
	lab := opts.Lab
	if lab == nil {
		lab = &content.Lab{Title: "labmate"}
	}
	th := theme.New(opts.Theme, opts.Colors.profile())
	m := Model{
		opts:   opts,
		lab:    lab,
		th:     th,
		keys:   keys.Default(len(lab.Steps)),
		pages:  len(lab.Steps) + 1,
		docs:   newRenderings(),
		pg:     newPager(),
		foot:   newFooter(th),
		hints:  newLadder(opts.Progress, opts.OnProgress),
		replay: replayBar{ctl: opts.Replay, th: th},
		root:   newRootPlace(opts.Place),
		opener: newOpener(),
		cuts:   &cutLog{},
		ctx:    context.Background(),
	}
	m.foot.setPlace(m.root.note, m.root.fixes != "")
	m.passedAt = map[int]time.Time{}
	maps.Copy(m.passedAt, opts.PassedAt)
	m.caughtUpAt = map[int]time.Time{}
	maps.Copy(m.caughtUpAt, opts.CaughtUpAt)
	// What the copy key offers depends only on the text and the root.
	mds := make([]string, m.pages)
	for p := range mds {
		mds[p] = m.pageMarkdown(p)
	}
	m.copier = newCopier(clipboard{mode: opts.Clipboard, tmux: os.Getenv("TMUX") != ""}, mds, opts.Root)
	notices := append([]string(nil), opts.Notices...)
	notices = append(notices, m.keys.Rebind(opts.Keys)...)
	m.opts.Notices = notices
	m.syncKeys()
	if opts.StartPage > 0 && opts.StartPage < m.pages {
		m.page = opts.StartPage
	}
	return m
}

// Init starts reading reports (and, in a replay, its progress) and shows
// start-up notices.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitReport(m.opts.Updates), m.replay.Init(), waitClass(m.opts.Class), waitClassLab(m.opts.ClassLab), waitAcks(m.opts.Hands)}
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

// sideEffect runs f from a command that reports nothing back: calls out
// of the TUI never happen in Update.
func sideEffect(f func()) tea.Cmd {
	return func() tea.Msg {
		f()
		return nil
	}
}

// saving runs a save of the learner's progress from a command; a save
// that failed comes back as a saveFailedMsg.
func saving(save func() error) tea.Cmd {
	return func() tea.Msg {
		if err := save(); err != nil {
			return saveFailedMsg{err}
		}
		return nil
	}
}

type saveFailedMsg struct{ err error }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		cmd = m.resize(msg.Width, msg.Height)
	case tea.KeyMsg:
		var quit bool
		if cmd, quit = m.keyMsg(msg); quit {
			return m, tea.Quit
		}
	case renderedMsg:
		if msg.key.width != m.width || msg.key.theme != m.th.Name || msg.gen != m.gen {
			return m, nil // stale: asked for another size or layout
		}
		cmd = m.adopt(msg)
	default:
		cmd = m.event(msg)
	}
	m.syncKeys()
	m.layout()
	return m, cmd
}

// keyMsg handles a key message. Keys typed faster than they are read
// arrive as one message with several runes: they are taken one by one (a
// paste is not keys).
func (m *Model) keyMsg(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	var cmds []tea.Cmd
	for _, k := range splitRunes(msg) {
		c, quit := m.key(k)
		if quit {
			return nil, true
		}
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...), false
}

// event handles what comes from outside the learner's keys: reports,
// the class's and the replay's status, timers and finished commands.
func (m *Model) event(msg tea.Msg) tea.Cmd {
	switch msg := fromOutside(msg).(type) {
	case reportMsg:
		return tea.Batch(m.applyReport(msg.upd), waitReport(m.opts.Updates))
	case reportsClosedMsg:
		// The engine stopped; keep showing the last report.
	case classMsg:
		m.class = msg.st
		return waitClass(m.opts.Class)
	case classLabMsg:
		return m.noteClassLab(msg.note)
	case ackMsg:
		return m.acked(msg.ack)
	case catchUpPlannedMsg:
		return m.catchUpPlanned(msg)
	case catchUpLineMsg:
		return m.catchUpLine(msg)
	case catchUpDoneMsg:
		return m.catchUpDone(msg)
	case toastExpiredMsg:
		m.foot.Update(msg)
	case copiedMsg:
		return m.foot.showToast(toast{
			text: copiedText(msg, 0), target: -1,
			words: func(room int) string { return copiedText(msg, room) },
		})
	case rootMadeMsg:
		return m.rootMade(msg)
	case editedMsg:
		return m.edited(msg)
	case comparedMsg:
		m.comparison = &msg
		if m.comparing {
			m.rebuild()
		}
	case saveFailedMsg:
		return m.foot.showToast(toast{text: content.Msg("tui.toast.save_failed", "err", msg.err), target: -1})
	case noticesMsg:
		if len(m.opts.Notices) > 0 {
			// The notices themselves are listed on the introduction.
			return m.foot.showToast(toast{text: content.Msg("tui.toast.notices", "n", len(m.opts.Notices), "key", keys.Display(m.keys.Go.Keys()[0])), target: 0})
		}
	default:
		_, cmd := m.replay.Update(msg)
		return cmd
	}
	return nil
}

// adopt takes a finished rendering for this layout and asks for the
// neighbouring pages' once the page has all of its own.
func (m *Model) adopt(msg renderedMsg) tea.Cmd {
	m.docs.adopt(msg)
	m.rebuild()
	return m.prefetch()
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
	m.pg.holdPlace(m.viewKey())
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
// While the footer asks a question, its answers are the only keys; a
// page number being typed ends with enter or any key but a digit.
func (m *Model) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &m.keys
	if m.noting() && msg.Type != tea.KeyCtrlC {
		// The note takes every key but ctrl+c: q is a letter of it.
		return m.noteKey(msg), false
	}
	if key.Matches(msg, k.Quit) {
		return nil, true
	}
	if m.tooSmall() {
		return nil, false
	}
	if m.catchUp != nil {
		return m.catchUpKey(msg), false
	}
	if m.foot.asking() {
		switch m.foot.answer(msg) {
		case replyYes:
			return m.openSolution(), false
		case replyNo:
			m.rebuild()
		}
		return nil, false
	}
	if m.jumps.waiting(m.foot) && !key.Matches(msg, k.Jump) {
		n, ok := m.jumps.take()
		if key.Matches(msg, k.Go) {
			m.foot.dropToast()
			if ok {
				return m.goPage(n), false
			}
			return nil, false
		}
	}
	return m.action(msg), false
}

// action does what a key stands for: the replay's and the pager's keys
// are theirs to handle.
func (m *Model) action(msg tea.KeyMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		m.rebuildTop()
	case key.Matches(msg, k.Close):
		m.close()
	case key.Matches(msg, k.Next):
		if m.page == m.pages-1 && !m.ending && m.allPassed() {
			return m.openEnding() // past the last step: the ending
		}
		return m.goPage(m.page + 1)
	case key.Matches(msg, k.Prev):
		return m.goPage(m.page - 1)
	case key.Matches(msg, k.Jump):
		return m.jump(msg.String())
	case key.Matches(msg, k.Go):
		if t := m.goTarget(); t == endingTarget {
			m.foot.followed()
			return m.openEnding()
		} else if t >= 0 {
			m.foot.followed()
			return m.goPage(t)
		}
	case key.Matches(msg, k.Hint):
		return m.nextHint()
	case key.Matches(msg, k.Observed):
		if m.page > 0 {
			m.observed = !m.observed
			m.showHelp, m.comparing, m.ending = false, false, false
			m.rebuildTop()
		}
	case key.Matches(msg, k.Copy):
		return m.copier.copyNext(m.page)
	case key.Matches(msg, k.Rescan):
		return m.rescan()
	case key.Matches(msg, k.MakeRoot):
		return m.makeRoot()
	case key.Matches(msg, k.Edit):
		return m.edit()
	case key.Matches(msg, k.Compare):
		return m.toggleCompare()
	case key.Matches(msg, k.Hand):
		return m.toggleHand()
	case key.Matches(msg, k.CatchUp):
		return m.startCatchUp()
	case key.Matches(msg, k.Ending):
		if m.ending {
			m.ending = false
			m.rebuildTop()
			return m.requestDocs()
		}
		return m.openEnding()
	default:
		if cmd, ok := m.replay.key(msg); ok {
			return cmd
		}
		m.pg.Update(msg)
	}
	return nil
}

// close closes the newest thing open: the help, the observed view, else
// the footer's newest note.
func (m *Model) close() {
	switch {
	case m.showHelp:
		m.showHelp = false
		m.rebuildTop()
	case m.observed || m.comparing || m.ending:
		m.observed, m.comparing, m.ending = false, false, false
		m.rebuildTop()
	default:
		m.foot.dismiss()
	}
}

// rescan asks for the checks to run again now, and says so.
func (m *Model) rescan() tea.Cmd {
	if m.opts.Rescan == nil {
		return nil
	}
	return tea.Batch(
		sideEffect(m.opts.Rescan),
		m.foot.showToast(toast{text: content.Msg("tui.toast.rescan"), target: -1}),
	)
}

// goPage shows page p (clamped), remembering where the old one was
// scrolled to.
func (m *Model) goPage(p int) tea.Cmd {
	p = max(0, min(p, m.pages-1))
	if p == m.page && !m.showHelp && !m.observed && !m.comparing && !m.ending {
		return nil
	}
	m.pg.leave(m.page)
	m.page = p
	m.showHelp, m.observed, m.comparing, m.ending = false, false, false, false
	m.pg.anchor = nil
	m.rebuild()
	m.pg.arrive(p)
	return tea.Batch(m.requestDocs(), m.notePage(p))
}

// notePage tells OnPage where the learner went, from a command.
func (m Model) notePage(p int) tea.Cmd {
	on := m.opts.OnPage
	if on == nil {
		return nil
	}
	return saving(func() error { return on(p) })
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

func (m Model) pageMarkdown(p int) string {
	if s := m.stepAt(p); s != nil {
		return s.Body
	}
	return m.lab.Intro
}
