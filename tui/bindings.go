package tui

import (
	"github.com/labhub/labmate/content"
)

// shortBindings are the help line's keys in order of use; disabled ones
// are left out.
func (m Model) shortBindings() []shortKey {
	k := m.keys
	var all []shortKey
	for _, b := range m.foot.ShortHelp() {
		all = append(all, shortKey{b, 0})
	}
	all = append(all, []shortKey{
		{k.Go, 0},
		{k.Pause, 0}, {k.Speed, 0}, {k.NextChange, 0},
		{k.Next, 1}, {k.Prev, 6}, {k.Hint, 2}, {k.Observed, 5}, {k.Copy, 7}, {k.Rescan, 3},
		{k.Jump, 9},
	}...)
	for _, b := range m.pg.ShortHelp() {
		all = append(all, shortKey{b, 8})
	}
	all = append(all, []shortKey{{k.Help, 0}, {k.Close, 4}, {k.Quit, 0}}...)
	out := all[:0]
	for _, s := range all {
		if s.b.Enabled() {
			out = append(out, s)
		}
	}
	return out
}

// syncKeys enables exactly the keys that do something now, with help text
// for this moment (gum's habit), so the help line never lies. Each
// component enables and words its own keys.
func (m *Model) syncKeys() {
	k := &m.keys
	normal := !m.foot.asking() && !m.tooSmall()
	s := m.stepAt(m.page)

	m.foot.syncKeys(k)
	m.pg.syncKeys(k, normal)
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
	k.Copy.SetEnabled(normal && !m.showHelp && m.copier.works(m.page))
	k.Copy.SetHelp(k.Copy.Help().Key, content.Msg("tui.short.copy"))
	k.Rescan.SetEnabled(normal && m.opts.Rescan != nil)
	k.Rescan.SetHelp(k.Rescan.Help().Key, content.Msg("tui.short.rescan"))
	k.Help.SetEnabled(normal)
	if m.showHelp {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help_close"))
	} else {
		k.Help.SetHelp(k.Help.Help().Key, content.Msg("tui.short.help"))
	}
	k.Close.SetEnabled(normal && (m.showHelp || m.observed || m.foot.hasNote()))
	k.Close.SetHelp(k.Close.Help().Key, content.Msg("tui.short.close"))
	k.Quit.SetHelp(k.Quit.Help().Key, content.Msg("tui.short.quit"))
}

// syncMoveKeys enables the keys that go to another page: next and prev
// within the lab, the digits, and enter while a note points somewhere.
func (m *Model) syncMoveKeys(normal bool) {
	k := &m.keys
	k.Next.SetEnabled(normal && m.page < m.pages-1)
	k.Prev.SetEnabled(normal && m.page > 0)
	k.Jump.SetEnabled(normal)
	t := m.goTarget()
	k.Go.SetEnabled(normal && t >= 0)
	if t >= 0 {
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
