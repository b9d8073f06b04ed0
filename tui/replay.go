package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
	"github.com/labhub/labmate/tui/theme"
)

// replayStatusGap is the least time between two reads of the replay's
// status: at high speed a replay changes hundreds of times a second, and
// the screen draws at most 20 frames a second anyway.
const replayStatusGap = 50 * time.Millisecond

// replayBar is the replay's row under the step strip and its controls
// (pause, speed, next change), in replay mode only: it reads the replay's
// status when the replay says it changed, and its keys do something only
// while the replay runs. It is a component one row high.
type replayBar struct {
	ctl    ReplayControl // nil: not a replay
	status string        // the replay's last Status
	done   bool          // the replay has ended: its controls do nothing
	th     theme.Theme
	width  int

	pause, speed, next key.Binding
}

var _ component.Component = (*replayBar)(nil)

// SetSize gives the row the pane's width (it is one row high).
func (r *replayBar) SetSize(w, _ int) { r.width = w }

// ShortHelp is the controls, enabled while the replay runs.
func (r replayBar) ShortHelp() []key.Binding { return []key.Binding{r.pause, r.speed, r.next} }

// FullHelp is the controls.
func (r replayBar) FullHelp() [][]key.Binding { return [][]key.Binding{r.ShortHelp()} }

// replayMsg carries the replay's status, and whether it has ended, read
// at time at.
type replayMsg struct {
	status string
	done   bool
	at     time.Time
}
type replayEndedMsg struct{}

// on reports whether there is a replay (and so a row for it).
func (r replayBar) on() bool { return r.ctl != nil }

// running reports whether the replay's controls still do something.
func (r replayBar) running() bool { return r.ctl != nil && !r.done }

// Init reads the replay's status at once (at start).
func (r replayBar) Init() tea.Cmd {
	if r.ctl == nil {
		return nil
	}
	ctl := r.ctl
	return func() tea.Msg { return replayMsg{status: ctl.Status(), done: ctl.Done(), at: time.Now()} }
}

// Update adopts the replay's news and calls the control a key stands for.
func (r *replayBar) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case replayMsg:
		r.status = msg.status
		r.done = msg.done
		return r, waitReplay(r.ctl, msg.at)
	case replayEndedMsg:
		// The replay will not change again; keep its last status.
		r.done = true
	case tea.KeyMsg:
		cmd, _ := r.key(msg)
		return r, cmd
	}
	return r, nil
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
		if d := replayDelay(last, time.Now()); d > 0 {
			time.Sleep(d)
		}
		return replayMsg{status: r.Status(), done: r.Done(), at: time.Now()}
	}
}

// replayDelay is how long a change seen at now waits before its read, the
// last read having been at last: the rest of replayStatusGap, or nothing.
func replayDelay(last, now time.Time) time.Duration {
	return max(replayStatusGap-now.Sub(last), 0)
}

// syncKeys enables the controls while the replay runs (and normal says
// keys work at all), and takes them as its own keys.
func (r *replayBar) syncKeys(k *keys.KeyMap, normal bool) {
	on := normal && r.running()
	for _, c := range []struct {
		b    *key.Binding
		text string
	}{{&k.Pause, "tui.short.pause"}, {&k.Speed, "tui.short.speed"}, {&k.NextChange, "tui.short.next_change"}} {
		c.b.SetEnabled(on)
		c.b.SetHelp(c.b.Help().Key, content.Msg(c.text))
	}
	r.pause, r.speed, r.next = k.Pause, k.Speed, k.NextChange
}

// key calls the control a key stands for, from a command: the replay
// answers on Updates. handled is false for other keys.
func (r replayBar) key(msg tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	var call func(ReplayControl)
	switch {
	case key.Matches(msg, r.pause):
		call = ReplayControl.TogglePause
	case key.Matches(msg, r.speed):
		call = ReplayControl.CycleSpeed
	case key.Matches(msg, r.next):
		call = ReplayControl.NextChange
	default:
		return nil, false
	}
	if ctl := r.ctl; ctl != nil {
		return sideEffect(func() { call(ctl) }), true
	}
	return nil, true
}

// View is the replay's progress as the replay words it (state, speed,
// position), on one row as wide as the pane. It is plain coloured text:
// the strip's banner already marks the session as a replay.
func (r replayBar) View() string {
	s := firstLine(page.Untab(r.status))
	if s == "" {
		return " " + r.th.Muted.Render(content.Msg("tui.loading"))
	}
	return " " + r.th.Hint.Render(shorten(s, r.width-1))
}
