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
// opened, from their progress and the passes of this run. A step catch-up
// brought to its reference is shown caught up, with no time of its own,
// and the totals count only what the learner passed themselves.

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
	took, caught := LearnerRun(m.opts.Started, m.passedAt, m.caughtUpAt)
	if m.lab.Finish != "" {
		blocks, exact = m.docBlocks(finishDoc)
	} else {
		text := content.Msg("tui.ending.no_page", "title", m.lab.Title)
		if n := CaughtIn(m.lab, caught); n > 0 {
			text = content.Msg("tui.ending.no_page_caught_up", "title", m.lab.Title, "caught", n)
		}
		blocks = []block{{lines: page.Wrap(text, m.width-1, " ", " ")}}
	}
	return append(blocks, m.canvas().runSummary(m.lab, took, caught, m.hints)...), exact
}

// LearnerRun tells the learner's passes from the catch-ups, for the
// ending (the TUI's and plain mode's): caught are the steps catch-up
// brought to the reference (a step the learner passed before its
// catch-up stays theirs, as the progress keeps it: a pass after it is
// the reference's), took the time of each step the learner passed, from
// the pass or catch-up before it.
func LearnerRun(started time.Time, passedAt, caughtUpAt map[int]time.Time) (took map[int]time.Duration, caught map[int]bool) {
	caught = map[int]bool{}
	events := map[int]time.Time{}
	for n, at := range passedAt {
		events[n] = at
	}
	for n, at := range caughtUpAt {
		if passed, ok := passedAt[n]; ok && passed.Before(at) {
			continue
		}
		caught[n], events[n] = true, at
	}
	took = state.StepTimes(started, events)
	for n := range caught {
		delete(took, n)
	}
	return took, caught
}

// CaughtIn counts the lab's steps that were caught up.
func CaughtIn(lab *content.Lab, caught map[int]bool) int {
	n := 0
	for _, s := range lab.Steps {
		if caught[s.Number] {
			n++
		}
	}
	return n
}

// runSummary is each step's time (or that it was caught up) and the
// hints and solution opened, then the totals.
func (c canvas) runSummary(lab *content.Lab, took map[int]time.Duration, caught map[int]bool, hints ladder) []block {
	out := []block{c.section(content.Msg("tui.ending.run_title"))}
	for _, s := range lab.Steps {
		line := fmt.Sprintf("%d. %s", s.Number, s.Title)
		lines := page.Wrap(page.Untab(line), c.width-1, " ", "    ")
		lines = append(lines, page.Wrap(RunLine(s, hints.at(s.Number), took, caught), c.width-1, "    ", "    ")...)
		out = append(out, block{lines: lines})
	}
	if totals := RunTotals(lab, took, caught); len(totals) > 0 {
		var lines []string
		for _, t := range totals {
			lines = append(lines, page.Wrap(t, c.width-1, " ", " ")...)
		}
		out = append(out, block{lines: lines, gap: true})
	}
	return out
}

// RunLine is what the ending says of step s (the TUI's and plain
// mode's): caught up, or the time the learner took (unknown when took
// lacks it), with the hints and the solution opened.
func RunLine(s content.Step, p HintProgress, took map[int]time.Duration, caught map[int]bool) string {
	used := content.Msg("tui.ending.hints", "seen", min(p.Seen, len(s.Hints)), "total", len(s.Hints))
	if p.Solution {
		used += " " + content.Msg("tui.ending.solution_seen")
	}
	if caught[s.Number] {
		return content.Msg("tui.ending.caught_up_line", "hints", used)
	}
	when := content.Msg("tui.ending.unknown_time")
	if d, ok := took[s.Number]; ok {
		when = content.Duration(d.Round(time.Second))
	}
	return content.Msg("tui.ending.step_line", "took", when, "hints", used)
}

// RunTotals are the ending's totals (the TUI's and plain mode's): with
// steps caught up, how many the learner passed themselves and the time
// of those whose time is known; else the time of all whose time is.
func RunTotals(lab *content.Lab, took map[int]time.Duration, caught map[int]bool) []string {
	var total time.Duration
	known := 0
	for _, s := range lab.Steps {
		if d, ok := took[s.Number]; ok && !caught[s.Number] {
			total, known = total+d, known+1
		}
	}
	var out []string
	if n := CaughtIn(lab, caught); n > 0 {
		out = append(out, content.Msg("tui.ending.tally", "steps", len(lab.Steps), "own", len(lab.Steps)-n, "caught", n))
		if known > 0 {
			out = append(out, content.Msg("tui.ending.total_own", "took", content.Duration(total.Round(time.Second)), "n", known))
		}
	} else if known > 0 {
		out = append(out, content.Msg("tui.ending.total", "took", content.Duration(total.Round(time.Second)), "n", known))
	}
	return out
}
