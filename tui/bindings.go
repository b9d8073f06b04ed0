package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/keys"
)

// ShortHelp is the screen's help line, in order of use: the footer's
// answers while it asks, then enter, the replay's controls, the model's
// own keys, the pager's scroll, help, close and quit. Each component
// words and enables its own (syncKeys); bubbles/help and the footer leave
// the disabled ones out.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	out := append([]key.Binding(nil), m.foot.ShortHelp()...)
	if m.catchUp != nil {
		out = append(out, k.Yes, k.No)
	}
	out = append(out, k.Go, k.MakeRoot)
	out = append(out, m.replay.ShortHelp()...)
	out = append(out, k.Next, k.Prev, k.Hint, k.Edit, k.Compare, k.Ending, k.Hand, k.CatchUp, k.Observed, k.Copy, k.Rescan, k.Jump)
	out = append(out, m.pg.ShortHelp()...)
	return append(out, k.Help, k.Close, k.Quit)
}

// FullHelp is the full help (?): every action by group (keys.FullHelp),
// the replay's only while a replay runs and the one that makes the lab
// root only while it is still to be made (they do nothing otherwise).
func (m Model) FullHelp() [][]key.Binding {
	full := m.keys.FullHelp()
	if !m.replay.running() {
		full[keys.GroupReplay] = nil
	}
	if !m.root.canMake() {
		mk := m.keys.MakeRoot.Keys()
		full[keys.GroupLearn] = slices.DeleteFunc(full[keys.GroupLearn], func(b key.Binding) bool { return slices.Equal(b.Keys(), mk) })
	}
	return full
}

// syncKeys enables exactly the keys that do something now, with help text
// for this moment (gum's habit), so the help line never lies. Each
// component enables and words its own keys.
func (m *Model) syncKeys() {
	k := &m.keys
	normal := !m.foot.asking() && !m.noting() && !m.tooSmall() && m.catchUp == nil
	s := m.stepAt(m.page)

	m.foot.syncKeys(k)
	m.syncCatchUpKeys(normal)
	m.pg.syncKeys(k, normal || (m.catchUp != nil && !m.tooSmall()))
	m.replay.syncKeys(k, normal)
	m.hints.syncKeys(k, s)
	k.Hint.SetEnabled(normal && s != nil)
	k.Quit.SetEnabled(true)
	m.syncMoveKeys(normal)

	k.Observed.SetEnabled(normal && s != nil)
	if m.observed {
		k.Observed.SetHelp(k.Observed.Help().Key, content.Msg("tui.short.observed_close"))
	} else {
		k.Observed.SetHelp(k.Observed.Help().Key, content.Msg("tui.short.observed"))
	}
	_, canEdit := m.editPlace()
	k.Edit.SetEnabled(normal && canEdit)
	k.Edit.SetHelp(k.Edit.Help().Key, content.Msg("tui.short.edit"))
	k.Compare.SetEnabled(normal && !m.showHelp && !m.ending && m.canCompare())
	if m.comparing {
		k.Compare.SetHelp(k.Compare.Help().Key, content.Msg("tui.short.compare_close"))
	} else {
		k.Compare.SetHelp(k.Compare.Help().Key, content.Msg("tui.short.compare"))
	}
	k.Ending.SetEnabled(normal && !m.showHelp && m.allPassed())
	if m.ending {
		k.Ending.SetHelp(k.Ending.Help().Key, content.Msg("tui.short.ending_close"))
	} else {
		k.Ending.SetHelp(k.Ending.Help().Key, content.Msg("tui.short.ending"))
	}
	k.Hand.SetEnabled(normal && m.opts.Hands != nil)
	if m.opts.Hands != nil && m.opts.Hands.Hand() != nil {
		k.Hand.SetHelp(k.Hand.Help().Key, content.Msg("tui.short.hand_lower"))
	} else {
		k.Hand.SetHelp(k.Hand.Help().Key, content.Msg("tui.short.hand"))
	}
	k.Copy.SetEnabled(normal && !m.showHelp && !m.comparing && !m.ending && m.copier.works(m.page))
	k.Copy.SetHelp(k.Copy.Help().Key, content.Msg("tui.short.copy"))
	k.Rescan.SetEnabled(normal && m.opts.Rescan != nil)
	k.Rescan.SetHelp(k.Rescan.Help().Key, content.Msg("tui.short.rescan"))
	k.MakeRoot.SetEnabled(normal && m.root.canMake())
	k.MakeRoot.SetHelp(k.MakeRoot.Help().Key, content.Msg("tui.short.make_root"))
	k.Help.SetEnabled(normal)
	if m.showHelp {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help_close"))
	} else {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help"))
	}
	k.Close.SetEnabled(normal && (m.showHelp || m.observed || m.comparing || m.ending || m.foot.hasNote()))
	k.Close.SetHelp(k.Close.Help().Key, content.Msg("tui.short.close"))
	k.Quit.SetHelp(k.Quit.Help().Key, content.Msg("tui.short.quit"))
}

// syncMoveKeys enables the keys that go to another page: next and prev
// within the lab, the digits, and enter while a note points somewhere.
func (m *Model) syncMoveKeys(normal bool) {
	k := &m.keys
	k.Next.SetEnabled(normal && (m.page < m.pages-1 || (!m.ending && m.allPassed())))
	k.Prev.SetEnabled(normal && m.page > 0)
	k.Jump.SetEnabled(normal)
	t := m.goTarget()
	k.Go.SetEnabled(normal && t != -1)
	switch {
	case t == endingTarget:
		k.Go.SetHelp(k.Go.Help().Key, content.Msg("tui.short.go_ending"))
	case t >= 0:
		if ts := m.stepAt(t); ts != nil {
			k.Go.SetHelp(k.Go.Help().Key, content.Msg("tui.short.go_step", "step", ts.Number))
		} else {
			k.Go.SetHelp(k.Go.Help().Key, content.Msg("tui.short.go_intro"))
		}
	}
	k.Next.SetHelp(k.Next.Help().Key, content.Msg("tui.short.next"))
	k.Prev.SetHelp(k.Prev.Help().Key, content.Msg("tui.short.prev"))
	k.Jump.SetHelp(k.Jump.Help().Key, content.Msg("tui.short.jump"))
}

// syncCatchUpKeys enables the catch-up key where it works and, while its
// view is open, the answers: yes while the plan asks, no (or esc) to
// leave it, unless it is being done.
func (m *Model) syncCatchUpKeys(normal bool) {
	k := &m.keys
	k.CatchUp.SetEnabled(normal && m.canCatchUp())
	k.CatchUp.SetHelp(k.CatchUp.Help().Key, content.Msg("tui.short.catch_up"))
	m.syncCatchUpQuestion()
	cu := m.catchUp
	if cu == nil {
		return
	}
	k.Yes.SetEnabled(cu.phase == catchUpAsking)
	k.Yes.SetHelp(k.Yes.Help().Key, content.Msg("tui.short.catch_up_yes"))
	k.No.SetEnabled(cu.phase != catchUpDoing)
	if cu.phase == catchUpEnded {
		k.No.SetHelp(k.No.Help().Key, content.Msg("tui.short.close"))
	} else {
		k.No.SetHelp(k.No.Help().Key, content.Msg("tui.short.catch_up_no"))
	}
}
