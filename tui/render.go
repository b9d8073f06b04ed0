package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/content"
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

// renderings are the lab's markdown documents rendered for the pane:
// cached per document, width and theme, and the ones on their way with
// the layout generation that asked for them.
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
	return renderCmd(k, gen, md, th)
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
func renderCmd(k docKey, gen uint64, md string, th theme.Theme) tea.Cmd {
	return func() tea.Msg {
		blocks, err := renderMarkdown(md, k.width, th)
		return renderedMsg{key: k, gen: gen, blocks: blocks, err: err}
	}
}

// renderMarkdown renders md for a pane width columns wide and splits the
// result into blocks (paragraphs, lists, code, ...) at blank lines. Every
// line of the result fits width; on any failure the source is shown
// wrapped instead, never nothing.
func renderMarkdown(md string, width int, th theme.Theme) (blocks [][]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("glamour: %v", r)
			blocks = plainBlocks(md, width)
		}
	}()
	out, err := glamourText(md, width, th)
	if err != nil {
		return plainBlocks(md, width), err
	}
	return splitBlocks(strings.Split(out, "\n"), width, th.NoColor()), nil
}

// glamourText is glamour's rendering of md for width columns, as is.
func glamourText(md string, width int, th theme.Theme) (string, error) {
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(th.Glamour()),
		glamour.WithColorProfile(th.Profile),
		glamour.WithWordWrap(width),
	)
	if err != nil {
		return "", err
	}
	out, err := r.Render(md)
	if err != nil {
		return "", err
	}
	if th.NoColor() {
		// glamour still emits bold and reset codes with the ASCII profile.
		out = ansi.Strip(out)
	}
	return out, nil
}

// splitBlocks groups lines into blocks separated by blank lines and
// clamps each line to width. Blank lines never come from wrapping, so the
// number of blocks does not depend on the width: that is what keeps the
// scroll position on the same paragraph across a resize.
func splitBlocks(lines []string, width int, plain bool) [][]string {
	var blocks [][]string
	var cur []string
	for _, l := range lines {
		if isBlank(l) {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, clampLine(trimRight(l, plain), width)...)
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

// trimRight drops a line's trailing blanks. glamour pads every line to
// the full width with spaces styled one by one; keeping them would make
// each frame several times larger (and the idle renderer compares whole
// frames many times a second).
func trimRight(l string, plain bool) string {
	if plain {
		return strings.TrimRight(l, " ")
	}
	visible := strings.TrimRight(ansi.Strip(l), " ")
	if len(visible) == len(ansi.Strip(l)) {
		return l
	}
	return ansi.Truncate(l, ansi.StringWidth(visible), "") + "\x1b[0m"
}

func isBlank(l string) bool {
	return strings.TrimSpace(ansi.Strip(l)) == ""
}

// clampLine makes one rendered line fit width columns, with a spare cell
// for each East-Asian-ambiguous character (see fit). What glamour let
// overflow (its hyphen breaks go past the edge, so do code spans and long
// paths) is word-wrapped again, the continuation indented like the line,
// so no fragment lands at column 0 on its own.
func clampLine(l string, width int) []string {
	if width <= 0 || ansi.StringWidth(l)+ambiguousRunes(l) <= width {
		return []string{l}
	}
	vis := ansi.Strip(l)
	indent := min(len(vis)-len(strings.TrimLeft(vis, " ")), width/2)
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, w := range wordWrap(ansi.TruncateLeft(l, indent, ""), width-indent) {
		// Wrap leaves the blanks it broke at, which can make a line of
		// their own.
		if !isBlank(w) {
			out = append(out, pad+w)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// wordWrap wraps s at blanks (long words are split) so that every line,
// with a spare cell per East-Asian-ambiguous character, fits limit. Wide
// characters are never split; width is measured per grapheme, as the
// renderer measures it. ansi.Wrap alone lets a hyphen it breaks after
// pass the limit, and knows no spare cells: lines still too wide are
// wrapped again, narrower (rarely more than once).
func wordWrap(s string, limit int) []string {
	avail := max(limit, 1)
	for {
		lines := strings.Split(ansi.Wrap(s, avail, ""), "\n")
		over := 0
		for _, l := range lines {
			over = max(over, ansi.StringWidth(l)+ambiguousRunes(l)-limit)
		}
		if over <= 0 || avail == 1 {
			return lines
		}
		avail = max(avail-over, 1)
	}
}

// plainBlocks is the fallback when glamour fails: the source, wrapped.
func plainBlocks(md string, width int) [][]string {
	var lines []string
	for _, l := range strings.Split(untab(md), "\n") {
		lines = append(lines, wrap(l, width-1, " ", " ")...)
	}
	return splitBlocks(lines, width, true)
}

// wrap word-wraps s to width columns; the first line starts with first,
// later lines with rest (a hanging indent). Every line is sized for the
// wider of the two prefixes and keeps its spare cells (see wordWrap), so
// no line is wider than width and nothing of s is cut later.
func wrap(s string, width int, first, rest string) []string {
	pw := max(ansi.StringWidth(first), ansi.StringWidth(rest))
	lines := wordWrap(s, max(width-pw, 8))
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// untab lays text out for the pane: tabs as four spaces (width
// arithmetic counts a tab as nothing) and zero-width characters dropped
// (they make widths lie). It assumes text already past one of the doors
// of outside.go: it shows no control character, it only spaces them.
func untab(s string) string {
	if !strings.ContainsAny(s, "\t\u200b\ufeff") {
		return s
	}
	return untabber.Replace(s)
}

var untabber = strings.NewReplacer("\t", "    ", "\u200b", "", "\ufeff", "")

// PageProblems renders a page of markdown for a pane width columns wide
// exactly as the TUI does and says what an author must fix: glamour
// failing on it (the TUI then shows the source, wrapped), or a line wider
// than the pane. `labmate lab verify` runs it on every page of a lab.
func PageProblems(md string, width int) []string {
	narrowAmbiguous()
	th := theme.New(theme.Dark, termenv.Ascii)
	var probs []string
	blocks, err := renderMarkdown(md, width, th)
	if err != nil {
		probs = append(probs, err.Error())
	}
	for _, b := range blocks {
		for _, l := range b {
			if w := ansi.StringWidth(l) + ambiguousRunes(l); w > width {
				probs = append(probs, content.Msg("tui.page_too_wide", "w", w, "width", width, "line", strings.TrimSpace(ansi.Strip(l))))
			}
		}
	}
	return probs
}
