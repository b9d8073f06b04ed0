package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/tui/component"
	"github.com/labhub/labmate/tui/keys"
)

// pager is the scrolling page: the viewport and the blocks of what it
// shows, so that the scroll position stays on the same paragraph across
// a resize (the anchor). It scrolls with the viewport's own key handling,
// bound to labmate's scroll keys, and remembers how far each page was
// scrolled. It is a component.
type pager struct {
	vp viewport.Model

	lines       []string // the viewport's content
	blockStarts []int
	blockGaps   []bool
	anchor      *anchor // to restore once the rendering for this width is in
	kept        *keptAnchor
	offsets     map[int]int // by page: where it was scrolled to when left
	scrolls     bool        // the content is taller than the viewport (set by layout)

	top, bottom key.Binding // the viewport has no keys for these
}

var _ component.Component = (*pager)(nil)

func newPager() pager {
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = false
	return pager{vp: vp, offsets: map[int]int{}}
}

// syncKeys enables the scroll keys or not and binds the viewport's key
// map to them: labmate's key map (rebindable from the config file) stays
// the one source of keys, the viewport's defaults never apply.
func (p *pager) syncKeys(k *keys.KeyMap, on bool) {
	for _, b := range []*key.Binding{&k.Down, &k.Up, &k.PageDown, &k.PageUp, &k.HalfDown, &k.HalfUp, &k.Top, &k.Bottom} {
		b.SetEnabled(on)
	}
	p.vp.KeyMap = viewport.KeyMap{
		Down: k.Down, Up: k.Up,
		PageDown: k.PageDown, PageUp: k.PageUp,
		HalfPageDown: k.HalfDown, HalfPageUp: k.HalfUp,
	}
	p.top, p.bottom = k.Top, k.Bottom
}

// Init starts nothing.
func (p pager) Init() tea.Cmd { return nil }

// Update scrolls for a scroll key; other messages do nothing.
func (p *pager) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
	case key.Matches(k, p.top):
		p.vp.GotoTop()
	case key.Matches(k, p.bottom):
		p.vp.GotoBottom()
	default:
		p.vp, _ = p.vp.Update(k)
	}
	return p, nil
}

// View is the rows of the page on screen.
func (p pager) View() string { return p.vp.View() }

// SetSize gives the page its width and the rows the layout left it.
func (p *pager) SetSize(w, h int) {
	p.vp.Width = w
	p.vp.Height = max(h, 1)
	p.vp.SetYOffset(p.vp.YOffset)
}

// fits reports whether the page's content fits h rows without scrolling.
func (p pager) fits(h int) bool { return p.vp.TotalLineCount() <= h }

// ShortHelp is the pager's key for the help line: scroll, named by its
// down and up keys (the down binding stands for both), shown only when
// the page scrolls and keys scroll it.
func (p pager) ShortHelp() []key.Binding {
	down, up := p.vp.KeyMap.Down, p.vp.KeyMap.Up
	if len(down.Keys()) == 0 || len(up.Keys()) == 0 {
		return nil
	}
	scroll := down
	scroll.SetHelp(keys.Display(down.Keys()[0])+"/"+keys.Display(up.Keys()[0]), content.Msg("tui.short.scroll"))
	scroll.SetEnabled(p.scrolls && down.Enabled())
	return []key.Binding{scroll}
}

// FullHelp is every scroll key.
func (p pager) FullHelp() [][]key.Binding {
	k := p.vp.KeyMap
	return [][]key.Binding{{k.Down, k.Up, k.PageDown, k.PageUp, k.HalfPageDown, k.HalfPageUp, p.top, p.bottom}}
}

// leave remembers how far page was scrolled; arrive scrolls page back
// there.
func (p *pager) leave(page int)  { p.offsets[page] = p.vp.YOffset }
func (p *pager) arrive(page int) { p.vp.SetYOffset(p.offsets[page]) }

// holdPlace keeps the paragraph on top for a resize: the anchor last
// restored while the learner has not scrolled away from it, else the one
// at the offset now.
func (p *pager) holdPlace(view viewKey) {
	if p.anchor != nil || len(p.blockStarts) == 0 {
		return
	}
	if k := p.kept; k != nil && k.y == p.vp.YOffset && k.view == view {
		a := k.a
		p.anchor = &a
		return
	}
	p.anchor = p.anchorAt(p.vp.YOffset)
}

// show lays blocks out, keeping the scroll position; once the rendering
// is exact (for this width), a held anchor is restored and kept for view.
func (p *pager) show(blocks []block, exact bool, width int, cuts *cutLog, view viewKey) {
	y := p.vp.YOffset
	p.setBlocks(blocks, exact, width, cuts)
	p.vp.SetYOffset(y)
	if p.anchor != nil && exact {
		a := *p.anchor
		p.vp.SetYOffset(p.anchorOffset(a))
		p.anchor = nil
		p.kept = &keptAnchor{a: a, y: p.vp.YOffset, view: view}
	}
}

// setBlocks lays blocks out in the viewport. Lines wider than the pane
// are cut: on purpose for a stand-in rendering for another width, a bug
// (noted in cuts for the tests) for anything else.
func (p *pager) setBlocks(blocks []block, exact bool, width int, cuts *cutLog) {
	var lines []string
	p.blockStarts = nil
	p.blockGaps = nil
	for i, b := range blocks {
		gap := b.gap && i > 0
		if gap {
			lines = append(lines, "")
		}
		p.blockStarts = append(p.blockStarts, len(lines))
		p.blockGaps = append(p.blockGaps, gap)
		for _, l := range b.lines {
			if ansi.StringWidth(l) > width {
				short := ansi.Truncate(l, width, "")
				if exact {
					cuts.note("body", l, short)
				}
				l = short
			}
			lines = append(lines, l)
		}
	}
	p.lines = lines
	p.vp.SetContent(strings.Join(lines, "\n"))
}

// anchor is a scroll position that survives re-wrapping: a block, and
// how far into it the top line starts, counted in visible characters
// (blanks left out), which wrapping at another width does not change.
type anchor struct {
	block int
	chars int
	gap   bool // the blank line above the block is on top
}

// keptAnchor is the anchor last restored, the offset it gave and the view
// it was for. While the learner has not scrolled away from that offset,
// the next resize restores the same anchor rather than one measured from
// the new wrapping, so going back and forth between widths never creeps.
type keptAnchor struct {
	a    anchor
	y    int
	view viewKey
}

// anchorAt is the anchor of line y of the viewport content.
func (p pager) anchorAt(y int) *anchor {
	for i := len(p.blockStarts) - 1; i >= 0; i-- {
		start := p.blockStarts[i]
		if start > y {
			continue
		}
		if i+1 < len(p.blockStarts) && p.blockGaps[i+1] && y == p.blockStarts[i+1]-1 {
			return &anchor{block: i + 1, gap: true}
		}
		a := &anchor{block: i}
		for _, l := range p.lines[start:min(y, len(p.lines))] {
			a.chars += visibleChars(l)
		}
		return a
	}
	return &anchor{}
}

// anchorOffset is the line where an anchor is now: the line of its block
// that holds the character the top line started with.
func (p pager) anchorOffset(a anchor) int {
	if len(p.blockStarts) == 0 {
		return 0
	}
	b := min(a.block, len(p.blockStarts)-1)
	start := p.blockStarts[b]
	if a.gap && p.blockGaps[b] {
		return start - 1
	}
	end := len(p.lines)
	if b+1 < len(p.blockStarts) {
		end = p.blockStarts[b+1]
		if p.blockGaps[b+1] {
			end--
		}
	}
	seen := 0
	for y := start; y < end; y++ {
		seen += visibleChars(p.lines[y])
		if seen > a.chars {
			return y
		}
	}
	return max(end-1, start)
}

// visibleChars counts the characters of a line a reader sees, blanks and
// escape sequences left out: a count that wrapping does not change.
func visibleChars(l string) int {
	n := 0
	for _, r := range ansi.Strip(l) {
		if r != ' ' {
			n++
		}
	}
	return n
}

func (p *pager) scrollToBlock(b int) {
	if b >= 0 && b < len(p.blockStarts) {
		p.vp.SetYOffset(p.blockStarts[b])
	}
}
