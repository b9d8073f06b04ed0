package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit/compare"
	"github.com/labhub/labmate/page"
)

// The compare view: once a step passed, the learner's files beside the
// lab's reference for that step (labkit/compare), with the lab's word on
// the differences it declares equivalent. It is not offered before the
// step passes, and the worked solution stays on the hint ladder.

// comparedMsg carries a comparison read from the files.
type comparedMsg struct {
	c compare.Comparison
}

// compareFiles are the files step page p's reference writes (none on
// the introduction).
func (m Model) compareFiles(p int) []string {
	s := m.stepAt(p)
	if s == nil {
		return nil
	}
	return compare.Files(m.lab, s.Number)
}

// canCompare reports whether the compare key works on this page: a step
// that passed, with reference files.
func (m Model) canCompare() bool {
	s := m.stepAt(m.page)
	return s != nil && m.status(s) == checks.Passed && len(m.compareFiles(m.page)) > 0
}

// explainEquivalent words a declared equivalent for the learner: the
// lab's message under its explain key, else verify.toml's reason (the
// labs write it in Korean, with its source), else a shared sentence.
func (m Model) explainEquivalent(e compare.Explained) string { return Explain(m.lab, e) }

// Explain is how a declared equivalent is worded for a learner (the
// TUI's compare view and plain mode's).
func Explain(lab *content.Lab, e compare.Explained) string {
	switch {
	case e.Explain != "":
		return lab.Msg(e.Explain)
	case strings.TrimSpace(e.Reason) != "":
		return e.Reason
	}
	return content.Msg("tui.compare.declared")
}

// compareCmd reads step n's files and the reference, off the event loop.
func (m Model) compareCmd(n int) tea.Cmd {
	lab, root := m.lab, m.opts.Root
	return func() tea.Msg { return comparedMsg{compare.Of(lab, n, root)} }
}

// toggleCompare opens or closes the compare view, reading the files
// afresh on opening.
func (m *Model) toggleCompare() tea.Cmd {
	if m.comparing {
		m.comparing = false
		m.rebuildTop()
		return nil
	}
	if !m.canCompare() {
		return nil
	}
	m.comparing, m.observed, m.showHelp, m.ending = true, false, false, false
	m.rebuildTop()
	return m.compareCmd(m.stepAt(m.page).Number)
}

// compareView is the view for step n: the comparison once it is read.
func (c canvas) compareView(n int, cmp *compare.Comparison, explain func(compare.Explained) string) []block {
	out := []block{
		c.section(content.Msg("tui.compare.title", "step", n)),
		{lines: styled(c.th.Muted, page.Wrap(content.Msg("tui.compare.lead"), c.width-1, " ", " "))},
	}
	if cmp == nil || cmp.Step != n {
		return append(out, block{lines: []string{" " + c.th.Muted.Render(content.Msg("tui.loading"))}, gap: true})
	}
	for _, f := range cmp.Files {
		out = append(out, c.compareFile(f)...)
	}
	if cmp.Script {
		out = append(out, block{lines: page.Wrap(content.Msg("tui.compare.script"), c.width-1, " ", " "), gap: true})
	}
	if len(cmp.Explained) > 0 {
		out = append(out, c.section(content.Msg("tui.compare.equivalent")))
		for _, e := range cmp.Explained {
			lines := []string{" " + c.th.Title.Render(shorten(page.Untab(e.File+" "+e.Field), c.width-2))}
			lines = append(lines, page.Wrap(page.Untab(explain(e)), c.width-1, "   ", "   ")...)
			out = append(out, block{lines: lines, gap: true})
		}
	}
	return out
}

// compareFile is one file: its name, how it stands, and its hunks.
func (c canvas) compareFile(f compare.File) []block {
	head := block{lines: []string{" " + c.th.Title.Render(shorten(page.Untab(f.Path), c.width-2))}, gap: true}
	say := func(key string, kv ...any) []block {
		head.lines = append(head.lines, page.Wrap(content.Msg(key, kv...), c.width-1, "   ", "   ")...)
		return []block{head}
	}
	switch {
	case f.Unread != "":
		return say("tui.compare.unread", "why", page.Untab(f.Unread))
	case f.Missing:
		return say("tui.compare.missing")
	case f.Same:
		return say("tui.compare.same")
	}
	legend := "tui.compare.legend"
	if f.SameMeaning {
		legend = "tui.compare.same_meaning" // the legend, said after it
	}
	out := say(legend)
	for _, h := range f.Hunks {
		lines := []string{" " + c.th.Muted.Render(content.Msg("tui.compare.hunk", "ref", h.RefLine, "mine", h.LearnerLine))}
		for _, l := range h.Lines {
			lines = append(lines, c.diffLine(l)...)
		}
		out = append(out, block{lines: lines})
	}
	return out
}

// diffLine is one line of a diff at the pane's width: "-" for the
// reference's, "+" for the learner's, each in its colour too; a line too
// long for the pane goes on under its text, never cut.
func (c canvas) diffLine(l compare.Line) []string {
	mark, st := " ", c.th.Muted
	switch l.Kind {
	case compare.Reference:
		mark, st = "-", c.th.Status(checks.Failed)
	case compare.Learner:
		mark, st = "+", c.th.Status(checks.Passed)
	}
	text := page.Untab(l.Text)
	room := max(c.width-4, 8)
	var out []string
	for i, part := range strings.Split(ansi.Hardwrap(text, room, false), "\n") {
		prefix := " " + mark + " "
		if i > 0 {
			prefix = "   "
		}
		line := prefix + part
		if l.Kind != compare.Both {
			line = st.Render(line)
		}
		out = append(out, line)
	}
	return out
}
