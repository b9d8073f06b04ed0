package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/labhub/labmate/page"
	"github.com/labhub/labmate/tui/theme"
)

// docKey names one rendering of one markdown document: rendered output
// depends on the width and the theme, nothing else.
type docKey struct {
	doc   doc
	width int
	theme string
}

// renderedMsg carries a finished rendering. gen is the layout generation
// it was asked for; a message from an older generation is dropped.
type renderedMsg struct {
	key    docKey
	gen    uint64
	blocks [][]string
	err    error
}

// renderings are the lab's markdown documents rendered for the pane (by
// package page): cached per document, width and theme, and the ones on
// their way with the layout generation that asked for them.
type renderings struct {
	cache    map[docKey][][]string
	inflight map[docKey]uint64
}

func newRenderings() renderings {
	return renderings{cache: map[docKey][][]string{}, inflight: map[docKey]uint64{}}
}

// has reports whether k is rendered.
func (r renderings) has(k docKey) bool {
	_, ok := r.cache[k]
	return ok
}

// ask returns the command that renders md for k in layout generation gen,
// or nil when k is rendered or already on its way for gen.
func (r renderings) ask(k docKey, gen uint64, md string, th theme.Theme) tea.Cmd {
	if r.has(k) {
		return nil
	}
	if g, ok := r.inflight[k]; ok && g == gen {
		return nil
	}
	r.inflight[k] = gen
	return renderCmd(k, gen, md, th.Look())
}

// adopt keeps a finished rendering.
func (r renderings) adopt(msg renderedMsg) {
	delete(r.inflight, msg.key)
	r.cache[msg.key] = msg.blocks
}

// trim forgets the renderings for other widths than width once the cache
// is full.
func (r renderings) trim(width int) {
	if len(r.cache) <= maxCache {
		return
	}
	for k := range r.cache {
		if k.width != width {
			delete(r.cache, k)
		}
	}
}

// blocks returns the rendering for k; while it is on its way, one of the
// same document and theme for another width stands in (exact false). ok
// is false when there is neither.
func (r renderings) blocks(k docKey) (bs [][]string, exact, ok bool) {
	if bs, ok := r.cache[k]; ok {
		return bs, true, true
	}
	for other, bs := range r.cache {
		if other.doc == k.doc && other.theme == k.theme {
			return bs, false, true
		}
	}
	return nil, false, false
}

// renderCmd renders markdown off the event loop (glamour is slow enough to
// feel on every key press).
func renderCmd(k docKey, gen uint64, md string, look page.Look) tea.Cmd {
	return func() tea.Msg {
		blocks, err := page.Render(md, k.width, look)
		return renderedMsg{key: k, gen: gen, blocks: blocks, err: err}
	}
}
