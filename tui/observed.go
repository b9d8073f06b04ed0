package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/page"
)

// observed is the "observed" view of step number step: what labmate
// actually parsed, ran and saw for it (r, nil before any report), next to
// what each check saw, and how it sees the cluster (rep).
func (c canvas) observed(step int, r *engine.StepResult, rep *engine.Report) []block {
	out := []block{
		c.section(content.Msg("tui.observed.title", "step", step)),
		{lines: styled(c.th.Muted, page.Wrap(content.Msg("tui.observed.lead"), c.width-1, " ", " "))},
	}
	if r == nil {
		return append(out, block{lines: page.Wrap(content.Msg("tui.checks.none_yet"), c.width-1, " ", " "), gap: true})
	}
	any := false
	for _, f := range r.Observed {
		any = true
		lines := []string{" " + c.th.Title.Render(shorten(page.Untab(f.Label), c.width-2))}
		for _, vl := range strings.Split(page.Untab(f.Value), "\n") {
			lines = append(lines, page.Wrap(vl, c.width-1, "   ", "   ")...)
		}
		out = append(out, block{lines: lines, gap: true})
	}
	var perCheck []block
	for _, ch := range r.Checks {
		if ch.Observed == "" {
			continue
		}
		word := statusWord(ch.Status)
		lines := []string{" " + c.th.Status(ch.Status).Render(word) + " " + shorten(page.Untab(ch.ID), max(c.width-ansi.StringWidth(word)-3, 1))}
		for _, vl := range strings.Split(page.Untab(ch.Observed), "\n") {
			lines = append(lines, page.Wrap(vl, c.width-1, "   ", "   ")...)
		}
		perCheck = append(perCheck, block{lines: lines})
	}
	if len(perCheck) > 0 {
		any = true
		out = append(out, c.section(content.Msg("tui.observed.checks")))
		out = append(out, perCheck...)
	}
	if !any {
		out = append(out, block{lines: page.Wrap(content.Msg("tui.observed.none"), c.width-1, " ", " "), gap: true})
	}
	if b, ok := c.cluster(rep); ok {
		out = append(out, b)
	}
	return out
}
