package checks

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Decoder errors in the learner's words. The decoders speak English and
// Go ("json: cannot unmarshal object into Go struct field
// PodSpec.spec.tolerations of type []v1.Toleration"); a learner reads
// what is wrong and what to do, in Korean, with the line, and the
// decoder's own words only as what labmate observed.

// typeShape is how a learner calls the shape a Go type wants.
func typeShape(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == quantityType:
		return "quantity"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "map"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return "value"
}

// jsonShape is the shape of a JSON value as encoding/json names it in
// UnmarshalTypeError.Value ("object", "array", "number -5", ...).
func jsonShape(v string) string {
	switch f, _, _ := strings.Cut(v, " "); f {
	case "object":
		return "map"
	case "array":
		return "list"
	case "string":
		return "string"
	case "number":
		return "number"
	case "bool":
		return "bool"
	case "null":
		return "null"
	}
	return "value"
}

// nodeShape is the JSON shape a YAML node decodes to.
func nodeShape(n *yamlv3.Node) string {
	switch n.Kind {
	case yamlv3.MappingNode:
		return "map"
	case yamlv3.SequenceNode:
		return "list"
	case yamlv3.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "number"
		case "!!bool":
			return "bool"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return "value"
}

var quantityType = reflect.TypeOf(resource.Quantity{})

// typedSpot is a place in a YAML tree with the Go type decoding it.
type typedSpot struct {
	plain   string // the path as encoding/json names it: no indices, no map keys
	indexed string // the path with indices and map keys, for messages
	line    int
	node    *yamlv3.Node
	typ     reflect.Type
}

// findTyped walks n alongside the Go type t (as encoding/json would
// decode it) and returns the first spot, in document order, that want
// accepts.
func findTyped(n *yamlv3.Node, t reflect.Type, want func(typedSpot) bool) (typedSpot, bool) {
	var walk func(s typedSpot) (typedSpot, bool)
	walk = func(s typedSpot) (typedSpot, bool) {
		for s.typ.Kind() == reflect.Pointer {
			s.typ = s.typ.Elem()
		}
		for s.node.Kind == yamlv3.DocumentNode && len(s.node.Content) > 0 {
			s.node = s.node.Content[0]
		}
		if s.node.Kind == yamlv3.AliasNode && s.node.Alias != nil {
			s.node = s.node.Alias
		}
		if want(s) {
			return s, true
		}
		if s.typ == quantityType {
			return s, false
		}
		switch {
		case s.node.Kind == yamlv3.MappingNode && (s.typ.Kind() == reflect.Struct || s.typ.Kind() == reflect.Map):
			fields := jsonFields(s.typ)
			for k := 0; k+1 < len(s.node.Content); k += 2 {
				key := s.node.Content[k]
				next := typedSpot{node: s.node.Content[k+1], line: key.Line}
				if s.typ.Kind() == reflect.Map {
					next.typ, next.plain, next.indexed = s.typ.Elem(), s.plain, s.indexed+"["+key.Value+"]"
				} else if ft, ok := fields[key.Value]; ok {
					next.typ, next.plain, next.indexed = ft, joinPath(s.plain, key.Value), joinPath(s.indexed, key.Value)
				} else {
					continue
				}
				if got, ok := walk(next); ok {
					return got, true
				}
			}
		case s.node.Kind == yamlv3.SequenceNode && (s.typ.Kind() == reflect.Slice || s.typ.Kind() == reflect.Array):
			for i, c := range s.node.Content {
				next := typedSpot{node: c, line: c.Line, typ: s.typ.Elem(), plain: s.plain, indexed: s.indexed + "[" + strconv.Itoa(i) + "]"}
				if got, ok := walk(next); ok {
					return got, true
				}
			}
		}
		return s, false
	}
	if n == nil {
		return typedSpot{}, false
	}
	return walk(typedSpot{node: n, typ: t, line: n.Line})
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// jsonFields maps a struct's JSON field names to their types, inline and
// embedded structs included, as encoding/json sees them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
		case name == "" && (f.Anonymous || strings.Contains(opts, "inline")):
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range jsonFields(ft) {
				if _, dup := out[k]; !dup {
					out[k] = v
				}
			}
		case f.IsExported():
			if name == "" {
				name = f.Name
			}
			out[name] = f.Type
		}
	}
	return out
}

// explainDecode fills p (a "type" or "value" problem) from the decoder's
// error: the typed error encoding/json gives for the same input (the
// strict decoder's own type is internal to its module), or a quantity
// that does not parse, located in the tree when there is one.
func explainDecode(p *YAMLProblem, j []byte, tree *yamlv3.Node, obj any) {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer {
		return
	}
	var te *json.UnmarshalTypeError
	if errors.As(json.Unmarshal(j, reflect.New(t.Elem()).Interface()), &te) && te.Field != "" {
		p.Kind, p.Field, p.Got, p.Want = "type", te.Field, jsonShape(te.Value), typeShape(te.Type)
		if s, ok := findTyped(tree, t.Elem(), func(s typedSpot) bool {
			return s.plain == te.Field && nodeShape(s.node) == p.Got
		}); ok {
			p.Field, p.Line = s.indexed, s.line
		}
		return
	}
	if s, ok := findTyped(tree, t.Elem(), func(s typedSpot) bool {
		if s.typ != quantityType || s.node.Kind != yamlv3.ScalarNode {
			return false
		}
		_, err := resource.ParseQuantity(s.node.Value)
		return err != nil
	}); ok {
		p.Field, p.Line, p.Got, p.Want, p.Value = s.indexed, s.line, nodeShape(s.node), "quantity", s.node.Value
	}
}

// yamlSyntaxWhy names the common libyaml problems. go.yaml.in/yaml/v3
// returns a parse failure as text only ("yaml: line 6: mapping values
// are not allowed in this context"; no typed error carries the problem),
// so its problem phrases, fixed in the parser's source, are matched here.
var yamlSyntaxWhy = []struct{ phrase, key string }{
	{"found a tab character", "tab"},
	{"found character that cannot start any token", "token"},
	{"mapping values are not allowed", "mapping_values"},
	{"did not find expected key", "expected_key"},
	{"block sequence entries are not allowed", "sequence_here"},
	{"did not find expected '-' indicator", "dash"},
	{"did not find expected ',' or ']'", "unclosed"},
	{"did not find expected ',' or '}'", "unclosed"},
	{"did not find expected node content", "unclosed"},
	{"found unexpected end of stream", "unclosed_quote"},
	{"could not find expected ':'", "colon"},
	{"already set in map", "duplicate"},
	{"already defined", "duplicate"},
	{"excessive aliasing", "alias"},
	{"invalid leading UTF-8 octet", "utf8"},
	{"control characters are not allowed", "utf8"},
	{"found undefined alias", "undefined_alias"},
}

// Why says in the lab's words what is wrong and what to do; the
// decoder's own words stay in Err (shown as observed).
func (p *YAMLProblem) Why(in Input, lineText string) string {
	switch p.Kind {
	case "syntax":
		key := "other"
		for _, w := range yamlSyntaxWhy {
			if strings.Contains(p.Err, w.phrase) {
				key = w.key
				break
			}
		}
		if key == "token" && strings.Contains(lineText, "\t") {
			key = "tab"
		}
		return in.Msg("cluster.yaml.why." + key)
	case "type":
		return in.Msg("cluster.yaml.why.type", "field", p.Field, "line", p.Line,
			"got", in.Msg("cluster.yaml.shape."+p.Got), "want", in.Msg("cluster.yaml.shape."+p.Want)) +
			in.Msg("cluster.yaml.advice."+p.Want)
	case "value":
		if p.Want == "quantity" {
			return in.Msg("cluster.yaml.why.quantity", "field", p.Field, "line", p.Line, "value", p.Value)
		}
		return in.Msg("cluster.yaml.why.value")
	case "schema":
		return in.Msg("cluster.yaml.schema."+p.Want, "field", p.Field, "line", p.Line, "value", p.Value, "limit", p.Limit)
	}
	return ""
}
