package labkit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"google.golang.org/protobuf/types/known/structpb"
	"sigs.k8s.io/yaml"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
)

// The author's REPL (`labmate lab eval`): one CEL expression compiled as
// a check of a type compiles its rules (compileExpr: the same
// environment, variables, functions and cost limit) and evaluated on what
// such a rule sees: a manifest decoded strictly as its apiVersion and
// kind (view.manifest), live objects from a snapshot of the lab's cluster
// scope (view.get).

// EvalInput is what one expression sees.
type EvalInput struct {
	Expr string
	// Type is the check type whose variables the expression gets
	// ("object" when empty: object, file and cluster).
	Type string
	// File and Data are a manifest (its name as shown, its bytes): the
	// `file` variable, and `object` unless Kind names a live object.
	File string
	Data []byte
	// Kind, Namespace and Name name the live object `object` is.
	Kind, Namespace, Name string
	// Cluster is the lab cluster as a run observed it (nil: none).
	Cluster *observe.Snapshot
	// Step is the number of the step whose own predicates the
	// expression reads too, as a rule of that step does (0: the lab's
	// alone).
	Step int
}

// EvalResult is an expression's value.
type EvalResult struct {
	// JSON is the value as JSON; Text as a report line or a message
	// shows it ({got}); Type its CEL type as the checker found it.
	JSON, Text, Type string
	// Absent: a field, key or element it read was not there (a rule is
	// false then, a show empty).
	Absent bool
	// NoObject: Kind named an object the cluster does not have (object
	// is null).
	NoObject bool
}

// EvalError is why an expression has no value, in Korean: it does not
// compile (CEL's message shows where, with a caret), a file does not
// decode, or the evaluation failed.
type EvalError struct{ Msg string }

func (e *EvalError) Error() string { return e.Msg }

// Eval compiles in.Expr as a rule of the lab's check type in.Type, which
// may read the lab's named predicates and in.Step's, and evaluates it.
func (l *Lab) Eval(in EvalInput) (EvalResult, error) {
	typ := in.Type
	if typ == "" {
		typ = "object"
	}
	preds := l.predicates
	if in.Step != 0 {
		if in.Step < 0 || in.Step > len(l.Text.Steps) {
			return EvalResult{}, &EvalError{Msg: msgf("labkit.eval.no_step", "step", in.Step, "max", len(l.Text.Steps))}
		}
		// As compileStep gives a step's checks: the lab's, then the step's.
		preds = append(slices.Clone(l.predicates), l.stepPredicates[in.Step]...)
	}
	e, err := compileExprWith(typ, in.Expr, "value", preds)
	if err != nil {
		return EvalResult{}, &EvalError{Msg: msgf("labkit.cel_error", "expr", in.Expr, "err", err)}
	}
	snap := in.Cluster
	if snap == nil {
		snap = observe.NewStore().Snapshot()
	}
	custom, _ := readCustomKinds(l.Text) // their problems are the lab's compile problems
	cv := newView(snap, custom)
	var v vars
	v.cluster = cv
	if in.File != "" {
		if v.file, err = l.decodeFile(cv, in.File, in.Data); err != nil {
			return EvalResult{}, err
		}
		v.object = v.file
	}
	var res EvalResult
	if in.Kind != "" {
		v.object = nil
		if o := snap.Object(in.Kind, in.Namespace, in.Name); o != nil {
			v.object = cv.toCEL(in.Kind, o)
		} else {
			res.NoObject = true
		}
	}
	out, absent, err := e.eval(v)
	if err != nil {
		return EvalResult{}, &EvalError{Msg: msgf("labkit.eval.failed", "expr", in.Expr, "err", err)}
	}
	if absent {
		res.Absent = true
		return res, nil
	}
	res.Text, res.Type = celText(out), out.Type().TypeName()
	res.JSON = celJSON(out)
	return res, nil
}

// decodeFile is a manifest as a manifest rule's `object` (or an object
// rule's `file`) is: decoded strictly into its kind's object.
func (l *Lab) decodeFile(cv *view, name string, data []byte) (map[string]any, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil || head.APIVersion == "" || head.Kind == "" {
		return nil, &EvalError{Msg: msgf("labkit.eval.no_kind", "file", name)}
	}
	snap := *cv.snap
	snap.Files = map[string]observe.FileObs{name: {Path: name, State: observe.FilePresent, Content: data, Size: int64(len(data))}}
	in := checks.Input{Lab: l.Text, Snap: &snap}
	obj, m, r := newView(&snap, cv.custom).manifest(in, "eval", name, head.APIVersion, head.Kind)
	if m == nil {
		return nil, &EvalError{Msg: msgf("labkit.eval.bad_file", "file", name, "err", r.Message)}
	}
	return cv.toCEL(head.Kind, obj), nil
}

// celJSON is a CEL value as JSON, as kubectl -o json would show it.
func celJSON(v interface {
	ConvertToNative(reflect.Type) (any, error)
}) string {
	native, err := v.ConvertToNative(reflect.TypeOf(&structpb.Value{}))
	if err != nil {
		return fmt.Sprint(v)
	}
	pv, ok := native.(*structpb.Value)
	if !ok {
		return fmt.Sprint(native)
	}
	b, err := json.MarshalIndent(pv.AsInterface(), "", "  ")
	if err != nil {
		return fmt.Sprint(pv.AsInterface())
	}
	return string(b)
}
