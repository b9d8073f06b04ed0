// Package keyscan finds the message keys a package's Go sources use, for
// the tests that keep every key defined.
package keyscan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Keys returns every string literal in the non-test Go sources of
// dir that keyLike matches, with where it is.
func Keys(tb testing.TB, dir string, keyLike *regexp.Regexp) map[string]token.Position {
	tb.Helper()
	srcs, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	fset := token.NewFileSet()
	keys := map[string]token.Position{}
	for _, src := range srcs {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, src, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && keyLike.MatchString(s) {
					keys[s] = fset.Position(lit.Pos())
				}
			}
			return true
		})
	}
	return keys
}
