package page

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/internal/keyscan"
)

// labPages is every page of every built-in lab as lab verify renders it:
// introduction, step texts, solutions and hints, {{ROOT}} filled in.
func labPages(t *testing.T) map[string]string {
	t.Helper()
	pages := map[string]string{}
	for _, id := range content.IDs() {
		lab, err := content.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		pages[id+" intro"] = lab.Intro
		for _, s := range lab.Steps {
			pages[fmt.Sprintf("%s step %d", id, s.Number)] = s.Body
			pages[fmt.Sprintf("%s solution %d", id, s.Number)] = s.Solution
			for i, h := range s.Hints {
				pages[fmt.Sprintf("%s hint %d.%d", id, s.Number, i+1)] = h
			}
		}
	}
	for name, md := range pages {
		pages[name] = content.Expand(md, "/root/lab-root")
	}
	return pages
}

// Every line of every lab page fits the pane with its spare cells, keeps
// the margin (what glamour let overflow is broken again under it, never
// left at column 0), and nothing of glamour's text is lost on the way.
func TestLabPagesFitWhole(t *testing.T) {
	widths := map[termenv.Profile][]int{
		termenv.Ascii:   {40, 41, 43, 49, 56, 59, 60, 61, 80, 87, 120, 160},
		termenv.ANSI256: {40, 60, 100}, // the same breaks, styled
	}
	for name, md := range labPages(t) {
		for p, ws := range widths {
			l := Look{Profile: p}
			for _, w := range ws {
				blocks, err := Render(md, w, l)
				if err != nil {
					t.Fatalf("%s at %d: %v", name, w, err)
				}
				var all []string
				for _, b := range blocks {
					for _, line := range b {
						all = append(all, line)
						if vis := ansi.Strip(line); !strings.HasPrefix(vis, " ") {
							t.Errorf("%s at %d columns: line without the margin: %q", name, w, vis)
						}
						if cells := Cells(line); cells > w {
							t.Errorf("%s at %d columns: line of %d cells with its spare ones: %q", name, w, cells, ansi.Strip(line))
						}
					}
				}
				raw, err := glamourText(md, w, l)
				if err != nil {
					t.Fatal(err)
				}
				if got := squeeze(strings.Join(all, "\n")); got != squeeze(raw) {
					t.Errorf("%s at %d columns (%v): the broken lines lost text", name, w, p)
				}
			}
		}
	}
}

// Rendered markdown uses no ambiguous glyph of its own (bullets, quote
// bars, rules): only what the text itself contains.
func TestStyleHasNoAmbiguousGlyphs(t *testing.T) {
	md := "# 제목\n\n- 하나\n- 둘\n\n> 인용\n\n---\n\n| 가 | 나 |\n| --- | --- |\n| 1 | 2 |\n\n- [x] 끝\n- [ ] 남음\n\n![그림](x.png)\n"
	for _, light := range []bool{false, true} {
		for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
			l := Look{Light: light, Profile: p}
			r, err := glamour.NewTermRenderer(glamour.WithStyles(style(l)), glamour.WithColorProfile(p), glamour.WithWordWrap(60))
			if err != nil {
				t.Fatal(err)
			}
			out, err := r.Render(md)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ansi.Strip(out) {
				if r >= 0x80 && runewidth.IsAmbiguousWidth(r) {
					t.Errorf("light=%v/%v: rendered markdown has ambiguous %q", light, p, r)
				}
			}
			if p == termenv.Ascii && strings.Contains(out, "\x1b[3") {
				t.Errorf("light=%v: colour escapes with the ASCII profile", light)
			}
		}
	}
}

// Problems names a line wider than the pane by its width and the pane's,
// with its text, in Korean: what `labmate lab verify` shows an author.
func TestProblemsNamesTheWidths(t *testing.T) {
	if got := Problems("fits on one line", 40); len(got) != 0 {
		t.Errorf("a page that fits has problems: %q", got)
	}
	// A Korean syllable takes two cells: a pane one cell wide fits none.
	got := Problems("가", 1)
	want := []string{"줄 하나가 2칸으로 1칸 화면보다 넓습니다: 가"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems = %q, want %q", got, want)
	}
}

// The Korean text Problems words its findings with exists.
func TestMessageKeysExist(t *testing.T) {
	keys := keyscan.Keys(t, ".", regexp.MustCompile(`^tui\.[a-z0-9_.]+[a-z0-9_]$`))
	for k, at := range keys {
		if !content.HasMsg(k) {
			t.Errorf("%s: message %q is not in content/*.toml", at, k)
		}
	}
	if len(keys) == 0 {
		t.Fatal("found no key: the scan is broken")
	}
}

// squeeze drops every blank and escape sequence: the text a reader sees,
// whatever the wrapping and the indentation.
func squeeze(s string) string {
	return strings.Join(strings.Fields(ansi.Strip(s)), "")
}

// Wrap never makes a line wider than asked, whichever prefix is wider,
// and keeps a spare cell for each East-Asian-ambiguous character.
func TestWrapWidth(t *testing.T) {
	text := `✓ 통과  plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.runtime_type 이 맞습니다 — 4 × 5 = 20 — 끝`
	for _, p := range [][2]string{{" ", "   "}, {" ", "    "}, {"   ", " "}, {" 1. ", "    "}} {
		for width := 20; width <= 100; width++ {
			lines := Wrap(text, width, p[0], p[1])
			for i, l := range lines {
				if w := Cells(l); w > width {
					t.Fatalf("Wrap(%d, %q, %q) line %d is %d cells with its spare ones: %q", width, p[0], p[1], i, w, l)
				}
			}
			if squeeze(strings.Join(lines, "\n")) != squeeze(p[0]+text) {
				t.Fatalf("Wrap(%d, %q, %q) lost text:\n%s", width, p[0], p[1], strings.Join(lines, "\n"))
			}
		}
	}
}
