package checks

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// Every status has a glyph of its own, and each takes one cell whether or
// not the terminal draws East-Asian-ambiguous characters wide, by every
// measure labmate's media use (go-runewidth both ways, the renderer's).
func TestGlyphsAreOneCellAndDistinct(t *testing.T) {
	narrow := &runewidth.Condition{EastAsianWidth: false}
	wide := &runewidth.Condition{EastAsianWidth: true}
	seen := map[string]Status{}
	for _, st := range []Status{Passed, Failed, Waiting, Unknown, Error} {
		g := st.Glyph()
		if other, dup := seen[g]; dup {
			t.Errorf("%s and %s share the glyph %q", st, other, g)
		}
		seen[g] = st
	}
	if g := Status("bogus").Glyph(); g != Unknown.Glyph() {
		t.Errorf("an unknown status is marked %q, want the unknown glyph %q", g, Unknown.Glyph())
	}
	for g := range seen {
		if n, w, a := narrow.StringWidth(g), wide.StringWidth(g), ansi.StringWidth(g); n != 1 || w != 1 || a != 1 {
			t.Errorf("%q (U+%04X): width %d with ambiguous=1, %d with ambiguous=2, %d for the renderer", g, []rune(g)[0], n, w, a)
		}
	}
}
