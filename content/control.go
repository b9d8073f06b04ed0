package content

import (
	"fmt"
	"path"
	"strings"
)

// controlProblems are the control characters in the text a lab shows a
// learner: its markdown (intro, pages, solutions), what lab.toml writes
// for it (the title, default_root, step titles and hints; TOML can
// write any control character as \u001b) and its messages. An author
// never needs one but newline and tab (a CR is taken only as part of a
// CRLF line end), and one in a lab from someone else could set the
// learner's window title or write their clipboard, so `lab install`,
// `lab pack` and `lab verify` refuse the lab. The TUI shows them escaped
// anyway (internal/termtext): a lab installed before this check runs.
func (l *Lab) controlProblems() []*Problem {
	var out []*Problem
	add := func(file string, at Span, what, text string) {
		r, line, col, ok := firstControl(text)
		if !ok {
			return
		}
		p := &Problem{File: path.Join(l.Where, file), Line: at.Line, Col: at.Col}
		if what == "" {
			p.Line, p.Col = line, col
			p.Msg = Msg("content.control_char", "char", controlName(r))
		} else {
			p.Msg = Msg("content.control_char_in", "what", what, "char", controlName(r))
		}
		out = append(out, p)
	}
	add(l.IntroFile, Span{}, "", l.Intro)
	add(l.FinishFile, Span{}, "", l.Finish)
	for _, s := range l.Steps {
		add(s.BodyFile, Span{}, "", s.Body)
		add(s.SolutionFile, Span{}, "", s.Solution)
	}
	keys := keyPositions(l.TOML)
	add("lab.toml", keys["title"], "title", l.Title)
	add("lab.toml", keys["default_root"], "default_root", l.DefaultRoot)
	for i, s := range l.Steps {
		add("lab.toml", keys[fmt.Sprintf("steps.%d.title", i)], fmt.Sprintf("steps[%d].title", i), s.Title)
		for j, h := range s.Hints {
			add("lab.toml", keys[fmt.Sprintf("steps.%d.hints", i)], fmt.Sprintf("steps[%d].hints[%d]", i, j), h)
		}
	}
	for _, k := range l.OwnKeys() {
		file, at, _ := l.MsgAt(k)
		add(file, at, k, l.msgs[k])
	}
	return out
}

// firstControl finds the first control character of text but newline,
// tab and the CR of a CRLF, with its line and column (1-based, in
// characters).
func firstControl(text string) (r rune, line, col int, ok bool) {
	line, col = 1, 0
	for i, c := range text {
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
		case c == '\t', c == '\r' && strings.HasPrefix(text[i+1:], "\n"):
		case c < 0x20, c >= 0x7f && c <= 0x9f:
			return c, line, col, true
		}
	}
	return 0, 0, 0, false
}

// controlName words a control character for an author: "U+001B (ESC)".
func controlName(r rune) string {
	names := map[rune]string{0x07: "BEL", 0x08: "BS", 0x0d: "CR", 0x1b: "ESC", 0x7f: "DEL", 0x9b: "CSI", 0x9c: "ST", 0x9d: "OSC"}
	if n, ok := names[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, n)
	}
	return fmt.Sprintf("U+%04X", r)
}
