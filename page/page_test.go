package page

import (
	"fmt"
	"regexp"
	"slices"
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
				raw, marked, err := glamourText(md, w, l)
				if err != nil {
					t.Fatal(err)
				}
				if marked {
					raw = unmark(raw)
				}
				if got := squeeze(strings.Join(all, "\n")); got != squeeze(raw) {
					t.Errorf("%s at %d columns (%v): the broken lines lost text", name, w, p)
				}
			}
		}
	}
}

// Code on a lab page, in a span or a line of a code block, is broken only
// where the rule of lines.go lets it: a span at 60 columns and wider only
// outside quotes (tiers 1 and 2); a line of a code block, or any code at
// the narrowest pane, at one of the rule's places at worst, never at an
// arbitrary character. And no line of text is punctuation alone.
func TestLabPagesBreakCodeOnlyWhereTheRuleSays(t *testing.T) {
	lone := regexp.MustCompile(`^ *[.,;:)\]}"']+ *$`)
	fenced := regexp.MustCompile("(?ms)^```.*?^```[^\n]*\n?")
	for name, md := range labPages(t) {
		src := []byte(md)
		// The code, but spans whose text the page also has outside code
		// (prose breaks where glamour breaks prose).
		found := findCode(src)
		spans, blocks := found.spans, found.blockLines
		prose := []byte(md)
		for _, sg := range append(spans, blocks...) {
			for i := sg.Start; i < sg.Stop; i++ {
				prose[i] = '`'
			}
		}
		type piece struct {
			text  string
			block bool
		}
		var codes []piece
		for _, sg := range spans {
			if c := string(sg.Value(src)); !strings.Contains(c, "\n") && !strings.Contains(string(prose), c) {
				codes = append(codes, piece{c, false})
			}
		}
		for _, sg := range blocks {
			c := strings.TrimLeft(string(sg.Value(src)), " ")
			if strings.Contains(c, `\\`) {
				continue // glamour shows \\ in a code block as \ without colour
			}
			codes = append(codes, piece{c, true})
		}
		for _, w := range []int{40, 60, 80} {
			var lines []string
			for _, b := range render(t, md, w) {
				for _, l := range b {
					lines = append(lines, strings.TrimLeft(l, " "))
				}
			}
			page := strings.Join(lines, "\n")
			for _, c := range codes {
				// At 60 columns a span breaks outside quotes; a line of a
				// code block may hold a quoted string longer than the pane.
				worst := 2
				if w < 60 || c.block {
					worst = 5 // any place of the rule but a hard break
				}
				checkCodeBreaks(t, fmt.Sprintf("%s at %d columns", name, w), page, c.text, worst)
			}
			// Code blocks have lines of punctuation of their own.
			for _, b := range render(t, fenced.ReplaceAllString(md, ""), w) {
				for _, l := range b {
					if lone.MatchString(l) {
						t.Errorf("%s at %d columns: punctuation alone on a line: %q", name, w, l)
					}
				}
			}
		}
	}
}

// render is md's blocks at width columns without colour.
func render(t *testing.T, md string, width int) [][]string {
	t.Helper()
	blocks, err := Render(md, width, Look{Profile: termenv.Ascii})
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// checkCodeBreaks finds code c on page, whole or broken across lines, and
// fails where it is broken at a place of a tier worse than worst (or at
// no place of the rule at all).
func asciiWord(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

func checkCodeBreaks(t *testing.T, where, page, c string, worst int) {
	t.Helper()
	var re strings.Builder
	rs := []rune(c)
	for i, r := range rs {
		if r == ' ' {
			re.WriteString(`(?: |\n)`)
		} else {
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
		if i+1 < len(rs) {
			re.WriteString(`\n?`)
		}
	}
	// An occurrence inside a longer ASCII word is another word's letters
	// (a short span like "env" matches "the\nnvidia" across a line of
	// prose), not this code.
	var found []string
	for _, m := range regexp.MustCompile(re.String()).FindAllStringIndex(page, -1) {
		if m[0] > 0 && asciiWord(page[m[0]-1]) || m[1] < len(page) && asciiWord(page[m[1]]) {
			continue
		}
		found = append(found, page[m[0]:m[1]])
	}
	if len(found) == 0 {
		t.Errorf("%s: code %q is not on the page", where, c)
		return
	}
	tiers := map[int]int{}
	for _, b := range breaksIn(mark(c)) {
		// breaksIn counts bytes of the marked text: count runes instead.
		tiers[len([]rune(mark(c)[:b.at]))] = b.tier
	}
	for _, f := range found {
		at := 0 // runes of c read so far
		for _, r := range f {
			if r != '\n' {
				at++
				continue
			}
			brk := at
			if at < len(rs) && rs[at] == ' ' {
				at++ // the line ended at the blank, which is gone
				brk = at
			}
			tier, ok := tiers[brk]
			switch {
			case !ok:
				t.Errorf("%s: code %q broken at rune %d, no place of the rule:\n%s", where, c, brk, f)
			case tier > worst:
				t.Errorf("%s: code %q broken at rune %d, a place of tier %d (worst allowed %d):\n%s", where, c, brk, tier, worst, f)
			}
		}
	}
}

// Rendered markdown uses no ambiguous glyph of its own (bullets, quote
// bars, rules): only what the text itself contains.
func TestStyleHasNoAmbiguousGlyphs(t *testing.T) {
	md := "# 제목\n\n- 하나\n- 둘\n\n> 인용\n\n---\n\n| 가 | 나 |\n| --- | --- |\n| 1 | 2 |\n\n- [x] 끝\n- [ ] 남음\n\n![그림](x.png)\n\n`코드 a.b-c`\n"
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
			marked, _, err := glamourText(md, 60, l)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{out, marked} {
				for _, r := range ansi.Strip(s) {
					if r >= 0x80 && runewidth.IsAmbiguousWidth(r) {
						t.Errorf("light=%v/%v: rendered markdown has ambiguous %q", light, p, r)
					}
				}
			}
			if p == termenv.Ascii && strings.Contains(out, "\x1b[3") {
				t.Errorf("light=%v: colour escapes with the ASCII profile", light)
			}
		}
	}
}

// A page that holds a mark itself is rendered with its code unprotected,
// and what it says comes out whole, the mark too.
func TestAPageWithAMarkIsShownAsItIs(t *testing.T) {
	md := "주의: 기호 ␢ 는 빈칸을 뜻합니다. `[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]`\n"
	for _, m := range marks {
		md := strings.ReplaceAll(md, "␢", string(m.mark))
		blocks, err := Render(md, 40, Look{Profile: termenv.Ascii})
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, b := range blocks {
			all = append(all, b...)
		}
		got := strings.Join(all, "\n")
		if !strings.Contains(got, string(m.mark)) || !strings.Contains(squeeze(got), squeeze(`[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]`)) {
			t.Errorf("with %q on the page:\n%s", m.mark, got)
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

// Code blocks keep glamour's own look where they fit: the same text,
// indentation and colour for every character (the marks go into chroma's
// tokens, after highlighting), in the dark and the light style and
// without colour.
func TestCodeBlocksLookAsGlamourDrawsThem(t *testing.T) {
	md := "참고:\n\n```sh\nkubectl -n gpu-operator get ds nvidia-container-toolkit\nif grep -q 'a.b-c'; then\n    echo \"ok, done\"\nfi\n```\n\n" +
		"```toml\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\"\n```\n\n" +
		"```json\n{\"spec\": {\"replicas\": 3, \"x|y\": \"a+b;c\"}}\n```\n"
	for _, l := range []Look{{Profile: termenv.ANSI256}, {Light: true, Profile: termenv.ANSI256}, {Profile: termenv.Ascii}} {
		light := l.Light
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style(l)), glamour.WithColorProfile(l.Profile), glamour.WithWordWrap(80))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := r.Render(md)
		if err != nil {
			t.Fatal(err)
		}
		if l.NoColor() {
			raw = ansi.Strip(raw)
		}
		want := splitBlocks(strings.Split(raw, "\n"), 80, l.NoColor(), false)
		got, err := Render(md, 80, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("light=%v: %d blocks, glamour draws %d", light, len(got), len(want))
		}
		for i := range want {
			for j := range want[i] {
				if j >= len(got[i]) {
					t.Fatalf("light=%v: block %d has %d lines, glamour draws %d", light, i, len(got[i]), len(want[i]))
				}
				g, w := got[i][j], want[i][j]
				if ansi.Strip(g) != ansi.Strip(w) || !slices.Equal(colours(g), colours(w)) {
					t.Errorf("light=%v, block %d line %d:\n got  %q\n want %q", light, i, j, g, w)
				}
			}
		}
	}
}

// colours is the SGR in force at each visible character of s but blanks.
func colours(s string) []string {
	var out []string
	cur := ""
	i := 0
	for _, m := range sgr.FindAllStringIndex(s+"\x1b[m", -1) {
		for _, r := range s[i:min(m[0], len(s))] {
			if r != ' ' {
				out = append(out, cur)
			}
		}
		if m[0] < len(s) {
			if seq := s[m[0]:m[1]]; seq == "\x1b[0m" || seq == "\x1b[m" {
				cur = ""
			} else {
				cur = seq
			}
		}
		i = m[1]
	}
	return out
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// A word of closing punctuation alone (an ellipsis in a quote) stays on
// the line of the word before it, at every width: a lone "..." reads as
// a line of its own, not as the quote going on.
func TestClosingPunctuationStaysWithTheWordBefore(t *testing.T) {
	md := "드라이버가 없으면 훅이 실패합니다(\"OCI runtime create failed ... nvidia-container-cli: initialization error: nvml error: driver not loaded\"): 이슈 #260.\n"
	lone := regexp.MustCompile(`^ *[.,;:)\]}"']+ *$`)
	for w := 20; w <= 80; w++ {
		for _, b := range render(t, md, w) {
			for _, l := range b {
				if lone.MatchString(l) {
					t.Errorf("at %d columns: punctuation alone on a line: %q", w, l)
				}
			}
		}
	}
}
