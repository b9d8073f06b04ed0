package labkit

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
)

var checkID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`) })

// entry is one check of a compiled step: its common fields and result
// ID, the compiled check, and the problem that keeps it from running.
type entry struct {
	base
	check check
	bad   *fault
	// kinds are the cluster kinds it reads (its object's, its
	// expressions').
	kinds []string
}

// base is what every compiled check has: the fields of every check, its
// result ID and its step's ID.
type base struct {
	spec content.Check
	id   string // <step-id>.<check-id>
	step string
}

// compiledStep is a step built from its declarative checks.
type compiledStep struct {
	step  checks.Step
	live  bool // a check of it reads the cluster
	probs []*fault
	fatal *fault // the lab does not load (a key no check type knows)
	// texts are the message keys its checks show, held to what they fill.
	texts []string
}

// compileStep builds a step from its declarative checks. Problems are
// authoring errors; a check with one evaluates to an error result.
func compileStep(text *content.Lab, scope cluster.Scope, custom customKinds, preds []*predicate, si int, ts content.Step) compiledStep {
	var (
		out     compiledStep
		entries []entry
	)
	for i, spec := range ts.Checks {
		c := &compiler{text: text, scope: scope, custom: custom, preds: preds, step: ts, si: si, ci: i, spec: spec}
		e := entry{base: c.base(), check: compileCheck(c)}
		e.kinds = c.kinds
		if c.fatal != nil && out.fatal == nil {
			out.fatal = c.fatal
		}
		out.texts = append(out.texts, c.texts...)
		if len(c.fields)+len(c.errs) > 0 {
			at := spec.At
			if at.Line == 0 {
				at = ts.At
			}
			e.bad = checkProblem(text, at, ts, spec, i, told{c.fields, c.errs})
			out.probs = append(out.probs, e.bad)
		}
		entries = append(entries, e)
	}
	s := checks.Step{Number: ts.Number, ID: ts.ID}
	for _, e := range entries {
		for _, f := range e.check.Files() {
			if !slices.Contains(s.Files, f) {
				s.Files = append(s.Files, f)
			}
		}
		out.live = out.live || e.check.Live()
		for _, k := range e.kinds {
			if !slices.Contains(s.Kinds, k) {
				s.Kinds = append(s.Kinds, k)
			}
		}
	}
	s.Eval = func(in checks.Input) checks.StepEval { return evalStep(in, ts.ID, entries, custom) }
	if slices.ContainsFunc(entries, func(e entry) bool { r, ok := e.check.(rememberer); return ok && r.Remembers() }) {
		s.Remember = func(snap *observe.Snapshot, w *checks.Witness, inOrder bool) bool {
			return rememberStep(snap, w, ts.ID, si == 0, inOrder, entries, custom)
		}
	}
	out.step = s
	return out
}

// checkProblem is a check's authoring errors as one fault, placed where
// in lab.toml the check is (at) or, within it, the offending expression.
func checkProblem(text *content.Lab, at content.Span, ts content.Step, spec content.Check, i int, errs told) *fault {
	line, col := at.Line, at.Col
	for _, e := range append(slices.Clone(errs.fields), errs.others...) {
		if e.at.Line > 0 {
			line, col = e.at.Line, e.at.Col
		} else if l, c := locate(text.TOML, e.near, at.First, at.Last); l > 0 {
			line, col = l, c
			if e.col > 0 {
				col += e.col - 1
			}
		}
	}
	who := spec.ID
	if who == "" {
		who = fmt.Sprint(i + 1)
	}
	return faultAt(path.Join(text.Where, "lab.toml"), content.Span{Line: line, Col: col},
		"labkit.check_problem", "step", ts.Number, "check", who, "problems", errs)
}

// locate finds the first line of needle in raw between lines first and
// last (1-based, inclusive), returning its line and column, or 0, 0.
func locate(raw []byte, needle string, first, last int) (int, int) {
	if needle == "" || first <= 0 {
		return 0, 0
	}
	lines := strings.Split(string(raw), "\n")
	head := strings.Split(needle, "\n")[0]
	for i := first - 1; i < min(last, len(lines)); i++ {
		if j := strings.Index(lines[i], head); j >= 0 {
			return i + 1, j + 1
		}
	}
	return 0, 0
}

// checkErr is one authoring error of a check: what it says and,
// to place it in lab.toml, where (the key it is about), or the text of
// the check it is about (a CEL expression's source) and the 1-based
// column in that text (0 when unknown).
type checkErr struct {
	msg  content.Message
	at   content.Span
	near string
	col  int
}

// compiler compiles one check of a step for its type, collecting what
// is wrong with it.
type compiler struct {
	text   *content.Lab
	scope  cluster.Scope // what the lab watches
	custom customKinds   // the custom resource kinds of its crds/
	step   content.Step
	si, ci int // the step's and the check's index in the lab
	spec   content.Check
	preds  []*predicate // the named predicates its expressions may read
	typ    checkType    // nil for a type there is not
	kinds  []string     // the cluster kinds the check reads
	// fields are the problems of its fields, errs the others (told).
	fields, errs []checkErr
	// fatal keeps the lab from loading: a key no type reads.
	fatal *fault
	// decoded is what decode filled, for the tests that hold a type's
	// fields to its documentation.
	decoded any
	// texts are the message keys it shows, held to what it fills there.
	texts []string
}

func (c *compiler) base() base {
	return base{spec: c.spec, id: c.step.ID + "." + c.spec.ID, step: c.step.ID}
}

// problem records an authoring error worded by the shared text key.
func (c *compiler) problem(key string, kv ...any) {
	c.errs = append(c.errs, checkErr{msg: say(key, kv...)})
}

// problemAt records an authoring error placed at the line that sets key.
func (c *compiler) problemAt(key, msgKey string, kv ...any) {
	c.errs = append(c.errs, checkErr{msg: say(msgKey, kv...), at: c.keySpan(key)})
}

// decodable requires a manifest of gvk to be one labmate reads as the
// API server would: a built-in kind, or a custom resource whose CRD (in
// crds/) gives the version a schema. The error is placed at key.
func (c *compiler) decodable(gvk schema.GroupVersionKind, key string) {
	ck, custom := c.custom[gvk]
	switch {
	case scheme.Scheme.Recognizes(gvk):
	case custom && ck.schema == nil:
		c.problemAt(key, "labkit.no_schema", "api_version", gvk.GroupVersion().String(), "kind", gvk.Kind)
	case !custom:
		c.problemAt(key, "labkit.unknown_kind", "api_version", gvk.GroupVersion().String(), "kind", gvk.Kind)
	}
}

// problemNear records an authoring error placed at the first line of the
// check that holds near.
func (c *compiler) problemNear(near, key string, kv ...any) {
	c.errs = append(c.errs, checkErr{msg: say(key, kv...), near: near})
}

// message holds a message key the check names in one of its fields
// (pass, fail, expect, hint, missing) to what its type shows there.
func (c *compiler) message(field, key string) {
	var texts []Text
	if c.typ != nil {
		texts = c.typ.Kind().Texts
	}
	c.textIn(append(slices.Clone(commonTexts), texts...), field, field, key, c.keySpan(field))
}

// textIn requires a message key named in field (written name, set at at)
// to exist, the field to be one of texts (what the type shows), and the
// key's text to use only the placeholders shown there. A check of a type
// there is not has only the key to check.
func (c *compiler) textIn(texts []Text, name, field, key string, at content.Span) {
	if key == "" {
		return
	}
	tpl, ok := c.spec.Texts[key]
	if !ok {
		c.errs = append(c.errs, checkErr{msg: say("labkit.no_message", "key", key), at: at})
		return
	}
	if c.typ == nil {
		return
	}
	t, shown := textOf(texts, field)
	if !shown {
		var fields []string
		for _, t := range texts {
			fields = append(fields, t.Field)
		}
		c.errs = append(c.errs, checkErr{msg: say("labkit.text_not_shown", "field", name, "type", c.spec.Type, "fields", strings.Join(fields, ", ")), at: at})
		return
	}
	c.texts = append(c.texts, key)
	var bad []string
	for _, p := range tpl.Placeholders {
		if !slices.Contains(t.Placeholders, p) {
			bad = append(bad, "{"+p+"}")
		}
	}
	if len(bad) > 0 {
		var allowed any = say("labkit.no_placeholders")
		if len(t.Placeholders) > 0 {
			allowed = "{" + strings.Join(t.Placeholders, "}, {") + "}"
		}
		c.errs = append(c.errs, checkErr{msg: say("labkit.bad_placeholders", "key", key, "where", tpl.Place,
			"bad", strings.Join(bad, ", "), "field", name, "type", c.spec.Type, "allowed", allowed), at: at})
	}
}

// expr compiles a CEL expression of the check; want is "bool" or
// "value". A compile error is placed at the expression.
func (c *compiler) expr(src, want string) *expr {
	e, err := compileExprWith(c.spec.Type, src, want, c.preds)
	if err != nil {
		ce := checkErr{msg: say("labkit.cel_error", "expr", src, "err", err), near: src}
		if cerr, ok := err.(*celError); ok && cerr.line == 1 {
			ce.col = cerr.col
		}
		c.errs = append(c.errs, ce)
		return nil
	}
	c.readsKinds(e.kinds...)
	return e
}

// readsKinds notes kinds the check reads from the cluster.
func (c *compiler) readsKinds(kinds ...string) {
	for _, k := range kinds {
		if !slices.Contains(c.kinds, k) {
			c.kinds = append(c.kinds, k)
		}
	}
}

// compileCheck validates what every check has, then compiles it for
// its type.
func compileCheck(c *compiler) check {
	c.refuseUnknown()
	c.typ = typeNamed(c.spec.Type)
	if c.typ == nil {
		types := make([]string, len(checkTypes))
		for j, t := range checkTypes {
			types[j] = t.Kind().Type
		}
		c.fields = append(c.fields, checkErr{msg: say("labkit.bad_type", "type", c.spec.Type, "types", strings.Join(types, ", "))})
		c.common()
		return noCheck{}
	}
	if c.spec.ID == "" {
		c.fields = append(c.fields, checkErr{msg: say("labkit.field_required", "field", "id", "type", c.spec.Type)})
	}
	c.common()
	return c.typ.Compile(c)
}

// common validates the fields every check has.
func (c *compiler) common() {
	spec, ts := c.spec, c.step
	if spec.ID != "" && !checkID().MatchString(spec.ID) {
		c.problem("labkit.bad_id", "id", spec.ID)
	}
	seen := map[string]bool{}
	for _, other := range ts.Checks {
		if other.ID == spec.ID {
			if seen[spec.ID] {
				c.problem("labkit.dup_id", "id", spec.ID)
				break
			}
			seen[spec.ID] = true
		}
	}
	for _, n := range spec.Needs {
		j := slices.IndexFunc(ts.Checks, func(o content.Check) bool { return o.ID == n })
		k := slices.IndexFunc(ts.Checks, func(o content.Check) bool { return o.ID == spec.ID })
		if j < 0 || j >= k {
			c.problem("labkit.bad_needs", "need", n)
		}
	}
	for _, t := range [][2]string{{"pass", spec.Pass}, {"fail", spec.Fail}, {"expect", spec.Expect}, {"hint", spec.Hint}} {
		c.message(t[0], t[1])
	}
}

// noCheck stands for a check of a type there is not (an authoring
// error): it reads nothing and never runs.
type noCheck struct{}

func (noCheck) Files() []string { return nil }
func (noCheck) Live() bool      { return false }
func (noCheck) Eval(checks.Input, *view) (checks.Result, *checks.Fact) {
	return checks.Result{Status: checks.Error}, nil
}
