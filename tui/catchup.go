package tui

// The catch-up key: on step N, the plan `labmate catch-up --to N` makes
// (labkit/catchup, through Options.PlanCatchUp) in a view of its own:
// what it will write, where the learner's own files go, what it runs on
// the sandbox, which steps it leaves alone. y does it; n or esc leaves
// it and nothing changes. Planning (it reads the lab, reaches the
// cluster) and doing (it writes, runs and waits for each step to pass)
// are commands, never Update; the view says how it ended.

import (
	"context"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/keys"
)

// CatchUpPlan is a catch-up worked out and not yet done
// (labkit/catchup.Plan). Lines, Empty and Result are quick; Do and Close
// may take long and are called from commands only.
type CatchUpPlan interface {
	// Lines are the plan in Korean, a line each, leading spaces nesting
	// a line under the one before.
	Lines() []string
	// Empty says every step before the one caught up to passes already.
	Empty() bool
	// Do carries the plan out (progress: what it is at, in Korean); its
	// error is Korean.
	Do(ctx context.Context, progress io.Writer) error
	// Result says how it ended once Do returned nil (Korean).
	Result() string
	// Close lets go of what the plan holds (its run, scratch files);
	// never the learner's backup.
	Close()
}

// catchUpPhase is where a catch-up is: being planned, its plan asking
// yes or no, being done, or ended (done, nothing to do, or refused).
type catchUpPhase int

const (
	catchUpPlanning catchUpPhase = iota
	catchUpAsking
	catchUpDoing
	catchUpEnded
)

// catchingUp is the catch-up on screen.
type catchingUp struct {
	to    int
	id    int // a message of an earlier catch-up is dropped, its plan closed
	phase catchUpPhase
	plan  CatchUpPlan
	lines []string // the plan, cleaned
	// result says how it ended (cleaned); failed: refused or stopped.
	result string
	failed bool
}

// catchUpPlannedMsg is a plan made (or why none could be).
type catchUpPlannedMsg struct {
	id    int
	plan  CatchUpPlan
	lines []string
	// nothing says there is nothing to do (the plan is closed already).
	nothing string
	err     error
}

// catchUpDoneMsg is a catch-up done (result) or stopped (err).
type catchUpDoneMsg struct {
	id     int
	result string
	err    error
}

// canCatchUp reports whether the catch-up key works on this page: a step
// after the first, with a step before it that does not pass (before any
// report, every step may need it).
func (m Model) canCatchUp() bool {
	s := m.stepAt(m.page)
	if m.opts.PlanCatchUp == nil || s == nil || s.Number < 2 || m.showHelp || m.ending {
		return false
	}
	if m.report == nil {
		return true
	}
	for _, st := range m.report.Steps {
		if st.Number < s.Number && st.Status != checks.Passed {
			return true
		}
	}
	return false
}

// startCatchUp opens the view and plans the catch-up to the step shown.
func (m *Model) startCatchUp() tea.Cmd {
	if !m.canCatchUp() {
		return nil
	}
	m.catchUpID++
	to := m.stepAt(m.page).Number
	m.catchUp = &catchingUp{to: to, id: m.catchUpID}
	m.rebuildTop()
	plan, ctx, id := m.opts.PlanCatchUp, m.ctx, m.catchUpID
	return func() tea.Msg {
		p, err := plan(ctx, to)
		if err != nil {
			return catchUpPlannedMsg{id: id, err: err}
		}
		if p.Empty() {
			nothing := p.Result()
			p.Close()
			return catchUpPlannedMsg{id: id, nothing: nothing}
		}
		return catchUpPlannedMsg{id: id, plan: p, lines: p.Lines()}
	}
}

// catchUpPlanned shows the plan and asks, or says why there is none.
func (m *Model) catchUpPlanned(msg catchUpPlannedMsg) tea.Cmd {
	cu := m.catchUp
	if cu == nil || cu.id != msg.id || cu.phase != catchUpPlanning {
		// The learner left before it came.
		if msg.plan != nil {
			return sideEffect(msg.plan.Close)
		}
		return nil
	}
	switch {
	case msg.err != nil:
		cu.phase, cu.failed, cu.result = catchUpEnded, true, msg.err.Error()
	case msg.plan == nil:
		cu.phase, cu.result = catchUpEnded, msg.nothing
	default:
		cu.phase, cu.plan, cu.lines = catchUpAsking, msg.plan, msg.lines
	}
	m.rebuild()
	return nil
}

// catchUpKey takes a key while the catch-up's view is open: yes does the
// plan, no (or esc) leaves it unchanged; while it is being done, only
// scrolling works.
func (m *Model) catchUpKey(msg tea.KeyMsg) tea.Cmd {
	cu, k := m.catchUp, &m.keys
	switch {
	case key.Matches(msg, k.Yes) && cu.phase == catchUpAsking:
		cu.phase = catchUpDoing
		m.rebuild()
		return m.doCatchUp(cu)
	case key.Matches(msg, k.No) && cu.phase != catchUpDoing:
		m.catchUp = nil
		m.rebuildTop()
		if cu.phase == catchUpAsking {
			return tea.Batch(sideEffect(cu.plan.Close),
				m.foot.showToast(toast{text: content.Msg("catchup.cancelled"), target: -1}))
		}
		if cu.phase == catchUpPlanning {
			return m.foot.showToast(toast{text: content.Msg("catchup.cancelled"), target: -1})
		}
	default:
		m.pg.Update(msg)
	}
	return nil
}

// doCatchUp carries the plan out from a command, then lets it go.
func (m Model) doCatchUp(cu *catchingUp) tea.Cmd {
	p, ctx, id := cu.plan, m.ctx, cu.id
	return func() tea.Msg {
		defer p.Close()
		if err := p.Do(ctx, io.Discard); err != nil {
			return catchUpDoneMsg{id: id, err: err}
		}
		return catchUpDoneMsg{id: id, result: p.Result()}
	}
}

// catchUpDone says how the catch-up ended, and has the files read again
// (the reference is there now).
func (m *Model) catchUpDone(msg catchUpDoneMsg) tea.Cmd {
	cu := m.catchUp
	if cu == nil || cu.id != msg.id {
		return nil
	}
	cu.phase, cu.plan = catchUpEnded, nil
	if msg.err != nil {
		cu.failed, cu.result = true, msg.err.Error()
	} else {
		cu.result = msg.result
	}
	m.rebuild()
	if m.opts.Rescan != nil {
		return sideEffect(m.opts.Rescan)
	}
	return nil
}

// catchUpView is the catch-up's view: its title, then the plan, what it
// is doing, or how it ended (the question is the footer's, in sight
// however long the plan).
func (c canvas) catchUpView(cu *catchingUp, no string) []block {
	out := []block{c.section(content.Msg("tui.catch_up.title", "to", cu.to))}
	muted := func(text string) block {
		return block{lines: styled(c.th.Muted, page.Wrap(text, c.width-1, " ", " ")), gap: true}
	}
	if cu.phase == catchUpPlanning {
		return append(out, muted(content.Msg("tui.catch_up.planning")))
	}
	if cu.phase == catchUpEnded {
		st := c.th.Status(checks.Passed)
		if cu.failed {
			st = c.th.Status(checks.Failed)
		}
		out = append(out, block{lines: styled(st, page.Wrap(page.Untab(cu.result), c.width-1, " ", " ")), gap: true})
		return append(out, muted(content.Msg("tui.catch_up.close", "no", no)))
	}
	var plan []string
	for _, l := range cu.lines {
		text := strings.TrimLeft(l, " ")
		indent := strings.Repeat(" ", len(l)-len(text))
		plan = append(plan, page.Wrap(page.Untab(text), c.width-1, " "+indent, " "+indent+"  ")...)
	}
	out = append(out, block{lines: plan, gap: true})
	if cu.phase == catchUpDoing {
		return append(out, muted(content.Msg("tui.catch_up.doing")))
	}
	return out
}

// syncCatchUpQuestion puts the question in the footer while the plan
// asks, and takes it down otherwise.
func (m *Model) syncCatchUpQuestion() {
	m.foot.question = ""
	if cu := m.catchUp; cu != nil && cu.phase == catchUpAsking {
		m.foot.question = content.Msg("tui.catch_up.question", "yes", keys.Display(m.keys.Yes.Keys()[0]),
			"no", strings.Join(displayKeys(m.keys.No.Keys()), ", "))
	}
}

// displayKeys are keys as the help shows them.
func displayKeys(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = keys.Display(k)
	}
	return out
}
