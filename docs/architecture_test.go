// Package docs holds no code; its test keeps docs/ARCHITECTURE.md true.
package docs

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/labhub/labmate"

// modulePackages lists every package of the module with the module's own
// packages it imports directly, as `go list` sees them, internal helpers
// left out of the imports.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	return listPackages(t, false)
}

// modulePackagesAll is modulePackages with the internal helpers among
// the imports.
func modulePackagesAll(t *testing.T) map[string][]string {
	t.Helper()
	return listPackages(t, true)
}

func listPackages(t *testing.T, internal bool) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok && (internal || !isInternal(rel)) {
				own = append(own, rel)
			}
		}
		slices.Sort(own)
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = own
	}
	return pkgs
}

// isInternal: an internal helper. Each has its own row, but the imports
// cells leave them out, so a row says what a package depends on, not which
// small helpers it borrows.
func isInternal(rel string) bool {
	return strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/")
}

// unlisted: the module root and this package hold no code of their own.
func unlisted(rel string) bool { return rel == "" || rel == "docs" }

// tableRow is one row of the package table: the package and the module
// packages its "imports" cell names in backticks.
type tableRow struct {
	line    int
	imports []string
}

func packageTable(t *testing.T) map[string]tableRow {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]tableRow{}
	sc := bufio.NewScanner(f)
	inTable := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "| package |") {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		pkgs := backticked(cells[0])
		if len(pkgs) != 1 {
			t.Errorf("ARCHITECTURE.md:%d: one package per row, got %q", n, cells[0])
			continue
		}
		imps := backticked(cells[2])
		slices.Sort(imps)
		rows[pkgs[0]] = tableRow{line: n, imports: imps}
	}
	if len(rows) == 0 {
		t.Fatal("ARCHITECTURE.md has no package table (a header row starting with \"| package |\")")
	}
	return rows
}

func backticked(s string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(s, "`")
		if !ok {
			return out
		}
		word, after, ok := strings.Cut(rest, "`")
		if !ok {
			return out
		}
		out = append(out, word)
		s = after
	}
}

// TestArchitectureTableMatchesImports: every package of the module,
// internal helpers included, has a row, every row is a package, and a row's imports cell names exactly the
// module packages the package imports (external libraries are written
// without backticks).
func TestArchitectureTableMatchesImports(t *testing.T) {
	pkgs := modulePackages(t)
	rows := packageTable(t)
	for pkg, own := range pkgs {
		if unlisted(pkg) {
			continue
		}
		row, ok := rows[pkg]
		if !ok {
			t.Errorf("ARCHITECTURE.md: no row for package %s (imports %v)", pkg, own)
			continue
		}
		if !slices.Equal(row.imports, own) {
			t.Errorf("ARCHITECTURE.md:%d: %s imports %v, the table says %v", row.line, pkg, own, row.imports)
		}
	}
	for pkg, row := range rows {
		if _, ok := pkgs[pkg]; !ok {
			t.Errorf("ARCHITECTURE.md:%d: %s is not a package of the module", row.line, pkg)
		}
	}
}
