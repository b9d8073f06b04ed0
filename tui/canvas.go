package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/theme"
)

// canvas is what the page's blocks are drawn with: the theme and the
// pane's width (gh-dash's shared program context). The views made from
// the report and the key map (checks, problems, the cluster line, the
// observed view in observed.go, the full help in helppage.go) are drawn
// on it and know nothing else of the model.
type canvas struct {
	th    theme.Theme
	width int
}

func (m Model) canvas() canvas { return canvas{m.th, m.width} }

// statusWord is a status as glyph plus Korean word: never colour alone.
func statusWord(st checks.Status) string {
	return st.Glyph() + " " + content.Msg("status."+string(st))
}

// section is a section heading.
func (c canvas) section(title string) block {
	return block{lines: []string{" " + c.th.Section.Render(shorten(title, c.width-2))}, gap: true}
}

// styled renders every line in st.
func styled(st interface{ Render(...string) string }, lines []string) []string {
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// cluster says how labmate sees the cluster (off, connecting,
// synced, unreachable), when a report said.
func (c canvas) cluster(rep *engine.Report) (block, bool) {
	if rep == nil || rep.Cluster.State == "" {
		return block{}, false
	}
	cl := rep.Cluster
	line := content.Msg("tui.cluster."+string(cl.State), "server", page.Untab(cl.Server), "version", page.Untab(cl.Version))
	if why := checks.ClusterErr(content.Msg, cl); why != "" {
		line += " " + page.Untab(why)
	}
	return block{lines: page.Wrap(line, c.width-1, " ", " "), gap: true}, true
}

// problems lists what is wrong with labmate itself (a source that
// failed); the rest keeps working.
func (c canvas) problems(rep *engine.Report) []block {
	if rep == nil || len(rep.Problems) == 0 {
		return nil
	}
	out := []block{c.section(content.Msg("tui.problems"))}
	for _, p := range rep.Problems {
		out = append(out, block{lines: page.Wrap(page.Untab(p), c.width-1, " ! ", "   ")})
	}
	return out
}

// checkList lists a step's checks (r: nil before any report): glyph and
// word first, then the message and, for a check that did not pass, what
// was expected, what was observed and where.
func (c canvas) checkList(r *engine.StepResult) []block {
	if r == nil {
		return []block{c.section(content.Msg("tui.checks.title")),
			{lines: page.Wrap(content.Msg("tui.checks.none_yet"), c.width-1, " ", " ")}}
	}
	out := []block{c.section(content.Msg("tui.checks.title_count", "passed", r.PassedChecks(), "total", len(r.Checks)))}
	for _, ch := range r.Checks {
		word := statusWord(ch.Status)
		lines := page.Wrap(word+"  "+page.Untab(ch.Message), c.width-1, " ", "   ")
		lines[0] = strings.Replace(lines[0], word, c.th.Status(ch.Status).Render(word), 1)
		if ch.Status != checks.Passed {
			lines = append(lines, c.evidence(ch)...)
		}
		out = append(out, block{lines: lines})
	}
	return out
}

// evidence is what a check that did not pass expected, observed and
// where, each labelled, its lines indented under the label.
func (c canvas) evidence(ch checks.Result) []string {
	var lines []string
	for _, f := range []struct{ key, val string }{
		{"tui.checks.expected", ch.Expected},
		{"tui.checks.observed", ch.Observed},
		{"tui.checks.where", ch.Where},
	} {
		v := page.Untab(f.val)
		if v == "" {
			continue
		}
		label := content.Msg(f.key) + " "
		pad := strings.Repeat(" ", 3+ansi.StringWidth(label))
		for i, vl := range strings.Split(v, "\n") {
			first := "   " + label
			if i > 0 {
				first = pad
			}
			lines = append(lines, page.Wrap(vl, c.width-1, first, pad)...)
		}
	}
	return lines
}
