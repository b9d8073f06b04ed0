package page

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// glamour breaks a line at blanks and after hyphens (reflow's word wrap
// of a paragraph) and after any of " ,.;-+|" (x/ansi's Wordwrap, which it
// runs again over every block with a margin), wherever they are: inside
// code too, so that `runtime_type = "io.containerd.runc.v2"` could end a
// line at `"io.`, an image tag at `v1.17.` and a learner would type two
// halves. While glamour wraps a page, those characters of its code (the
// spans, the blank padding the style puts around a span, the lines of
// code blocks) stand as the marks below, at which it does not break: a
// span that does not fit the rest of a line goes whole to the next one,
// and code longer than the line is left on a line of its own for
// breakLine to break where it may. The marks are one cell wide, never
// blank, not ambiguous and not breakpoints of either wrap; every line gets
// its characters back (unmark) once it is broken. A page that holds a
// mark itself is rendered without them: its code breaks as prose does,
// nothing is lost.
var marks = []struct{ plain, mark rune }{
	{' ', '\u2422'}, // ␢ BLANK SYMBOL
	{'-', hyphenMark},
	{'.', '\u2424'}, // ␤
	{',', '\u2425'}, // ␥
	{';', '\u2426'}, // ␦
	{'+', '\u2423'}, // ␣
	{'|', '\u2420'}, // ␠
}

// hyphenMark stands for a hyphen, in code and in prose (code.hyphens).
const hyphenMark = '\u2011' // non-breaking hyphen

// indentMark stands for a blank that indents a line of a code block: the
// block's margin and the code's own indentation. Wordwrap would break at
// real blanks there and leave a long line of code at the page's margin,
// its indentation gone; clampLine counts these as the line's indentation.
const indentMark = '\u2440' // ⑀

var (
	marker, unmarker = func() (*strings.Replacer, *strings.Replacer) {
		var on, off []string
		for _, m := range marks {
			on = append(on, string(m.plain), string(m.mark))
			off = append(off, string(m.mark), string(m.plain))
		}
		return strings.NewReplacer(on...), strings.NewReplacer(append(off, string(indentMark), " ")...)
	}()
	markRunes = func() string {
		var b strings.Builder
		for _, m := range marks {
			b.WriteRune(m.mark)
		}
		b.WriteRune(indentMark)
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

// plainOf is the character a mark stands for (r itself if none; an
// indentation mark stays one, a blank no line breaks at).
func plainOf(r rune) rune {
	for _, m := range marks {
		if r == m.mark {
			return m.plain
		}
	}
	return r
}

// markdown parses as glamour does (glamour.go: GFM and definition lists),
// so the code found is the code glamour renders.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.DefinitionList))

// protected is a page as glamour is to render it with the marks in
// place: the markdown, the style, the chroma formatter for its code
// blocks ("": glamour's own) and whether anything is marked (the lines
// are to be unmarked then).
type protected struct {
	md        string
	style     ansi.StyleConfig
	formatter string
	marked    bool
}

// protectCode marks the code of md for look l. The style's code block
// indentation becomes marks written with each line of code, so glamour
// indents code blocks by nothing itself. A code block is highlighted (in
// colour) from its own text: its marks go into what chroma's lexer made
// of it, token by token (markedTTY256), so the colours are glamour's.
// Without colour there is nothing to highlight and the block's lines are
// marked in the markdown itself.
func protectCode(md string, l Look) protected {
	p := protected{md: md, style: style(l)}
	if strings.ContainsAny(md, markRunes) {
		return p
	}
	indent := codeIndent(p.style)
	src := []byte(md)
	type edit struct {
		at   text.Segment
		with string
	}
	var edits []edit
	found := findCode(src)
	for _, sg := range found.spans {
		edits = append(edits, edit{sg, marker.Replace(string(sg.Value(src)))})
	}
	for _, at := range found.hyphens {
		edits = append(edits, edit{text.NewSegment(at, at+1), string(hyphenMark)})
	}
	for _, at := range found.glue {
		edits = append(edits, edit{text.NewSegment(at, at+1), string(markOf(rune(src[at])))})
	}
	switch {
	case l.NoColor():
		for _, sg := range found.blockLines {
			edits = append(edits, edit{sg, markCodeLine(string(sg.Value(src)), indent)})
		}
	case indent == markedIndent:
		p.formatter = markedTTY256
	default:
		indent = -1 // glamour indents (and wraps) its code blocks itself
	}
	if indent >= 0 {
		p.style.CodeBlock.Margin, p.style.CodeBlock.Indent = uintPtr(0), nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at.Start - b.at.Start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.at.Start < last {
			continue // never: code comes in order and apart
		}
		b.Write(src[last:e.at.Start])
		b.WriteString(e.with)
		last = e.at.Stop
	}
	b.Write(src[last:])
	p.md = b.String()
	p.style.Code.Prefix = marker.Replace(p.style.Code.Prefix)
	p.style.Code.Suffix = marker.Replace(p.style.Code.Suffix)
	p.marked = true
	return p
}

// code is what of a page protectCode marks, found by one parse as
// glamour parses.
type code struct {
	// spans is where the text of each code span is, in order, but those
	// in a table cell (laid out by the table, which must stay free to wrap
	// them).
	spans []text.Segment
	// blockLines is where each line of the code blocks is, up to its end
	// of line; empty lines are left out (they stay blank).
	blockLines []text.Segment
	// hyphens is where the hyphens of the prose are. reflow, which wraps
	// glamour's paragraphs, breaks after a hyphen without counting it, so
	// a line with hyphens comes out wider than the pane and its last word
	// would be left alone on a line; marked, a hyphenated word
	// (lab-node-1) moves whole. Not in a link's address (glamour's GFM
	// linkify would end the link there), a table, or after a backslash
	// (the escape would be lost).
	hyphens []int
	// glue is where the prose holds a word of punctuation alone (an
	// ellipsis "...", a lone ")"): the blank before it and its own
	// breakpoints, marked so that it stays on the line of the word before
	// and no line of a page is punctuation alone.
	glue []int
}

func findCode(src []byte) code {
	var c code
	doc := markdown.Parser().Parse(text.NewReader(src))
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.TableCell, *gast.AutoLink, *gast.RawHTML:
			return gast.WalkSkipChildren, nil
		case *gast.CodeSpan:
			for t := n.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*gast.Text); ok {
					c.spans = append(c.spans, t.Segment)
				}
			}
			return gast.WalkSkipChildren, nil
		case *gast.FencedCodeBlock, *gast.CodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				sg := lines.At(i)
				line := bytes.TrimRight(src[sg.Start:sg.Stop], "\r\n")
				if len(bytes.TrimSpace(line)) > 0 {
					c.blockLines = append(c.blockLines, text.NewSegment(sg.Start, sg.Start+len(line)))
				}
			}
			return gast.WalkSkipChildren, nil
		case *gast.Text:
			for i := n.Segment.Start; i < n.Segment.Stop; i++ {
				if src[i] == '-' && (i == 0 || src[i-1] != '\\') {
					c.hyphens = append(c.hyphens, i)
				}
			}
			c.glue = append(c.glue, punctuationWords(src, n.Segment)...)
		}
		return gast.WalkContinue, nil
	})
	return c
}

// punctuationWords are the places in sg to mark so that a word of
// closing punctuation alone (an ellipsis "...", a lone ")") stays with
// the word before it: the blank before the word and the word's own
// breakpoints (a "." or "," glamour would break after). A word that
// opens ("(", a quote before a code span) goes with what follows it.
func punctuationWords(src []byte, sg text.Segment) []int {
	var out []int
	for i := sg.Start; i < sg.Stop; {
		if src[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < sg.Stop && src[j] != ' ' {
			j++
		}
		word := string(src[i:j])
		if i > sg.Start && src[i-1] == ' ' && strings.Trim(word, closing) == "" {
			out = append(out, i-1)
			for k := i; k < j; k++ {
				if m := markOf(rune(src[k])); m != rune(src[k]) && src[k] != '-' {
					out = append(out, k)
				}
			}
		}
		i = j
	}
	return out
}

// closing is the punctuation that ends what comes before it.
const closing = ".,;:!?)]}…'\"’”"

// codeIndent is how far in st sets a code block's lines.
func codeIndent(st ansi.StyleConfig) int {
	n := 0
	if m := st.CodeBlock.Margin; m != nil {
		n += int(*m)
	}
	if i := st.CodeBlock.Indent; i != nil {
		n += int(*i)
	}
	return n
}

// markCodeLine is a line of code marked: indent marks for the block's
// indentation and for its own leading blanks, then the code marked.
func markCodeLine(line string, indent int) string {
	code := strings.TrimLeft(line, " ")
	return strings.Repeat(string(indentMark), indent+len(line)-len(code)) + marker.Replace(code)
}

// markedTTY256 is chroma's terminal256 formatter (glamour's) writing the
// tokens of a code block with the marks in place, each line that is not
// empty led by markedIndent indent marks (the dark and light styles' code
// block margin, which protectCode takes from glamour).
const (
	markedTTY256 = "labmate-marked-terminal256"
	markedIndent = 2
)

func init() {
	formatters.Register(markedTTY256, chroma.FormatterFunc(func(w io.Writer, st *chroma.Style, it chroma.Iterator) error {
		lineStart := true
		return formatters.TTY256.Format(w, st, func() chroma.Token {
			t := it()
			var b strings.Builder
			for _, r := range t.Value {
				switch {
				case r == '\n':
					lineStart = true
				case lineStart && r == ' ':
					r = indentMark
				case lineStart:
					lineStart = false
					b.WriteString(strings.Repeat(string(indentMark), markedIndent))
					r = markOf(r)
				default:
					r = markOf(r)
				}
				b.WriteRune(r)
			}
			t.Value = b.String()
			return t
		})
	}))
}

// markOf is the mark that stands for r (r itself if none).
func markOf(r rune) rune {
	for _, m := range marks {
		if r == m.plain {
			return m.mark
		}
	}
	return r
}
