// Package page is a lab's markdown page rendered for a pane of a given
// width: glamour with labmate's explicit style (style.go), every line
// broken to the width by one line-breaking rule (lines.go) that keeps a
// spare cell for each East-Asian-ambiguous character and never breaks
// code (a span or a line of a code block) where a learner would misread
// or mistype it (code.go), and Problems, what an author must fix for a
// page to fit a pane.
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
	out, marked, err := glamourText(md, width, l)
	if err != nil {
		return plainBlocks(md, width), err
	}
	return splitBlocks(strings.Split(out, "\n"), width, l.NoColor(), marked), nil
}

// glamourText is glamour's rendering of md for width columns, as is: its
// code spans still hold the marks of code.go when marked.
func glamourText(md string, width int, l Look) (_ string, marked bool, _ error) {
	p := protectCode(md, l)
	opts := []glamour.TermRendererOption{
		glamour.WithStyles(p.style),
		glamour.WithColorProfile(l.Profile),
		glamour.WithWordWrap(width),
	}
	if p.formatter != "" {
		opts = append(opts, glamour.WithChromaFormatter(p.formatter))
	}
	r, err := glamour.NewTermRenderer(opts...)
	if err != nil {
		return "", false, err
	}
	out, err := r.Render(p.md)
	if err != nil {
		return "", false, err
	}
	if l.NoColor() {
		// glamour still emits bold and reset codes with the ASCII profile.
		out = ansi.Strip(out)
	}
	return out, p.marked, nil
}

// splitBlocks groups lines into blocks separated by blank lines, breaks
// each line to width and, when marked, gives it back what code.go marked. Blank lines never come from breaking, so the
// number of blocks does not depend on the width: that is what keeps the
// TUI's scroll position on the same paragraph across a resize.
func splitBlocks(lines []string, width int, plain, marked bool) [][]string {
	var blocks [][]string
	var cur []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isBlank(l) {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		l = trimRight(l, plain)
		if i+1 < len(lines) && isMarker(ansi.Strip(l)) && Cells(lines[i+1]) > width && !isBlank(lines[i+1]) {
			// glamour left a list marker alone on its line and the item's
			// first word, too long for any line, below it: they go
			// together, the word broken after the marker.
			i++
			next := trimRight(lines[i], plain)
			l += " " + ansi.TruncateLeft(next, indentOf(next), "")
		}
		for _, c := range clampLine(l, width) {
			if marked {
				c = trimRight(unmark(c), plain)
			}
			cur = append(cur, c)
		}
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
// cells. What glamour let overflow (a code span or a line of code longer
// than the line, which code.go keeps whole; a line it measured short) is
// broken again by the rule of lines.go, the next line indented like the
// line (the rest of a broken word hang cells more), so no fragment lands
// at column 0 on its own.
func clampLine(l string, width int) []string {
	if width <= 0 || Cells(l) <= width {
		return []string{l}
	}
	indent := min(indentOf(l), width/2)
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, p := range breakLine(ansi.TruncateLeft(l, indent, ""), max(width-indent, 1), hang) {
		switch {
		case isBlank(p.text):
			// Only blanks that led the line: nothing to show.
		case p.hung:
			out = append(out, pad+strings.Repeat(" ", hang)+p.text)
		default:
			out = append(out, pad+p.text)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// hang is how much further in the rest of a word broken on a page goes
// on (lines.go).
const hang = 2

// indentOf is how many blanks l starts with (a line of code's indent
// marks among them: one cell each).
func indentOf(l string) int {
	n := 0
	for _, r := range ansi.Strip(l) {
		if r != ' ' && r != indentMark {
			break
		}
		n++
	}
	return n
}

// plainBlocks is the fallback when glamour fails: the source, wrapped.
func plainBlocks(md string, width int) [][]string {
	var lines []string
	for _, l := range strings.Split(Untab(md), "\n") {
		lines = append(lines, Wrap(l, width-1, " ", " ")...)
	}
	return splitBlocks(lines, width, true, false)
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
