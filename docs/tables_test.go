package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// tableProblem is a table row (or a line meant as one) that does not have
// its header's number of cells.
type tableProblem struct {
	line        int
	cells, want int // want 0: not a table at all
}

// tableProblems finds the rows of every GitHub-flavoured markdown table in
// src whose number of cells differs from the header's, and the lines that
// start with a pipe but are not part of a table (a delimiter row that does
// not match its header makes the whole block a paragraph).
//
// goldmark finds the tables (so code blocks and the like are left out);
// the cells of each row are counted on its source line, because goldmark's
// AST, like GitHub's renderer, silently drops the cells beyond the
// header's and pads missing ones.
func tableProblems(src []byte) []tableProblem {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src))
	var out []tableProblem
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table:
			want := 0
			for row := n.FirstChild(); row != nil; row = row.NextSibling() {
				start, ok := rowStart(row)
				if !ok {
					continue
				}
				got := countCells(lineAt(src, start))
				if _, header := row.(*east.TableHeader); header {
					want = got
					continue
				}
				if got != want {
					out = append(out, tableProblem{line: lineNumber(src, start), cells: got, want: want})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				if l := bytes.TrimSpace(seg.Value(src)); len(l) > 0 && l[0] == '|' {
					out = append(out, tableProblem{line: lineNumber(src, seg.Start), cells: countCells(l)})
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// rowStart is a source offset inside the row: the first cell goldmark
// read from the source (cells it padded have no lines).
func rowStart(row ast.Node) (int, bool) {
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Lines().Len() > 0 {
			return c.Lines().At(0).Start, true
		}
	}
	return 0, false
}

func lineAt(src []byte, off int) []byte {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		return src[start:]
	}
	return src[start : off+end]
}

func lineNumber(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) + 1 }

// countCells counts a row's cells as GitHub-flavoured markdown does: a
// leading and a trailing pipe are borders, every other pipe separates
// cells unless a backslash escapes it, inside a code span too (a bare
// pipe inside backticks does end the cell).
func countCells(line []byte) int {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '|' {
		line = line[1:]
	}
	if n := len(line); n > 0 && line[n-1] == '|' && (n < 2 || line[n-2] != '\\') {
		line = line[:n-1]
	}
	cells := 1
	for i, c := range line {
		if c == '|' && (i == 0 || line[i-1] != '\\') {
			cells++
		}
	}
	return cells
}

// TestTablesHaveTheirHeadersCells: every row of every table in README.md
// and docs/*.md has exactly as many cells as its header, so no cell is
// dropped by the renderer or pushed into the wrong column.
func TestTablesHaveTheirHeadersCells(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	tables := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tables += bytes.Count(src, []byte("\n|---"))
		for _, p := range tableProblems(src) {
			if p.want == 0 {
				t.Errorf("%s:%d: a line of %d cells that starts with | but is not in a table (does its delimiter row match the header?)", f, p.line, p.cells)
				continue
			}
			t.Errorf("%s:%d: %d cells, the table's header has %d (escape a pipe inside a cell as \\|, in backticks too)", f, p.line, p.cells, p.want)
		}
	}
	if tables < 3 {
		t.Fatalf("found %d tables in %v: is the glob right?", tables, files)
	}
}

// The counting itself: what GitHub renders, on the cases that broke
// README's tables or could.
func TestTableProblems(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []tableProblem
	}{
		{"right", "| a | b |\n|---|---|\n| 1 | 2 |\n", nil},
		{"no outer pipes", "a | b\n---|---\n1 | 2\n", nil},
		{"escaped pipe in code", "| a | b |\n|---|---|\n| `x\\|y` | 2 |\n", nil},
		{"escaped pipe as the last character", "| a | b |\n|---|---|\n| 1 | 2 \\|\n", nil},
		{"bare pipe in code splits", "| a | b |\n|---|---|\n| `x|y` | 2 |\n", []tableProblem{{3, 3, 2}}},
		{"one cell too many", "| a | b |\n|---|---|\n| 1 | 2 |\n| `v` | 30 ms | bench |\n", []tableProblem{{4, 3, 2}}},
		{"one cell short", "| a | b | c |\n|---|---|---|\n| 1 | 2 |\n", []tableProblem{{3, 2, 3}}},
		{"empty cells count", "| a | b |\n|---|---|\n|  |  |\n", nil},
		{"delimiter row disagrees", "| a | b |\n|---|\n| 1 | 2 |\n", []tableProblem{{1, 2, 0}, {2, 1, 0}, {3, 2, 0}}},
		{"code block is no table", "```\n| a | b |\n|---|\n| 1 |\n```\n", nil},
		{"pipe in prose", "a | b is fine\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tableProblems([]byte(tc.md))
			if len(got) != len(tc.want) {
				t.Fatalf("%q: %+v, want %+v", tc.md, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("%q: %+v, want %+v", tc.md, got, tc.want)
				}
			}
		})
	}
}
