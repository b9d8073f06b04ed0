package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
// test can: cmd/labmate is main.go and root.go; no command calls
// anything of the engine; a run is wired in one place, the factory's
// default construction (cli/factory's Session and Replay), besides lab
// verify's prover, whose sessions are proofs, not commands.
func TestCmdOnlyWires(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "cmd", "labmate", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range paths {
		if !strings.HasSuffix(p, "_test.go") {
			files = append(files, filepath.Base(p))
		}
	}
	if !slices.Equal(files, []string{"main.go", "root.go"}) {
		t.Errorf("cmd/labmate holds %v: it keeps main.go and the root (root.go); commands live in cli's command packages", files)
	}
	wiring := []string{"cmd/cli/factory/session.go", "cmd/cli/factory/factory.go", "labkit/verify/prover.go"}
	for file, cs := range calls(t, ".") {
		file = filepath.ToSlash(file)
		for _, c := range cs {
			switch {
			case c.pkg == "engine" && strings.HasPrefix(file, "cmd/"):
				t.Errorf("%s: %s calls engine.%s: a command runs a lab through labrun", c.at, file, c.name)
			case c.pkg == "labrun" && (c.name == "New" || c.name == "Replay") && !slices.Contains(wiring, file):
				t.Errorf("%s: labrun.%s outside %v: a run is wired in one place, the factory", c.at, c.name, wiring)
			}
		}
	}
}

// TestOnlyTheCatalogResolvesLabs: which lab a reference or a directory
// names, and which lab a root chose, is decided in catalog alone (one
// grammar for --lab); outside it only the packages that keep those
// things (labkit, labstore, state) and test helpers (internal/, a
// package named …test) touch them.
func TestOnlyTheCatalogResolvesLabs(t *testing.T) {
	resolving := map[string][]string{
		"labkit":   {"Open", "OpenDir"},
		"labstore": {"Find"},
		"state":    {"ChosenLab", "RememberLab", "Used"},
	}
	keepers := []string{"catalog", "labkit", "labstore", "state"}
	for file, cs := range calls(t, ".") {
		pkg := filepath.ToSlash(filepath.Dir(file))
		if slices.Contains(keepers, pkg) || strings.HasPrefix(pkg, "internal/") || strings.HasSuffix(pkg, "test") {
			continue
		}
		for _, c := range cs {
			if slices.Contains(resolving[c.pkg], c.name) {
				t.Errorf("%s: %s.%s outside catalog: name and open labs through catalog (Locate, Open, Resolve)", c.at, c.pkg, c.name)
			}
		}
	}
}

// TestOneWayToTheLabRoot: the lab root in effect is chosen in one place,
// catalog.Query.RootOf (the flag, $LABMATE_ROOT, the settings file's
// [roots], labroot.Choose for the rest): no command, the TUI or doctor
// chooses one or reads $LABMATE_ROOT itself.
func TestOneWayToTheLabRoot(t *testing.T) {
	for file, cs := range calls(t, ".") {
		pkg := filepath.ToSlash(filepath.Dir(file))
		for _, c := range cs {
			if c.pkg == "labroot" && c.name == "Choose" && pkg != "catalog" {
				t.Errorf("%s: labroot.Choose outside catalog: ask the factory's RootFor (catalog.Query.RootOf)", c.at)
			}
		}
	}
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("..", p)
		dir := filepath.ToSlash(filepath.Dir(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := string(b)
		if strings.Contains(src, `"LABMATE_ROOT"`) && dir != "labroot" {
			t.Errorf("%s names LABMATE_ROOT: the environment is read by catalog through labroot.EnvRoot", rel)
		}
		// clitest.Main unsets it so that no test's root is the machine's.
		if strings.Contains(src, "labroot.EnvRoot") && dir != "catalog" && dir != "cmd/cli/clitest" {
			t.Errorf("%s reads labroot.EnvRoot: the root is chosen in catalog", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// commandPackages are the command packages (cmd/cli/<x>cmd): each builds
// its commands from the factory.
func commandPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	for pkg := range modulePackages(t) {
		if strings.HasPrefix(pkg, "cmd/cli/") && strings.HasSuffix(pkg, "cmd") {
			out = append(out, pkg)
		}
	}
	slices.Sort(out)
	if len(out) < 9 {
		t.Fatalf("%d command packages under cmd/cli/, want every command's (at least 9): %v", len(out), out)
	}
	return out
}

// parsePackage parses the non-test Go files of a package directory.
func parsePackage(t *testing.T, fset *token.FileSet, pkg string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(pkg), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestEveryCommandPackageBuildsFromTheFactory: every command package
// exposes NewCmd(f cli.Factory, streams cli.Streams), and the root adds
// each one's, so every command gets what it works on from the one
// factory the flag groups build.
func TestEveryCommandPackageBuildsFromTheFactory(t *testing.T) {
	fset := token.NewFileSet()
	root, err := os.ReadFile(filepath.Join("..", "cmd", "labmate", "root.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range commandPackages(t) {
		name := pkg[strings.LastIndexByte(pkg, '/')+1:]
		found := false
		for _, f := range parsePackage(t, fset, pkg) {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || fn.Name.Name != "NewCmd" {
					continue
				}
				found = true
				params := fn.Type.Params.List
				var types []string
				for _, p := range params {
					for range max(len(p.Names), 1) {
						types = append(types, typesString(p.Type))
					}
				}
				if !slices.Equal(types, []string{"cli.Factory", "cli.Streams"}) {
					t.Errorf("%s: %s.NewCmd takes %v, want (f cli.Factory, streams cli.Streams)", fset.Position(fn.Pos()), name, types)
				}
			}
		}
		if !found {
			t.Errorf("command package %s has no NewCmd(f, streams)", pkg)
		}
		if !strings.Contains(string(root), name+".NewCmd(f, streams)") {
			t.Errorf("cmd/labmate/root.go does not add %s.NewCmd(f, streams)", name)
		}
	}
}

func typesString(e ast.Expr) string { return types.ExprString(e) }

// options are the types of the command packages that implement
// cli.Options: a Complete, Validate and Run method each.
type options struct {
	pkg, name string
	methods   map[string]*ast.FuncDecl
}

// commandOptions lists every type of the command packages with a Run
// method, and its methods.
func commandOptions(t *testing.T, fset *token.FileSet) []options {
	t.Helper()
	var out []options
	for _, pkg := range commandPackages(t) {
		byType := map[string]map[string]*ast.FuncDecl{}
		for _, f := range parsePackage(t, fset, pkg) {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil {
					continue
				}
				recv := fn.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok {
					continue
				}
				if byType[id.Name] == nil {
					byType[id.Name] = map[string]*ast.FuncDecl{}
				}
				byType[id.Name][fn.Name.Name] = fn
			}
		}
		for name, methods := range byType {
			if methods["Run"] != nil {
				out = append(out, options{pkg: pkg, name: name, methods: methods})
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("%d command options found, want every command's (at least 20): the test reads nothing", len(out))
	}
	return out
}

// TestEveryOptionsCompletesValidatesAndRuns: a command's options have
// kubectl's steps, Complete(f, cmd, args) error and Run(ctx) error (what
// Run returns is turned into text and an exit code in one place,
// cli.Execute), and a Validate() error when, and only when, there is
// something to refuse: a Validate that only returns nil is not written.
func TestEveryOptionsCompletesValidatesAndRuns(t *testing.T) {
	fset := token.NewFileSet()
	want := map[string]string{
		"Complete": "func(cli.Factory, *cobra.Command, []string) error",
		"Validate": "func() error",
		"Run":      "func(context.Context) error",
	}
	for _, o := range commandOptions(t, fset) {
		for m, sig := range want {
			fn := o.methods[m]
			if fn == nil {
				if m != "Validate" {
					t.Errorf("%s.%s has no %s: every command's options complete and run", o.pkg, o.name, m)
				}
				continue
			}
			if got := signature(fn.Type); got != sig {
				t.Errorf("%s: %s.%s is %s, want %s", fset.Position(fn.Pos()), o.name, m, got, sig)
			}
		}
		if v := o.methods["Validate"]; v != nil && v.Body != nil && len(v.Body.List) == 1 {
			if r, ok := v.Body.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 && types.ExprString(r.Results[0]) == "nil" {
				t.Errorf("%s: %s.Validate has nothing to refuse: leave it out", fset.Position(v.Pos()), o.name)
			}
		}
	}
}

// interactive are what starts something, asks the learner or reaches a
// cluster: Complete calls none of them (directly or through its
// options' own methods); Run does.
var interactive = map[string][]string{
	"cli":     {"PickLab"},
	"sandbox": {"Up", "Down", "Build", "Status", "Reset"},
	"labrun":  {"New", "Replay", "Exact"},
	"report":  {"FromTrace", "Build"},
	"verify":  {"Run", "Watch"},
	"doctor":  {"Run"},
}

// interactiveMethods are the methods of the factory, a prompter, a
// session or a run that start or ask something.
var interactiveMethods = []string{"PickLab", "Session", "State", "Start", "Once", "Join", "Admin", "Cluster", "Replay", "RememberLab"}

// TestCompleteStartsNothing: Complete finds what the command works on
// and starts nothing: no picker or other program on the terminal (no
// call into tui/), no run, no session or state opened, no cluster
// reached, no sandbox started. The lab picker is the factory's Prompter,
// called in Run.
func TestCompleteStartsNothing(t *testing.T) {
	fset := token.NewFileSet()
	for _, o := range commandOptions(t, fset) {
		fn := o.methods["Complete"]
		if fn == nil {
			continue
		}
		imports := packageImports(t, fset, o.pkg)
		seen := map[string]bool{}
		var check func(fn *ast.FuncDecl)
		check = func(fn *ast.FuncDecl) {
			if seen[fn.Name.Name] || fn.Body == nil {
				return
			}
			seen[fn.Name.Name] = true
			var recv string
			if len(fn.Recv.List[0].Names) > 0 {
				recv = fn.Recv.List[0].Names[0].Name
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, _ := sel.X.(*ast.Ident)
				name := sel.Sel.Name
				switch pkg := ""; {
				case x != nil && x.Name == recv && o.methods[name] != nil:
					check(o.methods[name])
				case x != nil && imports[x.Name] != "":
					pkg = imports[x.Name]
					if pkg == "tui" || strings.HasPrefix(pkg, "tui/") || slices.Contains(interactive[pkg[strings.LastIndexByte(pkg, '/')+1:]], name) {
						t.Errorf("%s: %s.Complete calls %s.%s: Complete starts nothing; do it in Run", fset.Position(c.Pos()), o.name, pkg, name)
					}
				case slices.Contains(interactiveMethods, name):
					t.Errorf("%s: %s.Complete calls %s: Complete starts nothing; do it in Run", fset.Position(c.Pos()), o.name, types.ExprString(c.Fun))
				}
				return true
			})
		}
		check(fn)
	}
}

// packageImports are a package's imports of the module by local name.
func packageImports(t *testing.T, fset *token.FileSet, pkg string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range parsePackage(t, fset, pkg) {
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
			out[name] = rel
		}
	}
	return out
}

// flagNames are the flag names bound in a package's non-test files, as
// the literal name argument of a pflag binding, split into the ones bound
// on a PersistentFlags() set and the rest; each with where. A set is
// known by its expression, or by a variable of the same function given
// one.
func flagNames(t *testing.T, fset *token.FileSet, pkg string) (persistent, local map[string]token.Position) {
	t.Helper()
	persistent, local = map[string]token.Position{}, map[string]token.Position{}
	binds := regexp.MustCompile(`^(Var|VarP|(String|Bool|Int|Duration|StringSlice|IntSlice|StringArray)(Var)?P?)$`)
	for _, f := range parsePackage(t, fset, pkg) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			persistentSets := map[string]bool{} // this function's variables holding PersistentFlags()
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
					if id, ok := as.Lhs[0].(*ast.Ident); ok && strings.Contains(types.ExprString(as.Rhs[0]), "PersistentFlags()") {
						persistentSets[id.Name] = true
					}
				}
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := c.Fun.(*ast.SelectorExpr)
				if !ok || !binds.MatchString(sel.Sel.Name) {
					return true
				}
				for _, a := range c.Args {
					lit, ok := a.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					name, _ := strconv.Unquote(lit.Value)
					set := types.ExprString(sel.X)
					if strings.Contains(set, "PersistentFlags()") || persistentSets[set] {
						persistent[name] = fset.Position(lit.Pos())
					} else {
						local[name] = fset.Position(lit.Pos())
					}
					break
				}
				return true
			})
		}
	}
	return persistent, local
}

// TestNoLocalFlagShadowsAPersistentOne: a flag is bound once. No command
// binds a flag of the name of one the root binds for every command
// (cli's flag groups) or its own group binds for its subcommands: a
// command that gives such a flag a meaning of its own reads it from the
// factory and words it in its help (cli.Reads), as the class's
// instructor commands read --kubeconfig, --context and --lab.
func TestNoLocalFlagShadowsAPersistentOne(t *testing.T) {
	fset := token.NewFileSet()
	root, _ := flagNames(t, fset, "cmd/cli")
	if len(root) < 8 {
		t.Fatalf("the root binds %d flags for every command: the test reads nothing", len(root))
	}
	for _, pkg := range commandPackages(t) {
		group, local := flagNames(t, fset, pkg)
		for name, at := range local {
			if _, ok := root[name]; ok {
				t.Errorf("%s: %s binds --%s, which the root binds for every command: read the root's (cli.Reads)", at, pkg, name)
			}
			if _, ok := group[name]; ok {
				t.Errorf("%s: %s binds --%s, which its group binds for every subcommand", at, pkg, name)
			}
		}
		for name, at := range group {
			if _, ok := root[name]; ok {
				t.Errorf("%s: %s binds --%s for its subcommands, which the root binds for every command", at, pkg, name)
			}
		}
	}
}

// opened are the functions that open a connection to a cluster from a
// kubeconfig.
var opened = map[string][]string{"kube": {"Open", "ForConfig"}}

// TestOnlyTheFactoryOpensConnections: the connections a command line
// uses (the lab cluster, the instructor's, a learner's class file) are
// opened by the factory's default construction alone (cli/factory,
// named as a function or called), from the root's flags; a command, and
// every package below, is handed one. The one other door is the
// sandbox's to the cluster it made itself (sandbox.Connect); a test
// helper (a package named …test) may open what a test needs.
func TestOnlyTheFactoryOpensConnections(t *testing.T) {
	allowed := []string{"cmd/cli/factory/factory.go", "sandbox/cluster.go"}
	helper := func(rel string) bool { return strings.HasSuffix(filepath.Dir(rel), "test") } // a test helper package
	found := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || p == filepath.Join("..", "kube")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]string{}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(path, module+"/"); ok {
				name := rel[strings.LastIndexByte(rel, '/')+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = rel
			}
		}
		rel, _ := filepath.Rel("..", p)
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || !slices.Contains(opened[names[id.Name]], sel.Sel.Name) {
				return true
			}
			found++
			if !slices.Contains(allowed, rel) && !helper(rel) {
				t.Errorf("%s: %s opens a connection (%s.%s): take one from the factory (cli.Factory's Cluster, Admin, Learner)",
					fset.Position(sel.Pos()), rel, names[id.Name], sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 2 {
		t.Fatalf("%d references to kube.Open found: the test reads nothing", found)
	}
}

// signature is a function type as "func(T1, T2) R", parameter names
// dropped.
func signature(ft *ast.FuncType) string {
	var params, results []string
	for _, p := range ft.Params.List {
		for range max(len(p.Names), 1) {
			params = append(params, types.ExprString(p.Type))
		}
	}
	if ft.Results != nil {
		for _, r := range ft.Results.List {
			for range max(len(r.Names), 1) {
				results = append(results, types.ExprString(r.Type))
			}
		}
	}
	s := "func(" + strings.Join(params, ", ") + ")"
	switch len(results) {
	case 0:
	case 1:
		s += " " + results[0]
	default:
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// pureCalls are the calls a Validate may make: wording a refusal and
// reading values, nothing that opens, writes, connects or starts.
var pureCalls = map[string][]string{
	"cli":     {"UsageErr", "Exit"},
	"content": {"Msg"},
	"strings": nil, "errors": nil, "slices": nil, "strconv": nil, "fmt": {"Sprint", "Sprintf", "Errorf"},
	"prebuilt": {"CheckDigest"}, // is a value a sha256 (sandbox up --sha256)
}

// TestValidateHasNoSideEffects: every Validate, and every method of its
// options it calls, calls only what words a refusal or reads a value
// (pureCalls), its options' fields' own methods aside from none: no
// factory, no file, no cluster.
func TestValidateHasNoSideEffects(t *testing.T) {
	fset := token.NewFileSet()
	for _, o := range commandOptions(t, fset) {
		fn := o.methods["Validate"]
		if fn == nil {
			continue
		}
		seen := map[string]bool{}
		var check func(fn *ast.FuncDecl)
		check = func(fn *ast.FuncDecl) {
			if seen[fn.Name.Name] {
				return
			}
			seen[fn.Name.Name] = true
			recv := fn.Recv.List[0].Names[0].Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch f := c.Fun.(type) {
				case *ast.Ident: // a builtin (len, max) or a conversion
					if f.Name != "len" && f.Name != "max" && f.Name != "min" {
						t.Errorf("%s: %s.Validate calls %s", fset.Position(c.Pos()), o.name, f.Name)
					}
				case *ast.SelectorExpr:
					x, ok := f.X.(*ast.Ident)
					switch {
					case ok && x.Name == recv && o.methods[f.Sel.Name] != nil:
						check(o.methods[f.Sel.Name]) // the options' own method: held to the same
					case f.Sel.Name == "Error" && len(c.Args) == 0: // an error's words
					case ok && pureCalls[x.Name] != nil && slices.Contains(pureCalls[x.Name], f.Sel.Name),
						ok && slices.Contains([]string{"strings", "errors", "slices", "strconv"}, x.Name):
					default:
						t.Errorf("%s: %s.Validate calls %s: Validate refuses with no side effects; read and connect in Complete or Run",
							fset.Position(c.Pos()), o.name, types.ExprString(c.Fun))
					}
				}
				return true
			})
		}
		check(fn)
	}
}

// TestNoDomainPackageImportsTheTUIOrACommand: the arrows point one way.
// Command packages (cmd/) stand above the domain, the TUI above
// the domain too: no domain package imports either, and the TUI imports
// no command package.
func TestNoDomainPackageImportsTheTUIOrACommand(t *testing.T) {
	for pkg, imports := range modulePackages(t) {
		top := pkg
		if i := strings.IndexByte(pkg, '/'); i >= 0 {
			top = pkg[:i]
		}
		for _, imp := range imports {
			switch {
			case top == "cmd":
			case strings.HasPrefix(imp, "cmd/"):
				t.Errorf("%s imports the command package %s: commands stand above everything they use", pkg, imp)
			case top != "tui" && (imp == "tui" || strings.HasPrefix(imp, "tui/")):
				t.Errorf("%s imports %s: no domain package imports the TUI", pkg, imp)
			}
		}
	}
}

// TestFoldersStandInFloors: the top-level folders, with the packages
// each holds, import one another without a loop, so each stands above
// all it imports (no import runs back up), and internal/ holds only
// leaves: its packages import nothing of the module outside internal/.
func TestFoldersStandInFloors(t *testing.T) {
	pkgs := modulePackagesAll(t)
	top := func(p string) string {
		if i := strings.IndexByte(p, '/'); i >= 0 {
			return p[:i]
		}
		return p
	}
	edges := map[string]map[string]bool{}
	for pkg, imports := range pkgs {
		from := top(pkg)
		for _, imp := range imports {
			if from == "internal" && top(imp) != "internal" {
				t.Errorf("internal package %s imports %s: internal holds only leaves", pkg, imp)
			}
			if to := top(imp); to != from {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][to] = true
			}
		}
	}
	// Depth-first search for a loop of folders.
	state := map[string]int{} // 1 on the path, 2 done
	var path []string
	var visit func(n string)
	visit = func(n string) {
		state[n] = 1
		path = append(path, n)
		for m := range edges[n] {
			switch state[m] {
			case 0:
				visit(m)
			case 1:
				i := slices.Index(path, m)
				t.Errorf("a loop of folders: %s -> %s: an import runs back up", strings.Join(path[i:], " -> "), m)
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
	}
	names := make([]string, 0, len(edges))
	for n := range edges {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if state[n] == 0 {
			visit(n)
		}
	}
	if len(edges) < 10 {
		t.Fatalf("%d folders with imports: the test reads nothing", len(edges))
	}
}

// TestClientsComeFromTheConnection: a Kubernetes client, discovery
// client, REST mapper or HTTP client for a cluster is made in kube alone
// (kube.Conn); every other package takes a connection.
func TestClientsComeFromTheConnection(t *testing.T) {
	makers := regexp.MustCompile(`^(New.*ForConfig.*|NewDiscoveryClient.*|NewDeferredDiscoveryRESTMapper|NewDiscoveryRESTMapper|NewMemCacheClient|HTTPClientFor|BuildConfigFromFlags|RESTClientFor|GetAPIGroupResources)$`)
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || p == filepath.Join("..", "kube")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		k8s := map[string]bool{} // local names of client-go and apimachinery packages
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(path, "k8s.io/") {
				continue
			}
			name := path[strings.LastIndexByte(path, '/')+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			k8s[name] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && k8s[id.Name] && makers.MatchString(sel.Sel.Name) {
					t.Errorf("%s: %s.%s makes a client outside kube: take a kube.Conn", fset.Position(c.Pos()), id.Name, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoWholeClientset: no package of the module, nor its tests, imports
// client-go's whole Clientset, its fake or the informer factory: each
// compiles a client, informer, lister and apply configuration for every
// API group (some 270 packages, a third of compiling labmate and again in
// every -race build). The groups labmate calls are kube's Interface;
// tests fake them with kube/kubefake.
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
			t.Errorf("%s is compiled into labmate or its tests: use kube.Interface (and kube/kubefake in tests)", p)
		}
	}
}

// goFiles parses the non-test Go files under dir (relative to the module
// root) and calls fn with each file's path relative to the root.
func goFiles(t *testing.T, dir string, fn func(rel string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join("..", dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) && p != filepath.Join("..", dir) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", p)
		fn(filepath.ToSlash(rel), f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOneXDGResolver: the XDG base directories are read in one place,
// internal/dirs (Base: the variable when it is an absolute path, else
// the home directory's default); nothing else reads an XDG_ variable
// (a test helper, a package named …test, may set one).
func TestOneXDGResolver(t *testing.T) {
	found := 0
	goFiles(t, ".", func(rel string, f *ast.File, fset *token.FileSet) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !strings.HasPrefix(lit.Value, `"XDG_`) {
				return true
			}
			found++
			if !strings.HasPrefix(rel, "internal/dirs/") && !strings.HasSuffix(filepath.Dir(rel), "test") {
				t.Errorf("%s: %s names %s: find labmate's directories with internal/dirs", fset.Position(lit.Pos()), rel, lit.Value)
			}
			return true
		})
	})
	if found < 4 {
		t.Fatalf("%d XDG variables named: the test reads nothing", found)
	}
}

// TestChecksWordThroughTheLab: what a check says goes through the lab's
// message lookup (checks.Lookup, Input.Msg), so a lab may reword any
// shared text; package checks never reads the shared catalogue itself,
// neither calling content.Msg nor handing it on.
func TestChecksWordThroughTheLab(t *testing.T) {
	files := 0
	goFiles(t, "checks", func(rel string, f *ast.File, fset *token.FileSet) {
		files++
		name := ""
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == module+"/content" {
				name = "content"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && (sel.Sel.Name == "Msg" || sel.Sel.Name == "HasMsg") {
				t.Errorf("%s: %s uses content.%s: word through the lab's lookup (Input.Msg, a checks.Lookup)", fset.Position(sel.Pos()), rel, sel.Sel.Name)
			}
			return true
		})
	})
	if files < 5 {
		t.Fatalf("%d files read under checks: the test reads nothing", files)
	}
}

// TestTheTUITakesTheCommandsStreams: every labmate program draws on and
// reads from the streams of the command that runs it (terminal.Context,
// made by the command); no package of tui/ reaches for the process's own
// stdin, stdout or stderr (a program's main, a demo, may hand them in).
func TestTheTUITakesTheCommandsStreams(t *testing.T) {
	goFiles(t, "tui", func(rel string, f *ast.File, fset *token.FileSet) {
		if f.Name.Name == "main" {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && slices.Contains([]string{"Stdin", "Stdout", "Stderr"}, sel.Sel.Name) {
				t.Errorf("%s: %s uses os.%s: take the command's streams (terminal.Context)", fset.Position(sel.Pos()), rel, sel.Sel.Name)
			}
			return true
		})
	})
}
