package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/compare"
	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/keys"
)

// block is a run of lines that belong together (a paragraph, a check).
// gap puts a blank line before it.
type block struct {
	lines []string
	gap   bool
}

// marks remembers where the parts of a step page start, by block index.
type marks struct {
	hints, solution int
}

// doc names one markdown document of the lab: the page's text, or a
// step's worked solution. A typed key, not a string parsed back.
type doc struct {
	page     int // 0: the introduction
	solution bool
}

// pageDoc is the text of page p; solutionDoc the solution of step page p.
func pageDoc(p int) doc     { return doc{page: p} }
func solutionDoc(p int) doc { return doc{page: p, solution: true} }

// docSource returns the markdown of a document, with {{ROOT}} filled in.
func (m Model) docSource(d doc) string {
	md := m.lab.Intro
	if d == finishDoc {
		md = m.lab.Finish
	}
	if s := m.stepAt(d.page); s != nil {
		md = s.Body
		if d.solution {
			md = s.Solution
		}
	}
	return content.Expand(md, m.opts.Root)
}

// neededDocs lists the documents page p shows.
func (m Model) neededDocs(p int) []doc {
	docs := []doc{pageDoc(p)}
	if m.ending && m.lab.Finish != "" {
		docs = append(docs, finishDoc)
	}
	if s := m.stepAt(p); s != nil && m.hints.at(s.Number).Solution {
		docs = append(docs, solutionDoc(p))
	}
	return docs
}

func (m Model) docKeyOf(d doc) docKey { return docKey{doc: d, width: m.width, theme: m.th.Name} }

// haveDocs reports whether every document of the current page is rendered
// for the current width.
func (m Model) haveDocs() bool {
	for _, d := range m.neededDocs(m.page) {
		if !m.docs.has(m.docKeyOf(d)) {
			return false
		}
	}
	return true
}

// requestDocs asks for the renderings the current page lacks.
func (m *Model) requestDocs() tea.Cmd {
	return m.request(m.neededDocs(m.page))
}

// prefetch renders the neighbouring pages once the current one is done,
// so paging is instant.
func (m *Model) prefetch() tea.Cmd {
	if !m.haveDocs() {
		return nil
	}
	var docs []doc
	for _, p := range []int{m.page + 1, m.page - 1} {
		if p >= 0 && p < m.pages {
			docs = append(docs, pageDoc(p))
		}
	}
	return m.request(docs)
}

func (m *Model) request(docs []doc) tea.Cmd {
	if m.width <= 0 || m.tooSmall() {
		return nil
	}
	var cmds []tea.Cmd
	for _, d := range docs {
		cmds = append(cmds, m.docs.ask(m.docKeyOf(d), m.gen, m.docSource(d), m.th))
	}
	m.docs.trim(m.width)
	return tea.Batch(cmds...)
}

// docBlocks returns a document's blocks for the current width; while that
// rendering is on its way, an older one cut to the width stands in.
func (m Model) docBlocks(d doc) ([]block, bool) {
	if bs, exact, ok := m.docs.blocks(m.docKeyOf(d)); ok {
		return asBlocks(bs), exact
	}
	return []block{{lines: []string{" " + m.th.Muted.Render(content.Msg("tui.loading"))}}}, false
}

func asBlocks(bs [][]string) []block {
	out := make([]block, len(bs))
	for i, b := range bs {
		out[i] = block{lines: b, gap: i > 0}
	}
	return out
}

// rebuild recomposes what the viewport shows from the model.
func (m *Model) rebuild() {
	if m.width <= 0 || m.tooSmall() {
		return
	}
	blocks, exact := m.compose()
	m.pg.show(blocks, exact, m.width, m.cuts, m.viewKey())
}

// rebuildTop recomposes and scrolls to the top (a different view opened).
func (m *Model) rebuildTop() {
	m.pg.anchor = nil
	m.rebuild()
	m.pg.vp.GotoTop()
}

// compose builds the blocks of the current view; exact is false while a
// stand-in rendering is shown.
func (m Model) compose() (blocks []block, exact bool) {
	switch {
	case m.catchUp != nil:
		return m.canvas().catchUpView(m.catchUp, keys.Display(m.keys.No.Keys()[len(m.keys.No.Keys())-1])), true
	case m.showHelp:
		return m.canvas().help(m), true
	case m.ending:
		return m.endingBlocks()
	case m.comparing && m.page > 0:
		var cmp *compare.Comparison
		if m.comparison != nil {
			cmp = &m.comparison.c
		}
		return m.canvas().compareView(m.stepAt(m.page).Number, cmp, m.explainEquivalent), true
	case m.observed && m.page > 0:
		s := m.stepAt(m.page)
		return m.canvas().observed(s.Number, m.result(s), m.report), true
	case m.page == 0:
		return m.introBlocks()
	default:
		b, _, ex := m.stepBlocks()
		return b, ex
	}
}

func (m Model) introBlocks() ([]block, bool) {
	blocks, exact := m.docBlocks(pageDoc(0))
	blocks = append(blocks, m.canvas().section(content.Msg("tui.intro.steps")))
	for i := range m.lab.Steps {
		s := &m.lab.Steps[i]
		st := m.status(s)
		word := statusWord(st)
		lines := page.Wrap(fmt.Sprintf("%d. %s  %s", s.Number, s.Title, word), m.width-1, " ", "    ")
		lines[0] = strings.Replace(lines[0], word, m.th.Status(st).Render(word), 1)
		blocks = append(blocks, block{lines: lines})
	}
	if b, ok := m.canvas().cluster(m.report); ok {
		blocks = append(blocks, b)
	}
	blocks = append(blocks, m.canvas().problems(m.report)...)
	blocks = append(blocks, m.rootBlocks()...)
	if len(m.opts.Notices) > 0 {
		blocks = append(blocks, m.canvas().section(content.Msg("tui.notices")))
		for _, n := range m.opts.Notices {
			blocks = append(blocks, block{lines: page.Wrap(page.Untab(n), m.width-1, " ! ", "   ")})
		}
	}
	return blocks, exact
}

// stepBlocks builds a step page: the text, the checks, then the hints
// and the solution as far as the learner has opened them.
func (m Model) stepBlocks() ([]block, marks, bool) {
	s := m.stepAt(m.page)
	mk := marks{hints: -1, solution: -1}
	blocks, exact := m.docBlocks(pageDoc(m.page))
	blocks = append(blocks, m.canvas().checkList(m.result(s))...)
	blocks = append(blocks, m.canvas().problems(m.report)...)

	p := m.hints.at(s.Number)
	if p.Seen > 0 || m.foot.asking() || p.Solution {
		blocks = append(blocks, m.canvas().section(content.Msg("tui.hints.title", "seen", min(p.Seen, len(s.Hints)), "total", len(s.Hints))))
		mk.hints = len(blocks)
		for i := 0; i < p.Seen && i < len(s.Hints); i++ {
			prefix := fmt.Sprintf(" %d. ", i+1)
			hint := content.Expand(s.Hints[i], m.opts.Root)
			blocks = append(blocks, block{lines: styled(m.th.Hint, page.Wrap(page.Untab(hint), m.width-1, prefix, strings.Repeat(" ", len(prefix))))})
		}
	}
	if p.Solution {
		blocks = append(blocks, m.canvas().section(content.Msg("tui.solution.title")))
		mk.solution = len(blocks)
		sol, ex := m.docBlocks(solutionDoc(m.page))
		exact = exact && ex
		if len(sol) > 0 {
			sol[0].gap = false
		}
		blocks = append(blocks, sol...)
	}
	return blocks, mk, exact
}

func (m Model) hintBlock(i int) int {
	_, mk, _ := m.stepBlocks()
	if mk.hints < 0 {
		return -1
	}
	return mk.hints + i
}

func (m Model) solutionBlock() int {
	_, mk, _ := m.stepBlocks()
	return mk.solution
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// stepCounts returns how many steps passed out of all.
func stepCounts(r *engine.Report) (passed, total int) {
	if r == nil {
		return 0, 0
	}
	return r.Passed(), len(r.Steps)
}
