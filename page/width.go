package page

import (
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// NarrowAmbiguous counts East-Asian-ambiguous characters as one cell,
// whatever the locale says (LANG=ko_KR.UTF-8 turns it on): glamour
// measures with go-runewidth, bubbletea and x/ansi with uniseg, and the
// two must agree. It is done once, before the first rendering (Render and
// the TUI's start call it), not at package init.
func NarrowAmbiguous() { narrowOnce() }

var narrowOnce = sync.OnceFunc(func() { runewidth.DefaultCondition.EastAsianWidth = false })

// AmbiguousRunes counts the East-Asian-ambiguous runes of s's visible
// text: each may take two cells in a terminal set to draw them wide.
func AmbiguousRunes(s string) int {
	n := 0
	for _, r := range ansi.Strip(s) {
		if r >= 0x80 && runewidth.IsAmbiguousWidth(r) {
			n++
		}
	}
	return n
}

// Cells is how many cells s may take on the screen: its width, plus a
// spare cell for each East-Asian-ambiguous rune (an em dash in a title),
// so that a line that fits by this measure fits in every terminal.
func Cells(s string) int { return ansi.StringWidth(s) + AmbiguousRunes(s) }

// Untab lays text out for the pane: tabs as four spaces (width
// arithmetic counts a tab as nothing) and zero-width characters dropped
// (they make widths lie). It assumes text that passed the sanitizer
// (termtext): it shows no control character, it only spaces them.
func Untab(s string) string {
	if !strings.ContainsAny(s, "\t\u200b\ufeff") {
		return s
	}
	return untabber.Replace(s)
}

var untabber = strings.NewReplacer("\t", "    ", "\u200b", "", "\ufeff", "")

// Wrap breaks s into lines width columns wide by the rule of lines.go;
// the first line starts with first, later lines with rest (a hanging
// indent). Every line is sized for the wider of the two prefixes and
// keeps its spare cells, so no line is wider than width and nothing of s
// is cut later. The TUI wraps all its own text (checks, hints, notes)
// with it, so its text and a page's break alike.
func Wrap(s string, width int, first, rest string) []string {
	pw := max(ansi.StringWidth(first), ansi.StringWidth(rest))
	lines := breakLines(s, max(width-pw, 8))
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}
