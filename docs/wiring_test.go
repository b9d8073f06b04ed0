package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// call is a call of a function of one of the module's packages, as the
// source spells it: the package's path in the module and the name.
type call struct {
	pkg, name string
	at        token.Position
}

// calls lists the calls of module packages' functions in the non-test Go
// files under dir (relative to the module root), by file.
func calls(t *testing.T, dir string) map[string][]call {
	t.Helper()
	out := map[string][]call{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join("..", dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != filepath.Join("..", dir) && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name -> package path in the module
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(path, module+"/")
			if !ok {
				continue
			}
			name := rel[strings.LastIndexByte(rel, '/')+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = rel
		}
		rel, _ := filepath.Rel("..", p)
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] != "" {
				out[rel] = append(out[rel], call{pkg: names[id.Name], name: sel.Sel.Name, at: fset.Position(c.Pos())})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no calls found under %s: the test reads nothing", dir)
	}
	return out
}

// TestCmdOnlyWires keeps ARCHITECTURE.md's "cmd only wires" true where a
// test can: cmd/labmate builds a run in one file (wire.go) and runs the
// engine never itself (it may name the engine's types, to print a
// report, but calls none of its functions).
func TestCmdOnlyWires(t *testing.T) {
	const wiring = "cmd/labmate/wire.go"
	for file, cs := range calls(t, "cmd/labmate") {
		for _, c := range cs {
			switch {
			case c.pkg == "engine":
				t.Errorf("%s: cmd/labmate calls engine.%s: a command runs a lab through labrun", c.at, c.name)
			case c.pkg == "labrun" && (c.name == "New" || c.name == "Replay") && file != wiring:
				t.Errorf("%s: labrun.%s outside %s: a run is wired in one place", c.at, c.name, wiring)
			}
		}
	}
}

// cmdFiles parses cmd/labmate's non-test Go files.
func cmdFiles(t *testing.T, fset *token.FileSet, mode parser.Mode) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "cmd", "labmate", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Go files in cmd/labmate: %v", err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestCmdImportsNoEngine: cmd/labmate does not even name the engine's
// types; what a run reports it prints through labrun/textout, so a
// command holds no report of its own to fold or judge.
func TestCmdImportsNoEngine(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range cmdFiles(t, fset, parser.ImportsOnly) {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == module+"/engine" {
				t.Errorf("%s imports engine: print a run's reports through labrun/textout", fset.Position(imp.Pos()))
			}
		}
	}
}

// TestOnlyTheCatalogResolvesLabs: which lab a reference or a directory
// names, and which lab a root chose, is decided in catalog alone (one
// grammar for --lab); outside it only the packages that keep those
// things (labkit, labstore, state) and test helpers touch them.
func TestOnlyTheCatalogResolvesLabs(t *testing.T) {
	resolving := map[string][]string{
		"labkit":   {"Open", "OpenDir"},
		"labstore": {"Find"},
		"state":    {"ChosenLab", "RememberLab", "Used"},
	}
	keepers := []string{"catalog", "labkit", "labstore", "state"}
	for file, cs := range calls(t, ".") {
		pkg := filepath.ToSlash(filepath.Dir(file))
		if slices.Contains(keepers, pkg) || strings.HasPrefix(pkg, "internal/") {
			continue
		}
		for _, c := range cs {
			if slices.Contains(resolving[c.pkg], c.name) {
				t.Errorf("%s: %s.%s outside catalog: name and open labs through catalog (Locate, Open, Resolve)", c.at, c.pkg, c.name)
			}
		}
	}
}

// TestOnlyLabrunMakesEngines: an engine is made (engine.New) in labrun
// alone, so a live run, a replay, an exact evaluation of a trace and the
// mutation proof's replay of what it observed evaluate one way.
func TestOnlyLabrunMakesEngines(t *testing.T) {
	for file, cs := range calls(t, ".") {
		if pkg := filepath.ToSlash(filepath.Dir(file)); pkg == "labrun" || pkg == "engine" {
			continue
		}
		for _, c := range cs {
			if c.pkg == "engine" && c.name == "New" {
				t.Errorf("%s: engine.New outside labrun: evaluate through labrun (New, Replay, Exact, Forks)", c.at)
			}
		}
	}
}

// TestCmdKeepsOnlyCommandsThatNeedCommon: a command stays in cmd/labmate
// only when it needs the flags every lab-reading command shares (common)
// or the run they wire; one that does not lives in a command package
// next to what it drives (class/classcmd, catalog/labcmd,
// sandbox/sandboxcmd). So every newXCmd here but the root takes *common,
// and every xOptions struct embeds it.
func TestCmdKeepsOnlyCommandsThatNeedCommon(t *testing.T) {
	fset := token.NewFileSet()
	isCommon := func(e ast.Expr) bool {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		id, ok := star.X.(*ast.Ident)
		return ok && id.Name == "common"
	}
	commands := 0
	for _, f := range cmdFiles(t, fset, parser.SkipObjectResolution) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil || !strings.HasPrefix(name, "new") || !strings.HasSuffix(name, "Cmd") || name == "newRootCmd" {
					continue
				}
				commands++
				if !slices.ContainsFunc(d.Type.Params.List, func(f *ast.Field) bool { return isCommon(f.Type) }) {
					t.Errorf("%s: %s takes no *common: a command that needs none of the shared flags belongs in a command package (NewCmd)", fset.Position(d.Pos()), name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !strings.HasSuffix(ts.Name.Name, "Options") {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					if !slices.ContainsFunc(st.Fields.List, func(f *ast.Field) bool { return len(f.Names) == 0 && isCommon(f.Type) }) {
						t.Errorf("%s: %s does not embed *common: a command that needs none of the shared flags belongs in a command package", fset.Position(ts.Pos()), ts.Name.Name)
					}
				}
			}
		}
	}
	if commands == 0 {
		t.Fatal("no newXCmd in cmd/labmate: the test reads nothing")
	}
}

// TestCommandPackagesOpenNoRun: a command package (a directory named
// …cmd outside cmd/) builds commands that need no run of a lab, so it
// imports neither the engine nor labrun, nor anything of cmd/.
func TestCommandPackagesOpenNoRun(t *testing.T) {
	found := 0
	for pkg, imports := range modulePackages(t) {
		if !strings.HasSuffix(pkg[strings.LastIndexByte(pkg, '/')+1:], "cmd") || strings.HasPrefix(pkg, "cmd/") {
			continue
		}
		found++
		for _, imp := range imports {
			if imp == "engine" || imp == "labrun" || strings.HasPrefix(imp, "labrun/") || strings.HasPrefix(imp, "cmd/") {
				t.Errorf("command package %s imports %s: a command that runs a lab is wired in cmd/labmate", pkg, imp)
			}
		}
	}
	if found < 3 {
		t.Fatalf("%d command packages found, want at least class/classcmd, catalog/labcmd and sandbox/sandboxcmd", found)
	}
}

// TestEveryOptionsRunReturnsTheExitCode: a command's options (a type
// named …Options with a Run method, in cmd/labmate or a command package)
// end in Run returning the exit code, the one shape ARCHITECTURE.md
// promises, so a command's exit is decided in one place.
func TestEveryOptionsRunReturnsTheExitCode(t *testing.T) {
	fset := token.NewFileSet()
	runs := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		dir := filepath.Base(filepath.Dir(p))
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
			!(strings.HasPrefix(p, filepath.Join("..", "cmd")) || strings.HasSuffix(dir, "cmd")) {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Run" {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); !ok || !strings.HasSuffix(id.Name, "Options") {
				continue
			}
			runs++
			res := fn.Type.Results
			if res == nil || len(res.List) != 1 || len(res.List[0].Names) > 1 {
				t.Errorf("%s: Run returns no single value: it returns the exit code (int)", fset.Position(fn.Pos()))
				continue
			}
			if id, ok := res.List[0].Type.(*ast.Ident); !ok || id.Name != "int" {
				t.Errorf("%s: Run returns %s, want the exit code (int)", fset.Position(fn.Pos()), types.ExprString(res.List[0].Type))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs < 10 {
		t.Fatalf("%d Options.Run methods found, want every command's (at least 10): the test reads nothing", runs)
	}
}

// TestNoWholeClientset: no package of the module, nor its tests, imports
// client-go's whole Clientset, its fake or the informer factory: each
// compiles a client, informer, lister and apply configuration for every
// API group (some 270 packages, a third of compiling labmate and again in
// every -race build). The groups labmate calls are internal/kubeclient's
// Interface; tests fake them with internal/kubeclient/kubefake.
func TestNoWholeClientset(t *testing.T) {
	whole := []string{"k8s.io/client-go/kubernetes", "k8s.io/client-go/kubernetes/fake",
		"k8s.io/client-go/informers", "k8s.io/client-go/dynamic/dynamicinformer"}
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}}", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if slices.Contains(whole, p) {
			t.Errorf("%s is compiled into labmate or its tests: use internal/kubeclient (and kubefake in tests)", p)
		}
	}
}
