package tui

// The catch-up key: on step N, the plan `labmate catch-up --to N` makes
// (labkit/catchup, through Options.PlanCatchUp) in a view of its own:
// what it will write, where the learner's own files go, what it runs on
// the sandbox, which steps it leaves alone. y does it; n or esc leaves
// it and nothing changes. Planning (it reads the lab, reaches the
// cluster) and doing (it writes, runs and waits for each step to pass)
// are commands, never Update. While it is done the view shows each
// step as it is caught up (the lines `labmate catch-up` prints), then
// how it ended.

import (
	"context"
	"io"
	"strings"
	"time"

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
	// CaughtUp are the steps Do brought to the reference, each with the
	// time it was recorded caught up (those before the step it stopped
	// at, when it failed): the ending does not count them as passed.
	CaughtUp() map[int]time.Time
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
	// done are the lines Do said so far (cleaned), a step each as it
	// is caught up.
	done []string
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

// catchUpLineMsg is a line a catch-up's Do said, on its feed (which
// carries its lines, then its catchUpDoneMsg).
type catchUpLineMsg struct {
	id   int
	line string
	feed <-chan tea.Msg
}

// catchUpDoneMsg is a catch-up done (result) or stopped (err), with the
// steps it caught up and when.
type catchUpDoneMsg struct {
	id     int
	result string
	err    error
	caught map[int]time.Time
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
		m.rebuildTop()
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

// catchUpFeedSize is how many messages a catch-up's feed holds before
// Do waits for the program to take them: a few steps' lines, so a short
// catch-up never waits on the view.
const catchUpFeedSize = 32

// doCatchUp carries the plan out from a command, then lets it go. What
// Do says comes a line at a time on a feed read by a re-arming command,
// the end last, so the lines are shown in order and before the result.
func (m Model) doCatchUp(cu *catchingUp) tea.Cmd {
	p, ctx, id := cu.plan, m.ctx, cu.id
	feed := make(chan tea.Msg, catchUpFeedSize)
	send := func(msg tea.Msg) {
		select {
		case feed <- msg:
		case <-ctx.Done(): // the program is gone: nobody reads
		}
	}
	do := func() tea.Msg {
		defer close(feed)
		defer p.Close()
		err := p.Do(ctx, catchUpLines{id: id, feed: feed, send: send})
		done := catchUpDoneMsg{id: id, err: err, caught: p.CaughtUp()}
		if err == nil {
			done.result = p.Result()
		}
		send(done)
		return nil
	}
	return tea.Batch(do, waitCatchUp(feed))
}

// waitCatchUp takes the next message of a catch-up's feed.
func waitCatchUp(feed <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		if msg, ok := <-feed; ok {
			return msg
		}
		return nil
	}
}

// catchUpLines is the writer a catch-up's Do says its progress on: each
// line written (labkit/catchup writes whole lines, as plain mode's
// lineWriter takes them) goes on the feed.
type catchUpLines struct {
	id   int
	feed <-chan tea.Msg
	send func(tea.Msg)
}

func (w catchUpLines) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		w.send(catchUpLineMsg{id: w.id, line: l, feed: w.feed})
	}
	return len(b), nil
}

// catchUpLine shows a line of the catch-up being done and waits for the
// next; the view follows the lines when it was at their end.
func (m *Model) catchUpLine(msg catchUpLineMsg) tea.Cmd {
	if cu := m.catchUp; cu != nil && cu.id == msg.id && cu.phase == catchUpDoing {
		cu.done = append(cu.done, msg.line)
		m.rebuildFollowing()
	}
	// A feed is read to its end even when its view is gone, so Do never
	// waits on it.
	return waitCatchUp(msg.feed)
}

// rebuildFollowing recomposes and, when the view was scrolled to its
// end, keeps it there (what was added is in sight).
func (m *Model) rebuildFollowing() {
	follow := m.pg.vp.AtBottom()
	m.rebuild()
	if follow {
		m.pg.vp.GotoBottom()
	}
}

// catchUpDone notes the steps caught up (for the ending), says how the
// catch-up ended, and has the files read again (the reference is there
// now).
func (m *Model) catchUpDone(msg catchUpDoneMsg) tea.Cmd {
	for n, at := range msg.caught {
		if _, ok := m.caughtUpAt[n]; !ok {
			m.caughtUpAt[n] = at
		}
	}
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
	m.rebuildFollowing()
	if m.opts.Rescan != nil {
		return sideEffect(m.opts.Rescan)
	}
	return nil
}

// catchUpView is the catch-up's view: its title, then the plan while it
// is planned and asks; once yes was said, each step as it is caught up,
// and how it ended (the question is the footer's, in sight however long
// the plan).
func (c canvas) catchUpView(cu *catchingUp, no string) []block {
	out := []block{c.section(content.Msg("tui.catch_up.title", "to", cu.to))}
	muted := func(text string) block {
		return block{lines: styled(c.th.Muted, page.Wrap(text, c.width-1, " ", " ")), gap: true}
	}
	switch cu.phase {
	case catchUpPlanning:
		return append(out, muted(content.Msg("tui.catch_up.planning")))
	case catchUpAsking:
		var plan []string
		for _, l := range cu.lines {
			text := strings.TrimLeft(l, " ")
			indent := strings.Repeat(" ", len(l)-len(text))
			plan = append(plan, page.Wrap(page.Untab(text), c.width-1, " "+indent, " "+indent+"  ")...)
		}
		return append(out, block{lines: plan, gap: true})
	case catchUpDoing:
		out = append(out, muted(content.Msg("tui.catch_up.doing")))
	}
	if len(cu.done) > 0 {
		var done []string
		for _, l := range cu.done {
			done = append(done, page.Wrap(page.Untab(l), c.width-1, " ", "   ")...)
		}
		out = append(out, block{lines: done, gap: true})
	}
	if cu.phase == catchUpEnded {
		st := c.th.Status(checks.Passed)
		if cu.failed {
			st = c.th.Status(checks.Failed)
		}
		out = append(out, block{lines: styled(st, page.Wrap(page.Untab(cu.result), c.width-1, " ", " ")), gap: true},
			muted(content.Msg("tui.catch_up.close", "no", no)))
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
