package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
)

// observedBlocks is the "observed" view: what labmate actually parsed,
// ran and saw for this step, next to what each check saw.
func (m Model) observedBlocks() []block {
	s := m.stepAt(m.page)
	out := []block{
		m.sectionBlock(content.Msg("tui.observed.title", "step", s.Number)),
		{lines: m.styled(m.th.Muted, wrap(content.Msg("tui.observed.lead"), m.width-1, " ", " "))},
	}
	r := m.result(s)
	if r == nil {
		return append(out, block{lines: wrap(content.Msg("tui.checks.none_yet"), m.width-1, " ", " "), gap: true})
	}
	any := false
	for _, f := range r.Observed {
		any = true
		lines := []string{" " + m.th.Title.Render(shorten(sanitize(f.Label), m.width-2))}
		for _, vl := range strings.Split(sanitize(f.Value), "\n") {
			lines = append(lines, wrap(vl, m.width-1, "   ", "   ")...)
		}
		out = append(out, block{lines: lines, gap: true})
	}
	var perCheck []block
	for _, c := range r.Checks {
		if c.Observed == "" {
			continue
		}
		word := m.statusWord(c.Status)
		lines := []string{" " + m.th.Status(c.Status).Render(word) + " " + shorten(sanitize(c.ID), max(m.width-ansi.StringWidth(word)-3, 1))}
		for _, vl := range strings.Split(sanitize(c.Observed), "\n") {
			lines = append(lines, wrap(vl, m.width-1, "   ", "   ")...)
		}
		perCheck = append(perCheck, block{lines: lines})
	}
	if len(perCheck) > 0 {
		any = true
		out = append(out, m.sectionBlock(content.Msg("tui.observed.checks")))
		out = append(out, perCheck...)
	}
	if !any {
		out = append(out, block{lines: wrap(content.Msg("tui.observed.none"), m.width-1, " ", " "), gap: true})
	}
	if b, ok := m.clusterBlock(); ok {
		out = append(out, b)
	}
	return out
}
