package labkit

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celcommon "github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/observe"
)

// Conditions on objects are CEL (the expression language of Kubernetes'
// CRD validation rules and ValidatingAdmissionPolicy), compiled once when
// the lab loads, with a cost limit so no expression can run away. An
// expression sees, as its check type's Vars say:
//
//	object   the object under check (a manifest decoded from its file, or
//	         a live object), as Kubernetes JSON: object.spec.nodeName
//	file     for a live-object check with `file`, the learner's manifest
//	cluster  the live objects labmate watches: cluster.get(kind, namespace,
//	         name), cluster.node(name) (null when absent) and
//	         cluster.list(kind, namespace) (sorted by name)
//
// plus CEL's standard library, its strings extension, optional values
// (m[?'key'].orValue('')) and list.sum() for integers.

// celVarNames are the variables an expression may see, in the order an
// error names the ones its type does not.
var celVarNames = []string{"object", "file", "cluster"}

// celCostLimit bounds one evaluation (CEL's cost units; a rule over a
// few objects costs hundreds).
const celCostLimit = 1_000_000

// clusterType is the type of the `cluster` variable.
var clusterType = cel.OpaqueType("labmate.Cluster")

var (
	celEnvsMu sync.Mutex
	celEnvs   = map[string]*cel.Env{} // by their variables, joined
)

// celEnv is the CEL environment with the variables vars, made once.
func celEnv(vars []string) (*cel.Env, error) {
	celEnvsMu.Lock()
	defer celEnvsMu.Unlock()
	key := strings.Join(vars, ",")
	if env, ok := celEnvs[key]; ok {
		return env, nil
	}
	var opts []cel.EnvOption
	for _, n := range vars {
		t := cel.DynType
		if n == "cluster" {
			t = clusterType
		}
		opts = append(opts, cel.Variable(n, t))
	}
	env, err := cel.NewEnv(append(opts, celLibrary()...)...)
	if err != nil {
		return nil, err
	}
	celEnvs[key] = env
	return env, nil
}

// celLibrary is what every environment has besides its variables.
func celLibrary() []cel.EnvOption {
	return []cel.EnvOption{
		ext.Strings(),
		ext.Bindings(), // cel.bind(name, value, expr): a let for a value used twice
		cel.OptionalTypes(),
		cel.Function("get",
			cel.MemberOverload("cluster_get_kind_ns_name", []*cel.Type{clusterType, cel.StringType, cel.StringType, cel.StringType}, cel.DynType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return clusterOf(args[0]).get(str(args[1]), str(args[2]), str(args[3]))
				}))),
		cel.Function("node",
			cel.MemberOverload("cluster_node_name", []*cel.Type{clusterType, cel.StringType}, cel.DynType,
				cel.BinaryBinding(func(c, name ref.Val) ref.Val { return clusterOf(c).get("Node", "", str(name)) }))),
		// sum adds a list of integers: the counting a report needs
		// (GPUs advertised over the nodes), which standard CEL lacks.
		cel.Function("sum",
			cel.MemberOverload("list_int_sum", []*cel.Type{cel.ListType(cel.IntType)}, cel.IntType,
				cel.UnaryBinding(func(l ref.Val) ref.Val {
					var total types.Int
					lister, ok := l.(traits.Lister)
					if !ok {
						return types.NewErr("sum of a non-list")
					}
					for it := lister.Iterator(); it.HasNext() == types.True; {
						n, ok := it.Next().(types.Int)
						if !ok {
							return types.NewErr("sum of a non-integer")
						}
						total += n
					}
					return total
				}))),
		cel.Function("list",
			cel.MemberOverload("cluster_list_kind_ns", []*cel.Type{clusterType, cel.StringType, cel.StringType}, cel.ListType(cel.DynType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return clusterOf(args[0]).list(str(args[1]), str(args[2]))
				}))),
	}
}

func str(v ref.Val) string { s, _ := v.Value().(string); return s }

// expr is a compiled CEL expression.
type expr struct {
	src string
	prg cel.Program
	// kinds are the kinds it reads from the cluster, by name
	// (cluster.get('Pod', ...), cluster.list('Node', ...)); "Node" for
	// cluster.node; its predicates' included.
	kinds []string
	// preds are the named predicates it reads (predicates.go).
	preds []*boundPred
}

// compileExpr compiles src for a check of type typ; want is the kind of
// result it must have ("bool", or "value" for anything a report can print).
func compileExpr(typ, src, want string) (*expr, error) { return compileExprWith(typ, src, want, nil) }

// compileExprWith is compileExpr for an expression that may read the
// named predicates preds.
func compileExprWith(typ, src, want string, preds []*predicate) (*expr, error) {
	var vars []string
	if t := typeNamed(typ); t != nil {
		vars = t.Vars()
	}
	if len(vars) == 0 {
		return nil, fmt.Errorf("%s", msgf("labkit.cel.no_expressions", "type", typ))
	}
	env, used, err := envFor(src, vars, preds)
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		ce := &celError{msg: iss.Err().Error()}
		for _, v := range undeclared(env, src, iss) {
			ce.msg += msgf("labkit.cel.not_here", "var", v, "type", typ, "vars", strings.Join(vars, ", "))
			if v == "cluster" {
				ce.msg += msgf("labkit.cel.not_here_cluster")
			}
		}
		if errs := iss.Errors(); len(errs) > 0 {
			ce.line, ce.col = errs[0].Location.Line(), errs[0].Location.Column()+1
		}
		return nil, ce
	}
	out := ast.OutputType()
	if want == "bool" && !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("%s", msgf("labkit.cel.not_bool", "type", out.String()))
	}
	prg, err := env.Program(ast, cel.CostLimit(celCostLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, err
	}
	e := &expr{src: src, prg: prg, kinds: clusterKinds(ast), preds: used}
	for _, bp := range used {
		e.kinds = appendNew(e.kinds, bp.kinds...)
	}
	return e, nil
}

// clusterKinds are the kinds an expression names in its calls of the
// cluster's functions.
func clusterKinds(a *cel.Ast) []string {
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	root := celast.NavigateAST(a.NativeRep())
	for _, fn := range []string{"get", "list", "node"} {
		for _, e := range celast.MatchDescendants(root, celast.FunctionMatcher(fn)) {
			call := e.AsCall()
			if !call.IsMemberFunction() || call.Target().AsIdent() != "cluster" {
				continue
			}
			if fn == "node" {
				add("Node")
				continue
			}
			if args := call.Args(); len(args) > 0 && args[0].Kind() == celast.LiteralKind {
				if k, ok := args[0].AsLiteral().Value().(string); ok {
					add(k)
				}
			}
		}
	}
	return out
}

// undeclared are the variables of celVarNames that src uses and env does
// not declare: the checker's errors whose expression is such a name (an
// identifier is an error only when nothing declares it).
func undeclared(env *cel.Env, src string, iss *cel.Issues) []string {
	parsed, piss := env.Parse(src)
	if piss != nil && piss.Err() != nil {
		return nil
	}
	idents := map[int64]string{}
	for _, n := range celast.MatchDescendants(celast.NavigateAST(parsed.NativeRep()), celast.KindMatcher(celast.IdentKind)) {
		idents[n.ID()] = n.AsIdent()
	}
	var out []string
	for _, v := range celVarNames {
		if slices.ContainsFunc(iss.Errors(), func(e *celcommon.Error) bool { return idents[e.ExprID] == v }) {
			out = append(out, v)
		}
	}
	return out
}

// celError is a compile error with its place in the expression (1-based).
type celError struct {
	msg       string
	line, col int
}

func (e *celError) Error() string { return e.msg }

// vars are what one evaluation sees.
type vars struct {
	object, file any // converted objects (map[string]any) or nil
	cluster      *view
}

func (v vars) activation() map[string]any {
	a := map[string]any{"cluster": clusterVal{v.cluster}, "object": types.NullValue, "file": types.NullValue}
	if v.object != nil {
		a["object"] = v.object
	}
	if v.file != nil {
		a["file"] = v.file
	}
	return a
}

// eval runs the expression. A missing key or field ("no such key") is an
// absence, not an error: absent is true then, and the caller words it.
func (e *expr) eval(v vars) (val ref.Val, absent bool, err error) {
	act := v.activation()
	bindLazily(act, e.preds)
	out, _, err := e.prg.Eval(act)
	if err != nil {
		if isAbsence(err) {
			return nil, true, nil
		}
		return nil, false, err
	}
	return out, false, nil
}

// isAbsence reports whether a CEL evaluation error only says a field, key
// or list element was not there: the interpreter's error for an
// attribute that did not resolve ("no such key: k", "no such
// attribute(s): a", "index out of bounds: i"). Errors that merely look
// alike are real errors, among them the strings extension's "index out
// of range: i" (charAt, substring past the end of a string).
func isAbsence(err error) bool {
	var e *types.Err
	if !errors.As(err, &e) {
		return false
	}
	t := absenceType()
	return t != nil && reflect.TypeOf(e.Unwrap()) == t
}

// absenceType is the type of the error cel-go's interpreter gives for an
// attribute that did not resolve. cel-go exports neither it nor a test
// for it, so it is learnt once by asking for a key a map does not have;
// TestCELAbsence fails if that stops telling absences from errors.
var absenceType = sync.OnceValue(func() reflect.Type {
	env, err := cel.NewEnv()
	if err != nil {
		return nil
	}
	ast, iss := env.Compile("{'present': 1}['absent']")
	if iss != nil && iss.Err() != nil {
		return nil
	}
	prg, err := env.Program(ast)
	if err != nil {
		return nil
	}
	var e *types.Err
	if _, _, err := prg.Eval(cel.NoVars()); errors.As(err, &e) {
		return reflect.TypeOf(e.Unwrap())
	}
	return nil
})

// evalBool is a rule's verdict: absent fields make it false.
func (e *expr) evalBool(v vars) (bool, error) {
	out, absent, err := e.eval(v)
	if err != nil || absent {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, fmt.Errorf("%s", msgf("labkit.cel.not_bool", "type", out.Type().TypeName()))
	}
	return b, nil
}

// evalText is a value as a report line or a message shows it.
func (e *expr) evalText(v vars) (string, bool, error) {
	out, absent, err := e.eval(v)
	if err != nil || absent {
		return "", absent, err
	}
	return celText(out), false, nil
}

// celText renders a CEL value for a learner: strings as they are, numbers
// in decimal, null as "", lists joined by ", ", maps as k=v pairs in key
// order (as kubectl's label columns show them).
func celText(v ref.Val) string {
	switch t := v.(type) {
	case traits.Mapper:
		var parts []string
		for it := t.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			parts = append(parts, celText(k)+"="+celText(t.Get(k)))
		}
		slices.Sort(parts)
		return strings.Join(parts, ", ")
	case traits.Lister:
		var parts []string
		for it := t.Iterator(); it.HasNext() == types.True; {
			parts = append(parts, celText(it.Next()))
		}
		return strings.Join(parts, ", ")
	}
	if v.Type() == types.NullType {
		return ""
	}
	return fmt.Sprint(v.Value())
}

// toCEL is an object as Kubernetes JSON for CEL: what kubectl get -o json
// shows (apiVersion and kind included).
func (c *view) toCEL(kind string, o runtime.Object) map[string]any {
	if m, ok := c.converted[o]; ok {
		return m
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		m = map[string]any{}
	}
	// Typed objects from informers carry no TypeMeta; CEL sees what
	// kubectl shows.
	if _, ok := m["kind"]; !ok {
		m["kind"] = kind
		if gvks, _, err := scheme.Scheme.ObjectKinds(o); err == nil && len(gvks) > 0 {
			m["apiVersion"] = gvks[0].GroupVersion().String()
		}
	}
	if c.converted != nil {
		c.converted[o] = m
	}
	return m
}

func (c *view) get(kind, namespace, name string) ref.Val {
	o := c.snap.Object(kind, namespace, name)
	if o == nil {
		return types.NullValue
	}
	return types.DefaultTypeAdapter.NativeToValue(c.toCEL(kind, o))
}

func (c *view) list(kind, namespace string) ref.Val {
	var objs []runtime.Object
	for _, o := range c.snap.ObjectsOf(kind) { // sorted by namespace, then name
		if acc, err := meta.Accessor(o); err == nil && (namespace == "" || acc.GetNamespace() == namespace) {
			objs = append(objs, o)
		}
	}
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = c.toCEL(kind, o)
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}

// clusterVal is the `cluster` variable's value.
type clusterVal struct{ c *view }

func clusterOf(v ref.Val) *view {
	if cv, ok := v.(clusterVal); ok && cv.c != nil {
		return cv.c
	}
	return newView(&observe.Snapshot{}, nil)
}

func (v clusterVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("cluster is not a value")
}
func (v clusterVal) ConvertToType(ref.Type) ref.Val { return types.NewErr("cluster is not a value") }
func (v clusterVal) Equal(ref.Val) ref.Val          { return types.False }
func (v clusterVal) Type() ref.Type                 { return clusterType }
func (v clusterVal) Value() any                     { return v.c }
