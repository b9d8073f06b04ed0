package labkit

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/labhub/labmate/checks"
)

// fieldType: a field of a TOML or YAML file equals a value or matches a
// pattern.
type fieldType struct{}

type fieldFields struct {
	Path    string `toml:"path"`
	Format  string `toml:"format"`
	Key     string `toml:"key"`
	Equals  any    `toml:"equals"`
	Matches string `toml:"matches"`
}

var fieldKind = Kind{"field", "A field of a TOML or YAML file equals a value or matches a pattern. The file is parsed with a real parser; a parse error is reported with its line and column, a wrong value with the line of its key.", []Field{
	{"path", true, "The file, relative to the lab root."},
	{"format", false, "`toml` or `yaml`; default from the file's extension."},
	{"key", true, "The field: a TOML key path (`plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name`) or a YAML path (`spec.containers[0].image`, `metadata.labels[app.kubernetes.io/name]`)."},
	{"equals", false, "The value it must have, typed: `equals = true` wants a boolean, `equals = \"true\"` a string, `equals = 2` an integer. One of `equals` and `matches` is required."},
	{"matches", false, "A regular expression (RE2) the string value must match."},
}, []Text{
	{"pass", []string{"path", "key", "got"}},
	{"fail", []string{"path", "key", "got", "want", "where"}},
	{"expect", []string{"path", "key", "want"}},
}}

func (fieldType) Kind() Kind     { return fieldKind }
func (fieldType) Vars() []string { return nil }

func (fieldType) Compile(c *compiler) check {
	d := &fieldCheck{base: c.base()}
	c.decode(&d.fieldFields)
	if d.Equals == nil && d.Matches == "" || d.Equals != nil && d.Matches != "" {
		c.problem("labkit.field_one_of", "a", "equals", "b", "matches")
	}
	switch d.Equals.(type) {
	case nil, string, bool, int64, int, float64, float32:
	default: // an array, a table or a date: nothing a field check compares
		c.problemNear("equals", "labkit.bad_equals", "type", checks.TypeName(c.text.Msg, d.Equals), "value", checks.TOMLValue(c.text.Msg, d.Equals))
	}
	if d.Matches != "" {
		re, err := regexp.Compile(d.Matches)
		if err != nil {
			c.problem("labkit.bad_regexp", "re", d.Matches, "err", err)
		}
		d.pattern = re
	}
	switch d.format() {
	case "toml":
		segs, err := tomlKeyPath(d.Key)
		if err != nil {
			c.problem("labkit.bad_key", "key", d.Key)
		}
		d.keyPath = segs
	case "yaml":
		d.keyPath = checks.SplitFieldPath(d.Key)
	default:
		c.problem("labkit.bad_format", "format", d.Format)
	}
	return d
}

type fieldCheck struct {
	base
	fieldFields
	keyPath []string       // the key's segments
	pattern *regexp.Regexp // matches
}

func (d *fieldCheck) Files() []string { return []string{d.Path} }
func (d *fieldCheck) Live() bool      { return false }

func (d *fieldCheck) format() string {
	if d.Format != "" {
		return d.Format
	}
	switch path.Ext(d.Path) {
	case ".toml":
		return "toml"
	case ".yaml", ".yml":
		return "yaml"
	}
	return ""
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

// Eval judges a TOML or YAML field.
func (d *fieldCheck) Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	if d.format() == "yaml" {
		return d.evalYAMLField(in, cv)
	}
	rel := d.Path
	label := d.Key
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
	want := checks.TOMLValue(in.Msg, tomlWant(d.Equals))
	if d.pattern == nil {
		r = doc.Check(in, checks.KeySpec{ID: d.id, Path: d.keyPath, Anchor: -1, Want: tomlWant(d.Equals)})
	} else {
		r, want = d.matchTOML(in, doc), d.Matches
	}
	if r.Observed == "" {
		if v, ok := doc.Get(d.keyPath); ok {
			r.Observed = checks.TOMLValue(in.Msg, v)
		}
	}
	d.labWords(in, &r, want)
	return r, &checks.Fact{Label: label, Value: checks.OrNone(in.Msg, r.Observed)}
}

// labWords puts the lab's own texts on a verdict on the field's value:
// pass or fail in place of the shared sentence, expect as 기대, each
// with the placeholders fieldKind declares for it ({want}: the value or
// the pattern wanted).
func (d *fieldCheck) labWords(in checks.Input, r *checks.Result, want string) {
	p := checks.Shown(in, d.Path)
	if r.Status == checks.Passed {
		if d.spec.Pass != "" {
			r.Message = in.Msg(d.spec.Pass, "path", p, "key", d.Key, "got", r.Observed)
		}
		return
	}
	if d.spec.Fail != "" {
		r.Message = in.Msg(d.spec.Fail, "path", p, "key", d.Key, "got", checks.OrNone(in.Msg, r.Observed), "want", want, "where", r.Where)
	}
	if d.spec.Expect != "" {
		r.Expected = in.Msg(d.spec.Expect, "path", p, "key", d.Key, "want", want)
	}
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

func (d *fieldCheck) matchTOML(in checks.Input, doc *checks.TOMLDoc) checks.Result {
	key := checks.KeyPath(d.keyPath)
	v, ok := doc.Get(d.keyPath)
	if !ok {
		return doc.Missing(in, checks.KeySpec{ID: d.id, Path: d.keyPath, Anchor: -1, Want: d.Matches})
	}
	line := doc.Line(d.keyPath)
	got := checks.TOMLValue(in.Msg, v)
	at := doc.At(d.keyPath)
	s, isString := v.(string)
	if !isString {
		return checks.Fail(d.id, in.Msg("labkit.field.not_string", "key", key, "got", got, "got_type", checks.TypeName(in.Msg, v), "line", line),
			d.Matches, got, at)
	}
	if d.pattern.MatchString(s) {
		return checks.Result{ID: d.id, Status: checks.Passed, Message: in.Msg("files.key.ok", "key", key, "value", got, "line", line), Observed: got}
	}
	return checks.Fail(d.id, in.Msg("labkit.field.no_match", "key", key, "got", got, "re", d.Matches, "line", line), d.Matches, got, at)
}

// evalYAMLField judges a field of a YAML file, naming its line and column.
func (d *fieldCheck) evalYAMLField(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	rel, p := d.Path, checks.Shown(in, d.Path)
	label := d.Key
	doc, bad := cv.yaml(in, d.id, rel)
	if bad != nil {
		return *bad, &checks.Fact{Label: label, Value: bad.Observed}
	}
	want := checks.TOMLValue(in.Msg, tomlWant(d.Equals))
	if d.pattern != nil {
		want = d.Matches
	}
	n, depth, _ := checks.YAMLWalk(doc, d.keyPath)
	if n == nil {
		found := strings.Join(d.keyPath[:depth], ".")
		r := checks.Fail(d.id, in.Msg("labkit.field.yaml_missing", "path", p, "key", d.Key, "found", found, "want", want),
			d.Key+": "+want, in.Msg("files.seen.absent"), rel)
		d.labWords(in, &r, want)
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
		got = checks.TOMLValue(in.Msg, v)
		if v == nil {
			got = in.Msg("labkit.field.yaml_null")
		}
	}
	kv := []any{"path", p, "key", d.Key, "got", got, "want", want, "line", n.Line, "where", at}
	ok := false
	if n.Kind == yamlv3.ScalarNode {
		if d.pattern != nil {
			ok = d.pattern.MatchString(n.Value)
		} else {
			ok = yamlEquals(v, tomlWant(d.Equals))
		}
	}
	var r checks.Result
	switch {
	case ok:
		r = checks.Pass(d.id, in.Msg("labkit.field.yaml_ok", kv...))
	case d.pattern != nil:
		r = checks.Fail(d.id, in.Msg("labkit.field.yaml_no_match", kv...), "", got, at)
	case n.Kind != yamlv3.ScalarNode || v == nil:
		r = checks.Fail(d.id, in.Msg("labkit.field.yaml_wrong", kv...), "", got, at)
	default:
		// The TOML check's words: the type and the value seen, typed.
		r = checks.KeySpec{ID: d.id, Want: tomlWant(d.Equals)}.Judge(in, d.Key, v, n.Line, at)
	}
	r.Observed = got
	if !ok {
		r.Expected = d.Key + ": " + want
	}
	d.labWords(in, &r, want)
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
