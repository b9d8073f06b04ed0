package page

import (
	"strings"

	"github.com/charmbracelet/glamour/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// glamour breaks a line at blanks and after hyphens (reflow's word wrap
// of a paragraph) and after any of " ,.;-+|" (x/ansi's Wordwrap, which it
// runs again over every block with a margin), wherever they are: inside a
// span of code too, so that `runtime_type = "io.containerd.runc.v2"`
// could end a line at `"io.` and a learner would type two halves. While
// glamour wraps a page, those characters of its code spans (and the blank
// padding the style puts around a span) stand as the marks below, at
// which it does not break: a span that does not fit the rest of a line
// goes whole to the next one, and one longer than the line is left on a
// line of its own for breakLines to break where it may. The marks are one
// cell wide, never blank, not ambiguous and not breakpoints of either
// wrap; every line gets its characters back (unmark) once it is broken. A
// page that holds a mark itself is rendered without them: its code breaks
// as prose does, nothing is lost.
var marks = []struct{ plain, mark rune }{
	{' ', '\u2422'}, // ␢ BLANK SYMBOL
	{'-', '\u2011'}, // non-breaking hyphen
	{'.', '\u2424'}, // ␤
	{',', '\u2425'}, // ␥
	{';', '\u2426'}, // ␦
	{'+', '\u2423'}, // ␣
	{'|', '\u2420'}, // ␠
}

var (
	marker, unmarker = func() (*strings.Replacer, *strings.Replacer) {
		var on, off []string
		for _, m := range marks {
			on = append(on, string(m.plain), string(m.mark))
			off = append(off, string(m.mark), string(m.plain))
		}
		return strings.NewReplacer(on...), strings.NewReplacer(off...)
	}()
	markRunes = func() string {
		var b strings.Builder
		for _, m := range marks {
			b.WriteRune(m.mark)
		}
		return b.String()
	}()
)

// unmark gives a line its characters back.
func unmark(s string) string {
	if !strings.ContainsAny(s, markRunes) {
		return s
	}
	return unmarker.Replace(s)
}

// plainOf is the character a mark stands for (r itself if none).
func plainOf(r rune) rune {
	for _, m := range marks {
		if r == m.mark {
			return m.plain
		}
	}
	return r
}

// markdown parses as glamour does (glamour.go: GFM and definition lists),
// so the code spans found are the ones glamour renders.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))

// protectCode returns md with the characters of its code spans that
// glamour breaks at marked, and st with the code style's padding marked
// the same way; marked is false when it marked nothing (the lines are
// then not to be unmarked).
func protectCode(md string, st ansi.StyleConfig) (_ string, _ ansi.StyleConfig, marked bool) {
	if strings.ContainsAny(md, markRunes) {
		return md, st, false
	}
	src := []byte(md)
	spans := codeSpans(src)
	if len(spans) == 0 {
		return md, st, false
	}
	var b strings.Builder
	last := 0
	for _, sg := range spans {
		if sg.Start < last {
			continue // never: spans come in order and apart
		}
		b.Write(src[last:sg.Start])
		b.WriteString(marker.Replace(string(src[sg.Start:sg.Stop])))
		last = sg.Stop
	}
	b.Write(src[last:])
	st.Code.Prefix = marker.Replace(st.Code.Prefix)
	st.Code.Suffix = marker.Replace(st.Code.Suffix)
	return b.String(), st, true
}

// codeSpans is where the text of each code span of src is, in order, but
// those in a table cell (laid out by the table, which must stay free to
// wrap them).
func codeSpans(src []byte) []text.Segment {
	var spans []text.Segment
	doc := markdown.Parser().Parse(text.NewReader(src))
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n.(type) {
		case *east.TableCell:
			return gast.WalkSkipChildren, nil
		case *gast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*gast.Text); ok {
					spans = append(spans, t.Segment)
				}
			}
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	return spans
}
