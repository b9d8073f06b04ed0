package tui

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/x/ansi"
)

// pager is the scrolling page: the viewport, the renderings it is made
// from (cached per document, width and theme, with the ones on their
// way), and the blocks of what it shows, so that the scroll position
// stays on the same paragraph across a resize (the anchor).
type pager struct {
	vp       viewport.Model
	cache    map[docKey][][]string
	inflight map[docKey]uint64

	lines       []string // the viewport's content
	blockStarts []int
	blockGaps   []bool
	anchor      *anchor // to restore once the rendering for this width is in
	kept        *keptAnchor
}

func newPager() pager {
	vp := viewport.New(0, 0)
	// The viewport's own keys (h/l/d/u, ...) would fight ours: scrolling
	// goes through our key map only.
	vp.KeyMap = viewport.KeyMap{}
	vp.MouseWheelEnabled = false
	return pager{vp: vp, cache: map[docKey][][]string{}, inflight: map[docKey]uint64{}}
}

// SetSize gives the page its width and the rows the layout left it.
func (p *pager) SetSize(w, h int) {
	p.vp.Width = w
	p.vp.Height = max(h, 1)
	p.vp.SetYOffset(p.vp.YOffset)
}

// fits reports whether the page's content fits h rows without scrolling.
func (p pager) fits(h int) bool { return p.vp.TotalLineCount() <= h }

// ShortHelp is the pager's key for the help line: scroll (worded by the
// key map), enabled only when the page scrolls.
func (p pager) ShortHelp(scroll key.Binding, scrolls bool) []key.Binding {
	scroll.SetEnabled(scrolls)
	return []key.Binding{scroll}
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
