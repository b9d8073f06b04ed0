package labkit

import (
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/labhub/labmate/checks"
)

// evalField judges a TOML or YAML field.
func (d *decl) evalField(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	if d.format() == "yaml" {
		return d.evalYAMLField(in, cv)
	}
	rel := d.spec.Path
	label := d.spec.Key
	tf := cv.toml(in, d.id, rel)
	if tf.Doc == nil {
		r := tf.File
		if r.Status == checks.Passed {
			r = tf.Parse
		}
		r.ID = d.id
		return r, &checks.Fact{Label: label, Value: r.Observed}
	}
	doc := tf.Doc
	var r checks.Result
	if d.pattern == nil {
		r = doc.Check(in, checks.KeySpec{ID: d.id, Path: d.keyPath, Anchor: -1, Want: tomlWant(d.spec.Equals)})
	} else {
		r = d.matchTOML(in, doc)
	}
	if r.Status == checks.Passed && d.spec.Pass != "" {
		r.Message = in.Msg(d.spec.Pass, "path", checks.Shown(in, rel), "key", d.spec.Key)
	}
	if r.Status != checks.Passed && d.spec.Fail != "" {
		r.Message = in.Msg(d.spec.Fail, "path", checks.Shown(in, rel), "key", d.spec.Key, "got", r.Observed, "want", r.Expected, "where", r.Where)
	}
	if r.Observed == "" {
		if v, ok := doc.Get(d.keyPath); ok {
			r.Observed = checks.TOMLValue(v)
		}
	}
	return r, &checks.Fact{Label: label, Value: checks.OrNone(r.Observed)}
}

// tomlWant is an `equals` value as the TOML checks compare it.
func tomlWant(v any) any {
	switch t := v.(type) {
	case int:
		return int64(t)
	case float32:
		return float64(t)
	}
	return v
}

func (d *decl) matchTOML(in checks.Input, doc *checks.TOMLDoc) checks.Result {
	key := checks.KeyPath(d.keyPath)
	v, ok := doc.Get(d.keyPath)
	if !ok {
		return doc.Missing(in, checks.KeySpec{ID: d.id, Path: d.keyPath, Anchor: -1, Want: d.spec.Matches})
	}
	line := doc.Line(d.keyPath)
	got := checks.TOMLValue(v)
	at := checks.Where(doc.Rel, line)
	s, isString := v.(string)
	if !isString {
		return checks.Fail(d.id, in.Msg("labkit.field.not_string", "key", key, "got", got, "got_type", checks.TypeName(v), "line", line),
			d.spec.Matches, got, at)
	}
	if d.pattern.MatchString(s) {
		return checks.Result{ID: d.id, Status: checks.Passed, Message: in.Msg("files.key.ok", "key", key, "value", got, "line", line), Observed: got}
	}
	return checks.Fail(d.id, in.Msg("labkit.field.no_match", "key", key, "got", got, "re", d.spec.Matches, "line", line), d.spec.Matches, got, at)
}

// evalYAMLField judges a field of a YAML file, naming its line and column.
func (d *decl) evalYAMLField(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel, p := d.spec.Path, checks.Shown(in, d.spec.Path)
	label := d.spec.Key
	doc, bad := cv.yaml(in, d.id, rel)
	if bad != nil {
		return *bad, &checks.Fact{Label: label, Value: bad.Observed}
	}
	want := checks.TOMLValue(tomlWant(d.spec.Equals))
	if d.pattern != nil {
		want = d.spec.Matches
	}
	n, depth, _ := checks.YAMLWalk(doc, d.keyPath)
	if n == nil {
		found := strings.Join(d.keyPath[:depth], ".")
		r := checks.Fail(d.id, text(in, d.spec.Fail, "labkit.field.yaml_missing", "path", p, "key", d.spec.Key, "found", found, "want", want),
			d.spec.Key+": "+want, in.Msg("files.seen.absent"), rel)
		return r, &checks.Fact{Label: label, Value: in.Msg("files.seen.absent")}
	}
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	at := fmt.Sprintf("%s:%d:%d", rel, n.Line, n.Column)
	var v any
	got := in.Msg("labkit.field.yaml_not_scalar")
	if n.Kind == yamlv3.ScalarNode {
		v = yamlValue(n)
		got = checks.TOMLValue(v)
		if v == nil {
			got = in.Msg("labkit.field.yaml_null")
		}
	}
	kv := []any{"path", p, "key", d.spec.Key, "got", got, "want", want, "line", n.Line, "where", at}
	ok := false
	if n.Kind == yamlv3.ScalarNode {
		if d.pattern != nil {
			ok = d.pattern.MatchString(n.Value)
		} else {
			ok = yamlEquals(v, tomlWant(d.spec.Equals))
		}
	}
	var r checks.Result
	switch {
	case ok:
		r = checks.Pass(d.id, text(in, d.spec.Pass, "labkit.field.yaml_ok", kv...))
		r.Observed = got
		return r, &checks.Fact{Label: label, Value: got}
	case d.spec.Fail != "":
		r = checks.Fail(d.id, in.Msg(d.spec.Fail, kv...), "", got, at)
	case d.pattern != nil:
		r = checks.Fail(d.id, in.Msg("labkit.field.yaml_no_match", kv...), "", got, at)
	case n.Kind != yamlv3.ScalarNode || v == nil:
		r = checks.Fail(d.id, in.Msg("labkit.field.yaml_wrong", kv...), "", got, at)
	default:
		// The TOML check's words: the type and the value seen, typed.
		r = checks.KeySpec{ID: d.id, Want: tomlWant(d.spec.Equals)}.Judge(in, d.spec.Key, v, n.Line, at)
	}
	r.Expected = d.spec.Key + ": " + want
	return r, &checks.Fact{Label: label, Value: got}
}

// yamlValue is a YAML scalar typed as a TOML value (string, bool, int64,
// float64), as its tag resolves it: `3` an integer, `"3"` and `!!str 3`
// strings. A null is nil.
func yamlValue(n *yamlv3.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	switch t := v.(type) {
	case int:
		return int64(t)
	case uint64:
		return float64(t) // past int64: as TOML would not have it
	}
	return v
}

// yamlEquals compares a typed YAML scalar with a TOML-typed value: a
// boolean wants a YAML boolean, a number a number (3 and 3.0 agree), a
// string the exact text of a string (so `"true"` does not equal true).
func yamlEquals(got, want any) bool {
	switch w := want.(type) {
	case int64:
		switch g := got.(type) {
		case int64:
			return g == w
		case float64:
			return g == float64(w)
		}
		return false
	case float64:
		switch g := got.(type) {
		case int64:
			return float64(g) == w
		case float64:
			return g == w
		}
		return false
	case bool, string:
		return got == want
	}
	return false
}
