package theme

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/checks"
)

var (
	narrow = &runewidth.Condition{EastAsianWidth: false}
	wide   = &runewidth.Condition{EastAsianWidth: true}
)

// The current-page mark takes one cell whether or not the terminal draws
// East-Asian-ambiguous characters wide, and every measure agrees (the
// status glyphs are checked beside checks.Status.Glyph).
func TestCurrentGlyphIsNotAmbiguous(t *testing.T) {
	g := GlyphCurrent
	if n, w, a := narrow.StringWidth(g), wide.StringWidth(g), ansi.StringWidth(g); n != 1 || w != 1 || a != 1 {
		t.Errorf("%q (U+%04X): width %d with ambiguous=1, %d with ambiguous=2, %d for the renderer", g, []rune(g)[0], n, w, a)
	}
}

func TestNoColorThemeEmitsNothing(t *testing.T) {
	th := New(Dark, termenv.Ascii)
	if !th.NoColor() {
		t.Fatal("ASCII profile is not no-colour")
	}
	for _, s := range []string{th.Current.Render("x"), th.Status(checks.Failed).Render("x"), th.Alert.Render("x"), th.Toast.Render("x")} {
		if s != "x" {
			t.Errorf("styled %q with no colour", s)
		}
	}
	if s := New(Dark, termenv.ANSI256).Status(checks.Failed).Render("x"); !strings.Contains(s, "\x1b[") {
		t.Errorf("256-colour status not coloured: %q", s)
	}
}

func TestResolve(t *testing.T) {
	for in, want := range map[string]string{"dark": Dark, "light": Light, " Light ": Light, "": Dark, "auto": Dark, "neon": Dark} {
		// nil output: nothing to ask, dark.
		if got := Resolve(in, nil); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	if New("neon", termenv.Ascii).Name != Dark {
		t.Error("unknown theme is not dark")
	}
}
