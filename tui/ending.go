package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/state"
)

// The ending: once every step passed, the lab's closing page (its
// optional finish page: what was built, what to take home) and the
// learner's own run of it, each step's time and the hints and solutions
// opened, from their progress and the passes of this run.

// finishDoc is the lab's closing page.
var finishDoc = doc{page: -1}

// allPassed reports whether the newest report has every step passed.
func (m Model) allPassed() bool { return m.report != nil && m.report.AllPassed() }

// openEnding shows the ending (every step passed).
func (m *Model) openEnding() tea.Cmd {
	if !m.allPassed() {
		return nil
	}
	m.ending, m.observed, m.showHelp, m.comparing = true, false, false, false
	m.rebuildTop()
	return m.requestDocs()
}

// notePasses keeps when steps first passed in this run: the report's
// time, as the run records them in the progress.
func (m *Model) notePasses(first []int, at time.Time) {
	for _, n := range first {
		if _, ok := m.passedAt[n]; !ok {
			m.passedAt[n] = at
		}
	}
}

// endingBlocks are the ending's blocks: the closing page, then the
// learner's run.
func (m Model) endingBlocks() ([]block, bool) {
	var blocks []block
	exact := true
	if m.lab.Finish != "" {
		blocks, exact = m.docBlocks(finishDoc)
	} else {
		blocks = []block{{lines: page.Wrap(content.Msg("tui.ending.no_page", "title", m.lab.Title), m.width-1, " ", " ")}}
	}
	return append(blocks, m.canvas().runSummary(m.lab, state.StepTimes(m.opts.Started, m.passedAt), m.hints)...), exact
}

// runSummary is each step's time and the hints and solution opened.
func (c canvas) runSummary(lab *content.Lab, took map[int]time.Duration, hints ladder) []block {
	out := []block{c.section(content.Msg("tui.ending.run_title"))}
	var total time.Duration
	known := 0
	for _, s := range lab.Steps {
		d, ok := took[s.Number]
		when := content.Msg("tui.ending.unknown_time")
		if ok {
			when, total, known = content.Duration(d.Round(time.Second)), total+d, known+1
		}
		p := hints.at(s.Number)
		used := content.Msg("tui.ending.hints", "seen", min(p.Seen, len(s.Hints)), "total", len(s.Hints))
		if p.Solution {
			used += " " + content.Msg("tui.ending.solution_seen")
		}
		line := fmt.Sprintf("%d. %s", s.Number, s.Title)
		lines := page.Wrap(page.Untab(line), c.width-1, " ", "    ")
		lines = append(lines, page.Wrap(content.Msg("tui.ending.step_line", "took", when, "hints", used), c.width-1, "    ", "    ")...)
		out = append(out, block{lines: lines})
	}
	if known > 0 {
		out = append(out, block{lines: page.Wrap(content.Msg("tui.ending.total", "took", content.Duration(total.Round(time.Second)), "n", known), c.width-1, " ", " "), gap: true})
	}
	return out
}
