package labkit

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/labhub/labmate/content"
)

// Named predicates: a lab (lab.toml's [predicates]) and a step
// ([steps.predicates]) define a CEL expression once, by name, and the
// rules, witnesses and values of their checks read it as a variable of
// that name. A step's predicates may read the lab's; the lab's read none.
//
// A predicate is declared to CEL as a variable of the type it compiles
// to, not expanded as a macro: so an error in it is placed at its
// definition, once, and an error in an expression that uses it at that
// expression. It is compiled where it is defined, in an environment that
// sees every variable (object, file, cluster), so a lab with a predicate
// that does not compile does not load, even unused; and again where it
// is used, with the variables the using check's type sees (a predicate
// that reads cluster cannot be used by a manifest check). It is
// evaluated lazily, when the expression reads it, on the same object,
// file and cluster, and an absent field inside it is an absence of the
// whole expression: a rule that names a predicate decides exactly as the
// rule with the predicate written out.

var predicateNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]*$`) })

// celReserved are names CEL keeps for itself or its macros and
// functions a predicate must not hide.
var celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
	"function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
	"has", "all", "exists", "exists_one", "map", "filter", "cel", "int", "uint", "double", "bool", "string",
	"bytes", "list", "map", "type", "dyn", "duration", "timestamp", "size", "matches", "optional"}

// predicate is one named expression of the lab or of a step.
type predicate struct {
	name, src string
	// at is where lab.toml defines it, key the path it is defined at
	// ("predicates.NAME", "steps.0.predicates.NAME").
	at  content.Span
	key string
	// sees are the predicates it may read: the lab's, for a step's.
	sees []*predicate
	// bound are its compilations, by the variables of the environment.
	bound map[string]*boundPred
}

// boundPred is a predicate compiled in one environment.
type boundPred struct {
	p     *predicate
	prg   cel.Program
	typ   *cel.Type
	kinds []string
	deps  []*boundPred // the lab's predicates a step's reads
	err   error
}

// predicatesOf are the predicates defined by defs at key ("predicates",
// "steps.I.predicates"), sorted by name, each seeing sees, with the
// problems of their names.
func predicatesOf(text *content.Lab, defs map[string]string, key string, sees []*predicate) ([]*predicate, []*fault) {
	var out []*predicate
	var probs []*fault
	for name, src := range defs {
		p := &predicate{name: name, src: src, key: key + "." + name, at: text.PredicatesAt[key+"."+name], sees: sees, bound: map[string]*boundPred{}}
		switch {
		case !predicateNameRE().MatchString(name) || slices.Contains(celReserved, name):
			probs = append(probs, predicateProblem(text, p, "labkit.predicate.bad_name", "name", name))
			continue
		case slices.Contains(celVarNames, name):
			probs = append(probs, predicateProblem(text, p, "labkit.predicate.shadows_var", "name", name))
			continue
		case slices.ContainsFunc(sees, func(o *predicate) bool { return o.name == name }):
			probs = append(probs, predicateProblem(text, p, "labkit.predicate.shadows_lab", "name", name))
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *predicate) int { return strings.Compare(a.name, b.name) })
	return out, probs
}

// checkPredicates compiles each predicate where it is defined, with
// every variable: an error is a problem at its definition's line.
func checkPredicates(text *content.Lab, ps []*predicate) []*fault {
	var probs []*fault
	for _, p := range ps {
		if bp := p.bind(celVarNames); bp.err != nil {
			probs = append(probs, predicateProblem(text, p, "labkit.predicate.bad", "name", p.name, "err", bp.err))
		}
	}
	return probs
}

func predicateProblem(text *content.Lab, p *predicate, key string, kv ...any) *fault {
	return faultAt(text.Where+"/lab.toml", p.at, key, kv...)
}

// bind compiles the predicate for an environment of vars, once.
func (p *predicate) bind(vars []string) *boundPred {
	key := strings.Join(vars, ",")
	if bp, ok := p.bound[key]; ok {
		return bp
	}
	bp := &boundPred{p: p}
	p.bound[key] = bp
	env, deps, err := envFor(p.src, vars, p.sees)
	if err != nil {
		bp.err = err
		return bp
	}
	ast, iss := env.Compile(p.src)
	if iss != nil && iss.Err() != nil {
		bp.err = iss.Err()
		return bp
	}
	prg, err := env.Program(ast, cel.CostLimit(celCostLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		bp.err = err
		return bp
	}
	bp.prg, bp.typ, bp.deps = prg, ast.OutputType(), deps
	bp.kinds = clusterKinds(ast)
	for _, d := range deps {
		bp.kinds = appendNew(bp.kinds, d.kinds...)
	}
	return bp
}

// envFor is the environment of an expression src that sees vars and may
// read the predicates visible: the variables' environment with the
// predicates src names declared as variables, and those predicates
// compiled in it. A predicate src names that does not compile there is
// the error, naming the predicate and its line.
func envFor(src string, vars []string, visible []*predicate) (*cel.Env, []*boundPred, error) {
	env, err := celEnv(vars)
	if err != nil || len(visible) == 0 {
		return env, nil, err
	}
	parsed, iss := env.Parse(src)
	if iss != nil && iss.Err() != nil {
		return env, nil, nil // Compile says what is wrong with it
	}
	named := map[string]bool{}
	for _, n := range celast.MatchDescendants(celast.NavigateAST(parsed.NativeRep()), celast.KindMatcher(celast.IdentKind)) {
		named[n.AsIdent()] = true
	}
	var used []*boundPred
	var decls []cel.EnvOption
	for _, p := range visible {
		if !named[p.name] {
			continue
		}
		bp := p.bind(vars)
		if bp.err != nil {
			return nil, nil, &celError{msg: msgf("labkit.predicate.not_here", "name", p.name, "line", p.at.Line, "err", bp.err)}
		}
		used = append(used, bp)
		decls = append(decls, cel.Variable(p.name, bp.typ))
	}
	if len(decls) == 0 {
		return env, nil, nil
	}
	env, err = env.Extend(decls...)
	return env, used, err
}

// bindLazily sets each predicate in act as a value computed when an
// expression first reads it, on act itself (the same object, file and
// cluster, and the predicates it reads in turn).
func bindLazily(act map[string]any, preds []*boundPred) {
	for _, bp := range preds {
		if _, ok := act[bp.p.name]; ok {
			continue
		}
		bindLazily(act, bp.deps)
		var (
			once sync.Once
			val  ref.Val
		)
		act[bp.p.name] = func() ref.Val {
			once.Do(func() {
				out, _, err := bp.prg.Eval(act)
				switch {
				case out != nil:
					val = out
				case err != nil:
					val = types.WrapErr(err)
				default:
					val = types.NullValue
				}
			})
			return val
		}
	}
}

func appendNew(to []string, add ...string) []string {
	for _, k := range add {
		if !slices.Contains(to, k) {
			to = append(to, k)
		}
	}
	return to
}
