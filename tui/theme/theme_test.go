package theme

import (
	"strings"
	"testing"

	"github.com/charmbracelet/glamour"
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

// Rendered markdown uses no ambiguous glyph of its own (bullets, quote
// bars, rules): only what the text itself contains.
func TestGlamourStyleHasNoAmbiguousGlyphs(t *testing.T) {
	md := "# 제목\n\n- 하나\n- 둘\n\n> 인용\n\n---\n\n| 가 | 나 |\n| --- | --- |\n| 1 | 2 |\n\n- [x] 끝\n- [ ] 남음\n\n![그림](x.png)\n"
	for _, name := range []string{Dark, Light} {
		for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
			th := New(name, p)
			r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Glamour()), glamour.WithColorProfile(p), glamour.WithWordWrap(60))
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.Render(md)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ansi.Strip(out) {
				if r >= 0x80 && runewidth.IsAmbiguousWidth(r) {
					t.Errorf("%s/%v: rendered markdown has ambiguous %q", name, p, r)
				}
			}
			if p == termenv.Ascii && strings.Contains(out, "\x1b[3") {
				t.Errorf("%s: colour escapes with the ASCII profile", name)
			}
		}
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
