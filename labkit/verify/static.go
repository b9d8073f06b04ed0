package verify

import (
	"regexp"
	"strings"
	"sync"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/sandbox"
	"github.com/labhub/labmate/tui"
)

// staticRows are the lab-wide checks that need no run: the lab compiles
// (every authoring problem a failing row), and every page renders within
// the pane with no placeholder left.
func staticRows(kit *labkit.Lab, width int) []Row {
	var rows []Row
	for _, p := range kit.Problems {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: p.Error()})
	}
	// The sandbox topology is read only by sandbox up and the proof's
	// reset: a quantity or taint that cannot be read is an authoring
	// error too, found here rather than on a learner's machine.
	_, topoErr := sandbox.NodesOf(kit.Text)
	if topoErr != nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: topoErr.Error()})
	}
	if _, err := sandbox.ManifestsOf(kit.Text); err != nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: err.Error()})
	}
	if len(kit.Problems) == 0 && topoErr == nil {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: msg("verify.seen.compiles"), OK: true})
	}
	text := kit.Text
	pages := []struct {
		name string
		md   string
	}{{msg("verify.page.intro"), text.Intro}}
	for _, s := range text.Steps {
		pages = append(pages, struct {
			name string
			md   string
		}{msg("verify.page.step", "n", s.Number), s.Body}, struct {
			name string
			md   string
		}{msg("verify.page.solution", "n", s.Number), s.Solution})
		for i, h := range s.Hints {
			pages = append(pages, struct {
				name string
				md   string
			}{msg("verify.page.hint", "n", s.Number, "i", i+1), h})
		}
	}
	var bad []string
	for _, pg := range pages {
		md := content.Expand(pg.md, text.DefaultRoot)
		if m := leftoverPage().FindString(md); m != "" {
			bad = append(bad, msg("verify.seen.page_placeholder", "page", pg.name, "placeholder", m))
		}
		for _, prob := range tui.PageProblems(md, width) {
			bad = append(bad, msg("verify.seen.page_wide", "page", pg.name, "problem", prob))
		}
	}
	row := Row{Case: msg("verify.case.pages"), Expected: msg("verify.expect.pages", "width", width), Seen: msg("verify.seen.pages", "n", len(pages)), OK: len(bad) == 0}
	if len(bad) > 0 {
		row.Seen = strings.Join(bad, "; ")
	}
	return append(rows, row)
}

// leftoverPage is a page placeholder content.Expand did not fill.
var leftoverPage = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{[A-Za-z_]+\}\}`) })

// leftoverMsg is a message placeholder nothing filled.
var leftoverMsg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[a-z_]+\}`) })
