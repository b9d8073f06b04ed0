package verify

import (
	"regexp"
	"strings"
	"sync"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labroot"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/sandbox"
)

// staticRows are the lab-wide checks that need no run: the lab and its
// verify.toml compile (every authoring problem a failing row, the first
// row then failing), every message of the lab is well formed, and every
// page renders within the pane with no placeholder left.
func staticRows(kit *labkit.Lab, width int) []Row {
	var problems []string
	for _, p := range kit.Problems {
		problems = append(problems, p.Error())
	}
	// The sandbox topology is read only by sandbox up and the proof's
	// reset: a quantity or taint that cannot be read is an authoring
	// error too, found here rather than on a learner's machine.
	if _, err := sandbox.NodesOf(kit.Text); err != nil {
		problems = append(problems, err.Error())
	}
	if _, err := sandbox.ManifestsOf(kit.Text); err != nil {
		problems = append(problems, err.Error())
	}
	for _, p := range verifyProblems(kit.Text) {
		problems = append(problems, p.Error())
	}
	var rows []Row
	for _, p := range problems {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: p})
	}
	if len(problems) == 0 {
		rows = append(rows, Row{Case: msg("verify.case.compile"), Expected: msg("verify.expect.compiles"), Seen: msg("verify.seen.compiles"), OK: true})
	}
	rows = append(rows, messageRow(kit))
	text := kit.Text
	pages := []struct {
		name string
		md   string
	}{{msg("verify.page.intro"), text.Intro}}
	if text.FinishFile != "" {
		pages = append(pages, struct {
			name string
			md   string
		}{msg("verify.page.finish"), text.Finish})
	}
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
		md := content.Expand(pg.md, labroot.AtLabHub(text.DefaultRoot))
		if m := leftoverPage().FindString(md); m != "" {
			bad = append(bad, msg("verify.seen.page_placeholder", "page", pg.name, "placeholder", m))
		}
		for _, prob := range page.Problems(md, width) {
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
