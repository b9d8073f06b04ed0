package labkit

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// watchedKinds are the kinds the cluster source delivers (observe/cluster).
var watchedKinds = []string{"Namespace", "Node", "Pod", "Event", "ConfigMap", "DaemonSet", "RuntimeClass"}

var checkID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`) })

// decl is one compiled declarative check.
type decl struct {
	spec    content.Check
	id      string // <step-id>.<check-id>
	step    string
	rules   []rule
	held    *expr
	values  map[string]*expr
	keyPath []string       // field: the key's segments
	pattern *regexp.Regexp // field: matches
	gvk     schema.GroupVersionKind
}

type rule struct {
	spec       content.Rule
	cond, show *expr
}

// live reports whether the check reads the cluster.
func (d *decl) live() bool { return d.spec.ReadsCluster() }

// compileStep builds a step from its declarative checks. Problems are
// authoring errors; a check with one evaluates to an error result.
func compileStep(text *content.Lab, si int, ts content.Step) (checks.Step, []*content.Problem) {
	var (
		decls []*decl
		bad   = map[string]*content.Problem{}
		probs []*content.Problem
	)
	raw, _ := text.ReadFile("lab.toml")
	for i, spec := range ts.Checks {
		d, errs := compileCheck(text, ts, spec)
		if len(errs) > 0 {
			at := text.CheckSpan(si, i)
			if at.Line == 0 {
				at = text.StepSpan(si)
			}
			p := checkProblem(text, raw, at, ts, spec, i, errs)
			probs = append(probs, p)
			bad[d.id] = p
		}
		decls = append(decls, d)
	}
	s := checks.Step{Number: ts.Number, ID: ts.ID}
	for _, d := range decls {
		for _, f := range d.files() {
			if !slices.Contains(s.Files, f) {
				s.Files = append(s.Files, f)
			}
		}
	}
	s.Eval = func(in checks.Input) checks.StepEval { return evalStep(in, ts.ID, decls, bad) }
	if slices.ContainsFunc(decls, func(d *decl) bool { return d.spec.Type == "witness" || d.spec.Remember }) {
		s.Remember = func(snap *observe.Snapshot, w *checks.Witness) bool { return rememberStep(snap, w, decls, bad) }
	}
	return s, probs
}

// checkProblem words a check's authoring errors with where in lab.toml
// the check is (at) or, within it, the offending expression.
func checkProblem(text *content.Lab, raw []byte, at content.Span, ts content.Step, spec content.Check, i int, errs []checkErr) *content.Problem {
	line, col := at.Line, at.Col
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.msg)
		if l, c := locate(raw, e.near, at.First, at.Last); l > 0 {
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
	return &content.Problem{File: path.Join(text.Where, "lab.toml"), Line: line, Col: col,
		Msg: msgf("labkit.check_problem", "step", ts.Number, "check", who, "problems", strings.Join(msgs, " "))}
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

// checkErr is one authoring error of a check: a Korean sentence and,
// to place it in lab.toml, the text of the check it is about (a CEL
// expression's source) and the 1-based column in that text (0 when
// unknown).
type checkErr struct {
	msg  string
	near string
	col  int
}

// compileCheck validates a check and compiles its expressions.
func compileCheck(text *content.Lab, ts content.Step, spec content.Check) (*decl, []checkErr) {
	d := &decl{spec: spec, id: ts.ID + "." + spec.ID, step: ts.ID}
	var errs []checkErr
	for _, m := range validateFields(spec) {
		errs = append(errs, checkErr{msg: m})
	}
	problem := func(key string, kv ...any) { errs = append(errs, checkErr{msg: msgf(key, kv...)}) }
	if spec.ID != "" && !checkID().MatchString(spec.ID) {
		problem("labkit.bad_id", "id", spec.ID)
	}
	seen := map[string]bool{}
	for _, other := range ts.Checks {
		if other.ID == spec.ID {
			if seen[spec.ID] {
				problem("labkit.dup_id", "id", spec.ID)
				break
			}
			seen[spec.ID] = true
		}
	}
	for _, n := range spec.Needs {
		j := slices.IndexFunc(ts.Checks, func(c content.Check) bool { return c.ID == n })
		k := slices.IndexFunc(ts.Checks, func(c content.Check) bool { return c.ID == spec.ID })
		if j < 0 || j >= k {
			problem("labkit.bad_needs", "need", n)
		}
	}
	for _, key := range []string{spec.Pass, spec.Fail, spec.Expect, spec.Hint, spec.Missing} {
		if key != "" && !text.HasMsg(key) {
			problem("labkit.no_message", "key", key)
		}
	}
	for _, key := range spec.Why {
		if !text.HasMsg(key) {
			problem("labkit.no_message", "key", key)
		}
	}
	compile := func(src, want string) *expr {
		e, err := compileExpr(spec.Type, src, want)
		if err != nil {
			ce := checkErr{msg: msgf("labkit.cel_error", "expr", src, "err", err), near: src}
			if cerr, ok := err.(*celError); ok && cerr.line == 1 {
				ce.col = cerr.col
			}
			errs = append(errs, ce)
			return nil
		}
		return e
	}
	switch spec.Type {
	case "field":
		if spec.Equals == nil && spec.Matches == "" || spec.Equals != nil && spec.Matches != "" {
			problem("labkit.field_one_of", "a", "equals", "b", "matches")
		}
		switch spec.Equals.(type) {
		case nil, string, bool, int64, int, float64, float32:
		default: // an array, a table or a date: nothing a field check compares
			errs = append(errs, checkErr{msg: msgf("labkit.bad_equals", "type", checks.TypeName(spec.Equals), "value", checks.TOMLValue(spec.Equals)), near: "equals"})
		}
		if spec.Matches != "" {
			re, err := regexp.Compile(spec.Matches)
			if err != nil {
				problem("labkit.bad_regexp", "re", spec.Matches, "err", err)
			}
			d.pattern = re
		}
		switch d.format() {
		case "toml":
			segs, err := tomlKeyPath(spec.Key)
			if err != nil {
				problem("labkit.bad_key", "key", spec.Key)
			}
			d.keyPath = segs
		case "yaml":
			d.keyPath = checks.SplitFieldPath(spec.Key)
		default:
			problem("labkit.bad_format", "format", spec.Format)
		}
	case "manifest":
		gv, err := schema.ParseGroupVersion(spec.APIVersion)
		d.gvk = gv.WithKind(spec.Kind)
		if err != nil || !scheme.Scheme.Recognizes(d.gvk) {
			problem("labkit.unknown_kind", "api_version", spec.APIVersion, "kind", spec.Kind)
		}
	case "object", "witness":
		if !slices.Contains(watchedKinds, spec.Kind) {
			problem("labkit.unwatched_kind", "kind", spec.Kind, "kinds", strings.Join(watchedKinds, ", "))
		}
		if spec.Type == "witness" {
			if spec.Held == "" && spec.Event == "" || spec.Held != "" && spec.Event != "" {
				problem("labkit.field_one_of", "a", "held", "b", "event")
			}
			if spec.Held != "" {
				d.held = compile(spec.Held, "bool")
			}
			if spec.Event != "" && !slices.Contains(eventReasons(text), spec.Event) {
				problem("labkit.unwatched_event", "reason", spec.Event)
			}
		}
	case "report":
		d.values = map[string]*expr{}
		for key, src := range spec.Values {
			if !slices.Contains(spec.Keys, key) {
				problem("labkit.value_not_key", "key", key)
			}
			d.values[key] = compile(src, "value")
		}
	}
	for _, r := range spec.Rules {
		cr := rule{spec: r, cond: compile(r.Expr, "bool")}
		if r.Show != "" {
			cr.show = compile(r.Show, "value")
		}
		for _, key := range []string{r.Fail, r.Expect} {
			if key != "" && !text.HasMsg(key) {
				problem("labkit.no_message", "key", key)
			}
		}
		if r.Fail == "" {
			problem("labkit.rule_needs_fail")
		}
		d.rules = append(d.rules, cr)
	}
	return d, errs
}

// eventReasons are the event reasons the cluster source watches for a lab.
func eventReasons(text *content.Lab) []string {
	if len(text.Cluster.EventReasons) > 0 {
		return text.Cluster.EventReasons
	}
	return []string{observe.FailedSchedulingReason}
}

// tomlKeyPath splits a TOML key the way a TOML parser does (quoted
// segments may contain dots).
func tomlKeyPath(key string) ([]string, error) {
	var tree map[string]any
	if err := toml.Unmarshal([]byte(key+" = 0"), &tree); err != nil {
		return nil, err
	}
	var segs []string
	for {
		if len(tree) != 1 {
			return nil, fmt.Errorf("not one key")
		}
		for k, v := range tree {
			segs = append(segs, k)
			sub, ok := v.(map[string]any)
			if !ok {
				return segs, nil
			}
			tree = sub
		}
	}
}

func (d *decl) format() string {
	if d.spec.Format != "" {
		return d.spec.Format
	}
	switch path.Ext(d.spec.Path) {
	case ".toml":
		return "toml"
	case ".yaml", ".yml":
		return "yaml"
	}
	return ""
}

// files are the lab files the check reads.
func (d *decl) files() []string {
	switch d.spec.Type {
	case "file", "field", "manifest", "report":
		return []string{d.spec.Path}
	case "object":
		if d.spec.File != "" {
			return []string{d.spec.File}
		}
	}
	return nil
}

// objectRef names the object of an object or witness check.
func (d *decl) objectRef() string {
	if d.spec.Namespace != "" {
		return d.spec.Kind + " " + d.spec.Namespace + "/" + d.spec.Name
	}
	return d.spec.Kind + " " + d.spec.Name
}

// evalStep evaluates a declarative step: its file checks always, its live
// checks only while the cluster may be trusted (the gate says why not).
func evalStep(in checks.Input, stepID string, decls []*decl, bad map[string]*content.Problem) checks.StepEval {
	var ev checks.StepEval
	liveOK := true
	if slices.ContainsFunc(decls, (*decl).live) {
		var gate checks.StepEval
		liveOK = checks.LiveChecksMayRun(in, &gate, stepID)
		ev.Observed = append(ev.Observed, gate.Observed...)
		ev.Checks = append(ev.Checks, gate.Checks...)
	}
	cv := newView(in.Snap)
	status := map[string]checks.Status{}
	for _, d := range decls {
		if d.live() && !liveOK {
			continue
		}
		var r checks.Result
		var fact *checks.Fact
		if p, isBad := bad[d.id]; isBad {
			r = checks.Result{ID: d.id, Status: checks.Error, Message: msgf("labkit.authoring", "err", p.Error())}
		} else if dep := unmetNeed(d, status); dep != "" {
			r = checks.Wait(d.id, in.Msg("labkit.needs", "check", dep))
		} else {
			r, fact = d.eval(in, cv)
			if r.Status != checks.Passed && d.spec.Hint != "" {
				r.Message += in.Msg(d.spec.Hint)
			}
		}
		status[d.spec.ID] = r.Status
		ev.Checks = append(ev.Checks, r)
		if fact != nil {
			ev.Observed = append(ev.Observed, *fact)
		}
	}
	return ev
}

func unmetNeed(d *decl, status map[string]checks.Status) string {
	for _, n := range d.spec.Needs {
		if status[n] != checks.Passed {
			return n
		}
	}
	return ""
}

// text is the lab's message for key, or the shared default.
func text(in checks.Input, key, def string, kv ...any) string {
	if key != "" {
		return in.Msg(key, kv...)
	}
	return in.Msg(def, kv...)
}

func (d *decl) eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	switch d.spec.Type {
	case "file":
		return d.evalFile(in)
	case "field":
		return d.evalField(in, cv)
	case "manifest":
		return d.evalManifest(in, cv)
	case "object":
		return d.evalObject(in, cv)
	case "report":
		return d.evalReport(in, cv)
	case "witness":
		return d.evalWitness(in, cv)
	}
	return checks.Result{ID: d.id, Status: checks.Error, Message: msgf("labkit.bad_type", "type", d.spec.Type)}, nil
}

func (d *decl) evalFile(in checks.Input) (checks.Result, *checks.Fact) {
	rel, p := d.spec.Path, checks.Shown(in, d.spec.Path)
	f := in.Snap.File(rel)
	label := in.Msg("labkit.fact.file", "path", rel)
	if f.State != observe.FilePresent {
		_, bad := checks.ReadText(in, d.id, rel)
		if d.spec.Fail != "" {
			bad.Message = in.Msg(d.spec.Fail, "path", p, "where", rel)
		}
		return *bad, &checks.Fact{Label: label, Value: bad.Observed}
	}
	mode := fmt.Sprintf("%04o", f.Mode.Perm())
	seen := in.Msg("labkit.file.seen", "size", f.Size, "mode", mode)
	if d.spec.Executable && f.Mode.Perm()&0o111 == 0 {
		r := checks.Fail(d.id, in.Msg("labkit.file.not_executable", "path", p, "mode", mode, "where", rel),
			text(in, d.spec.Expect, "labkit.file.expect_exec"), seen, rel)
		return r, &checks.Fact{Label: label, Value: seen}
	}
	r := checks.Pass(d.id, text(in, d.spec.Pass, "labkit.file.ok", "path", p, "mode", mode))
	r.Observed = seen
	return r, &checks.Fact{Label: label, Value: seen}
}

func (d *decl) evalManifest(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel, p := d.spec.Path, checks.Shown(in, d.spec.Path)
	label := in.Msg("labkit.fact.file", "path", rel)
	obj, m, r := cv.manifest(in, d.id, rel, d.spec.APIVersion, d.spec.Kind)
	if m == nil {
		return r, &checks.Fact{Label: label, Value: r.Observed}
	}
	var fc *checks.FieldCheck
	if mo, ok := obj.(metav1.Object); ok && d.spec.Name != "" {
		fc = checks.ObjectFields(m, mo, d.spec.Name, d.spec.Namespace)
	} else {
		fc = checks.NewFieldCheck(m)
	}
	v := vars{object: cv.toCEL(d.spec.Kind, obj), cluster: cv}
	d.applyRules(in, fc, v, func(field string) (string, int) { return p, m.Line(field) })
	res := fc.Result(d.id, text(in, d.spec.Pass, "labkit.manifest.ok", "path", p, "kind", d.spec.Kind))
	if res.Status != checks.Passed && d.spec.Fail != "" {
		res.Message = in.Msg(d.spec.Fail, "path", p, "where", res.Where, "got", res.Observed)
	}
	return res, &checks.Fact{Label: label, Value: res.Observed}
}

// applyRules evaluates the check's rules, adding to fc what each expects,
// what was observed, and a problem for each that does not hold. at says,
// for a field, what the learner should look at and the line there (0 for
// a live object).
func (d *decl) applyRules(in checks.Input, fc *checks.FieldCheck, v vars, at func(field string) (string, int)) {
	for _, r := range d.rules {
		ok, err := r.cond.evalBool(v)
		got := ""
		if r.show != nil {
			if s, absent, serr := r.show.evalText(v); serr == nil && !absent {
				got = s
			}
		}
		expect := r.spec.Field
		if r.spec.Expect != "" {
			expect = in.Msg(r.spec.Expect)
		}
		fc.Note(expect, checks.OrNone(got))
		if ok {
			continue
		}
		where, line := at(r.spec.Field)
		if err != nil {
			fc.Problem(r.spec.Field, in.Msg("labkit.rule_error", "expr", r.spec.Expr, "err", err))
			continue
		}
		fc.Problem(r.spec.Field, in.Msg(r.spec.Fail, "got", checks.OrNone(got), "field", r.spec.Field, "line", line,
			"path", where, "object", d.objectRef()))
	}
}

func (d *decl) evalObject(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	ref := d.objectRef()
	label := in.Msg("labkit.fact.object", "object", ref)
	o := in.Snap.Object(d.spec.Kind, d.spec.Namespace, d.spec.Name)
	if o == nil {
		r := checks.Fail(d.id, text(in, d.spec.Missing, "labkit.object.missing", "object", ref, "kind", d.spec.Kind, "name", d.spec.Name, "namespace", d.spec.Namespace),
			ref, in.Msg("cluster.absent"), ref)
		return r, &checks.Fact{Label: label, Value: in.Msg("cluster.absent")}
	}
	v := vars{object: cv.toCEL(d.spec.Kind, o), cluster: cv}
	if d.spec.File != "" {
		fobj, bad := decodeAny(in, cv, d.id, d.spec.File, cv.toCEL(d.spec.Kind, o))
		if bad != nil {
			if bad.Status == checks.Failed { // the learner's file: wait for it, saying why
				bad.Status = checks.Waiting
				bad.Message = in.Msg("labkit.object.wait_file", "path", checks.Shown(in, d.spec.File), "why", bad.Message)
			}
			return *bad, &checks.Fact{Label: label, Value: in.Msg("labkit.object.present")}
		}
		v.file = fobj
	}
	fc := checks.NewFieldCheck(&checks.Manifest{Rel: ref})
	d.applyRules(in, fc, v, func(string) (string, int) { return ref, 0 })
	res := fc.Result(d.id, text(in, d.spec.Pass, "labkit.object.ok", "object", ref))
	if res.Status != checks.Passed {
		res.Where = ref
		if d.spec.Fail != "" {
			res.Message = in.Msg(d.spec.Fail, "object", ref, "got", res.Observed)
		}
	}
	obs := res.Observed
	if obs == "" {
		obs = in.Msg("labkit.object.present")
	}
	return res, &checks.Fact{Label: label, Value: obs}
}

// decodeAny decodes a learner's manifest for an object check's `file`: as
// the live object's own type, strictly. When it does not decode, bad says
// why (failed for the file, an error when the live object's type is not
// one labmate can decode).
func decodeAny(in checks.Input, cv *view, id, rel string, live map[string]any) (obj map[string]any, bad *checks.Result) {
	apiVersion, _ := live["apiVersion"].(string)
	kind, _ := live["kind"].(string)
	typed, m, r := cv.manifest(in, id, rel, apiVersion, kind)
	if m == nil {
		return nil, &r
	}
	return cv.toCEL(kind, typed), nil
}

func (d *decl) evalReportLive(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel := d.spec.Path
	label := in.Msg("labkit.fact.file", "path", rel)
	rf := checks.ReportFile{Rel: rel, Keys: d.spec.Keys, NoSpaces: d.spec.NoSpaces}
	byKey, format, ok := checks.ReadReport(in, d.id, rf)
	if !ok || format.Status != checks.Passed || len(d.values) == 0 {
		if format.Status == checks.Passed && d.spec.Pass != "" {
			format.Message = in.Msg(d.spec.Pass, "path", checks.Shown(in, rel))
		}
		return format, &checks.Fact{Label: label, Value: reportSummary(byKey, d.spec.Keys)}
	}
	var vals []checks.ReportValue
	for _, key := range d.spec.Keys {
		e := d.values[key]
		if e == nil {
			continue
		}
		want, absent, err := e.evalText(vars{cluster: cv})
		fact := &checks.Fact{Label: label, Value: reportSummary(byKey, d.spec.Keys)}
		if err != nil { // not an absence: the expression is wrong
			return checks.Result{ID: d.id, Status: checks.Error, Message: in.Msg("labkit.report.value_error", "key", key, "expr", d.spec.Values[key], "err", err)}, fact
		}
		if absent {
			return checks.Wait(d.id, in.Msg("labkit.report.value_unknown", "key", key)), fact
		}
		rv := checks.ReportValue{Key: key, Want: want, Why: in.Msg("labkit.report.why_live")}
		if k := d.spec.Why[key]; k != "" {
			rv.Why = in.Msg(k)
		}
		vals = append(vals, rv)
	}
	r := checks.CheckReportValues(d.id, rel, byKey, vals, text(in, d.spec.Pass, "labkit.report.ok", "path", checks.Shown(in, rel)))
	return r, &checks.Fact{Label: label, Value: reportSummary(byKey, d.spec.Keys)}
}

func reportSummary(byKey map[string]checks.KVLine, keys []string) string {
	var parts []string
	for _, k := range keys {
		if l, ok := byKey[k]; ok {
			parts = append(parts, k+"="+l.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// witnessKey is where a witness check's fact is remembered.
func (d *decl) witnessKey() string { return d.step + "/" + d.spec.ID }

// rememberStep records what the witness checks of a step saw now.
func rememberStep(snap *observe.Snapshot, w *checks.Witness, decls []*decl, bad map[string]*content.Problem) bool {
	changed := false
	cv := newView(snap)
	for _, d := range decls {
		if d.spec.Type == "report" && d.spec.Remember && bad[d.id] == nil {
			changed = rememberReport(snap, w, d, cv) || changed
			continue
		}
		if d.spec.Type != "witness" || bad[d.id] != nil {
			continue
		}
		o := snap.Object(d.spec.Kind, d.spec.Namespace, d.spec.Name)
		if o == nil {
			continue
		}
		acc, err := meta.Accessor(o)
		if err != nil {
			continue
		}
		if f, known := w.Get(d.witnessKey()); known && f.UID == string(acc.GetUID()) {
			continue // the first sighting is the evidence
		}
		value := ""
		switch {
		case d.held != nil:
			ok, _ := d.held.evalBool(vars{object: cv.toCEL(d.spec.Kind, o), cluster: cv})
			if !ok {
				continue
			}
		default:
			value = eventFor(snap, d, acc.GetUID())
			if value == "" {
				continue
			}
		}
		if w.Set(d.witnessKey(), checks.WitnessFact{Value: value, UID: string(acc.GetUID()), Seen: snap.Time}) {
			changed = true
		}
	}
	return changed
}

func (d *decl) evalWitness(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	ref := d.objectRef()
	label := in.Msg("labkit.fact.witness", "object", ref)
	o := in.Snap.Object(d.spec.Kind, d.spec.Namespace, d.spec.Name)
	f, seen := in.Witness.Get(d.witnessKey())
	uid := ""
	if o != nil {
		if acc, err := meta.Accessor(o); err == nil {
			uid = string(acc.GetUID())
		}
	}
	if d.spec.Remain && seen && uid != "" && f.UID != uid {
		seen = false // another object of that name: the evidence was not about it
	}
	// The shared texts name what was to be seen: the condition or the event.
	kv := []any{"object", ref, "held", d.spec.Held, "reason", d.spec.Event}
	expectKey, notYetKey := "labkit.witness.expect_held", "labkit.witness.not_yet_held"
	if d.spec.Event != "" {
		expectKey, notYetKey = "labkit.witness.expect_event", "labkit.witness.not_yet_event"
	}
	expect := text(in, d.spec.Expect, expectKey, kv...)
	switch {
	case d.spec.Remain && o == nil:
		key := "labkit.witness.absent"
		if f, had := in.Witness.Get(d.witnessKey()); had && f.UID != "" {
			key = "labkit.witness.gone"
		}
		r := checks.Fail(d.id, in.Msg(key, "object", ref), expect, in.Msg("cluster.absent"), ref)
		return r, &checks.Fact{Label: label, Value: in.Msg("cluster.absent")}
	case seen:
		when := f.Seen.Local().Format("15:04:05")
		r := checks.Pass(d.id, text(in, d.spec.Pass, "labkit.witness.ok", "object", ref, "when", when, "value", f.Value))
		r.Observed = in.Msg("labkit.witness.seen", "when", when)
		return r, &checks.Fact{Label: label, Value: r.Observed}
	}
	if o != nil && d.held != nil {
		// rememberStep cannot report; an error there would leave the
		// witness unseen for ever without a word.
		if _, err := d.held.evalBool(vars{object: cv.toCEL(d.spec.Kind, o), cluster: cv}); err != nil {
			r := checks.Result{ID: d.id, Status: checks.Error, Message: in.Msg("labkit.rule_error", "expr", d.spec.Held, "err", err), Where: ref}
			return r, &checks.Fact{Label: label, Value: in.Msg("labkit.witness.unseen")}
		}
	}
	r := checks.Fail(d.id, text(in, d.spec.Fail, notYetKey, kv...), expect, in.Msg("labkit.witness.unseen"), ref)
	return r, &checks.Fact{Label: label, Value: in.Msg("labkit.witness.unseen")}
}

// eventFor returns the message of the oldest event with the check's
// reason recorded for the object with uid (its reason when it has no
// message), or "".
func eventFor(snap *observe.Snapshot, d *decl, uid types.UID) string {
	msgs := checks.EventMessages(snap, d.spec.Event, d.spec.Kind, d.spec.Namespace, d.spec.Name, uid)
	switch {
	case len(msgs) == 0:
		return ""
	case msgs[0] == "":
		return d.spec.Event
	}
	return msgs[0]
}
