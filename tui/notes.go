package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/keys"
)

// applyReport adopts a new report: a toast for steps that just passed, an
// alert for steps that were green and turned red. Transitions count only
// from a report taken after every source had synced, so start-up does not
// flood the learner with toasts for work done earlier.
func (m *Model) applyReport(u labrun.Update) tea.Cmd {
	rep := u.Report
	m.report = &rep
	m.notePasses(u.FirstPassed, rep.Time)
	// Steps that are no longer red leave the alert first, so a pass
	// toast for them can offer enter.
	m.foot.keepAlert(m.red, m.alertText)
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
			m.foot.alertFor(regressed, m.alertText)
		}
		if len(passed) > 0 {
			cmd = m.passedToast(passed)
		}
	}
	if m.comparing && !m.canCompare() {
		m.comparing = false // the step is no longer passed
	}
	if m.ending && !m.allPassed() {
		m.ending = false
	}
	m.rebuild()
	if m.comparing {
		cmd = tea.Batch(cmd, m.compareCmd(m.stepAt(m.page).Number))
	}
	return cmd
}

// red reports whether step n failed or erred in the latest report.
func (m Model) red(n int) bool {
	r := m.report.Step(n)
	return r != nil && (r.Status == checks.Failed || r.Status == checks.Error)
}

// alertText words the alert that steps regressed, with the first failing
// check's message of the first of them.
func (m Model) alertText(steps []int) string {
	first := steps[0]
	reason := ""
	if r := m.report.Step(first); r != nil {
		for _, c := range r.Checks {
			if c.Status == checks.Failed || c.Status == checks.Error {
				reason = firstLine(page.Untab(c.Message))
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
		t := toast{text: content.Msg("tui.toast.all_passed"), target: -1, steps: passed}
		if !m.foot.alerting() {
			t.gone, t.target = t.text, endingTarget
			t.text += " " + content.Msg("tui.toast.all_passed_go", "key", keys.Display(m.keys.Go.Keys()[0]))
		}
		return m.foot.showToast(t)
	}
	last := passed[len(passed)-1]
	t := toast{text: content.Msg("tui.toast.passed", "steps", joinInts(passed)), target: -1, steps: passed}
	if p := m.pageOf(last); p >= 0 && p+1 < m.pages && !m.foot.alerting() {
		t.gone = t.text
		t.target = p + 1
		t.text += " " + content.Msg("tui.toast.passed_go", "key", keys.Display(m.keys.Go.Keys()[0]), "next", m.stepAt(p+1).Number)
	}
	return m.foot.showToast(t)
}

// goTarget is the page enter goes to: a regressed step, else the step a
// toast points at; never the page already on screen (-1: none).
func (m Model) goTarget() int { return m.foot.target(m.pageOf, m.leadsAway) }

// leadsAway reports whether going to page p changes what is on screen.
func (m Model) leadsAway(p int) bool {
	if p == endingTarget {
		return !m.ending
	}
	return p != m.page || m.showHelp || m.observed || m.comparing || m.ending
}

// endingTarget is the target of a note that leads to the ending.
const endingTarget = -2
