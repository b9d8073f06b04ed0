// Package page is a lab's markdown page rendered for a pane of a given
// width: glamour with labmate's explicit style (style.go), every line
// wrapped to the width (lines.go) with a spare cell for each
// East-Asian-ambiguous character, and Problems, what an author must fix
// for a page to fit a pane.
//
// It stands below the TUI: the TUI renders its pages with Render (caching
// them per page, width and theme, off its event loop) and wraps its own
// text with Wrap, and `labmate lab verify` checks a lab's pages with
// Problems, so a page is measured exactly as it is shown. It does no
// bubbletea and no I/O, and imports nothing of labmate but content.
package page

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/content"
)

// Look is what a rendering depends on besides the text and the width: the
// theme's background and what the terminal can show.
type Look struct {
	Light   bool            // a light background (else dark)
	Profile termenv.Profile // termenv.Ascii: no escape sequences at all
}

// NoColor reports whether the look emits no escape sequences.
func (l Look) NoColor() bool { return l.Profile == termenv.Ascii }

// Render renders md for a pane width columns wide and splits the result
// into blocks (paragraphs, lists, code, ...) at blank lines. Every line of
// the result fits width, with its spare cells; on any failure the source
// is shown wrapped instead, never nothing, and the error says why.
func Render(md string, width int, l Look) (blocks [][]string, err error) {
	NarrowAmbiguous()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("glamour: %v", r)
			blocks = plainBlocks(md, width)
		}
	}()
	out, err := glamourText(md, width, l)
	if err != nil {
		return plainBlocks(md, width), err
	}
	return splitBlocks(strings.Split(out, "\n"), width, l.NoColor()), nil
}

// glamourText is glamour's rendering of md for width columns, as is.
func glamourText(md string, width int, l Look) (string, error) {
	r, err := glamour.NewTermRenderer(
		glamour.WithStyles(style(l)),
		glamour.WithColorProfile(l.Profile),
		glamour.WithWordWrap(width),
	)
	if err != nil {
		return "", err
	}
	out, err := r.Render(md)
	if err != nil {
		return "", err
	}
	if l.NoColor() {
		// glamour still emits bold and reset codes with the ASCII profile.
		out = ansi.Strip(out)
	}
	return out, nil
}

// splitBlocks groups lines into blocks separated by blank lines and
// clamps each line to width. Blank lines never come from wrapping, so the
// number of blocks does not depend on the width: that is what keeps the
// TUI's scroll position on the same paragraph across a resize.
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
// each frame several times larger (and the TUI's idle renderer compares
// whole frames many times a second).
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

// clampLine makes one rendered line fit width columns, with its spare
// cells. What glamour let overflow (its hyphen breaks go past the edge,
// so do code spans and long paths) is word-wrapped again, the
// continuation indented like the line, so no fragment lands at column 0
// on its own.
func clampLine(l string, width int) []string {
	if width <= 0 || Cells(l) <= width {
		return []string{l}
	}
	indent := min(indentOf(l), width/2)
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, w := range breakLines(ansi.TruncateLeft(l, indent, ""), width-indent) {
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

// indentOf is how many blanks l starts with.
func indentOf(l string) int {
	vis := ansi.Strip(l)
	return len(vis) - len(strings.TrimLeft(vis, " "))
}

// plainBlocks is the fallback when glamour fails: the source, wrapped.
func plainBlocks(md string, width int) [][]string {
	var lines []string
	for _, l := range strings.Split(Untab(md), "\n") {
		lines = append(lines, Wrap(l, width-1, " ", " ")...)
	}
	return splitBlocks(lines, width, true)
}

// Problems renders a page of markdown for a pane width columns wide
// exactly as the TUI does and says, in Korean, what an author must fix:
// glamour failing on it (the TUI then shows the source, wrapped), or a
// line wider than the pane. `labmate lab verify` runs it on every page of
// a lab.
func Problems(md string, width int) []string {
	var probs []string
	blocks, err := Render(md, width, Look{Profile: termenv.Ascii})
	if err != nil {
		probs = append(probs, err.Error())
	}
	for _, b := range blocks {
		for _, l := range b {
			if w := Cells(l); w > width {
				probs = append(probs, content.Msg("tui.page_too_wide", "w", w, "width", width, "line", strings.TrimSpace(ansi.Strip(l))))
			}
		}
	}
	return probs
}
