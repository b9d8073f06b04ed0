package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"

	"github.com/labhub/labmate/labkit/compare"
)

// A reference file of a step, parsed with the parser of its language, and
// the near-misses made of it: one change each (a key or an element
// deleted, a scalar turned into its string form or back, a scalar's value
// changed), and restylings that keep its meaning (which must still pass).

// docEdit is one change of a reference file: its one-line description
// (what verify.toml's equivalent names) and the file's bytes after it.
type docEdit struct {
	op    string // "delete", "string", "typed", "set"; a restyle's style
	path  string // the field: spec.tolerations[0].key
	desc  string // "delete spec.tolerations[0]"
	body  []byte
	setTo string // a YAML scalar's new text
	value any    // a TOML scalar's new value
}

// fieldEdits are the field changes of a YAML or TOML reference file, in
// the file's order; nil for a file of another language.
func fieldEdits(name string, body []byte) ([]docEdit, error) {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return yamlEdits(body)
	case ".toml":
		return tomlEdits(body)
	}
	return nil, nil
}

// restyles are the file written again with the same meaning, each in one
// style.
func restyles(name string, body []byte) ([]docEdit, error) {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return yamlRestyles(body)
	case ".toml":
		return tomlRestyles(body)
	}
	return nil, nil
}

// ---------------------------------------------------------------- YAML

func parseYAML(body []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(body))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

func encodeYAML(docs []*yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = copyNode(k)
	}
	return &c
}

// yamlSite is a place in a YAML document a change is made at: the node's
// parent and its index among the parent's content.
type yamlSite struct {
	doc    int
	at     []int // indices from the document node down to the node
	path   string
	isKey  bool // a mapping value (deleting removes its key too)
	scalar *yaml.Node
}

func yamlEdits(body []byte) ([]docEdit, error) {
	docs, err := parseYAML(body)
	if err != nil {
		return nil, err
	}
	var sites []yamlSite
	for d, doc := range docs {
		if len(doc.Content) > 0 {
			walkYAML(doc.Content[0], d, []int{0}, "", &sites)
		}
	}
	var out []docEdit
	for _, s := range sites {
		changes := []docEdit{{op: "delete", path: s.path, desc: "delete " + s.path}}
		if s.scalar != nil {
			changes = append(changes, scalarChanges(s.scalar, s.path)...)
		}
		for _, c := range changes {
			mutated := make([]*yaml.Node, len(docs))
			for i, doc := range docs {
				mutated[i] = copyNode(doc)
			}
			applyYAML(mutated[s.doc], s, c)
			b, err := encodeYAML(mutated)
			if err != nil {
				continue // a change the encoder cannot write is no near-miss
			}
			c.body = b
			out = append(out, c)
		}
	}
	return out, nil
}

// walkYAML lists the places under n: every mapping value and every
// sequence element, depth first in the file's order.
func walkYAML(n *yaml.Node, doc int, at []int, p string, sites *[]yamlSite) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			v := n.Content[i+1]
			cp := joinKey(p, n.Content[i].Value)
			next := append(append([]int(nil), at...), i+1)
			s := yamlSite{doc: doc, at: next, path: cp, isKey: true}
			if v.Kind == yaml.ScalarNode {
				s.scalar = v
			}
			*sites = append(*sites, s)
			walkYAML(v, doc, next, cp, sites)
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			cp := fmt.Sprintf("%s[%d]", p, i)
			next := append(append([]int(nil), at...), i)
			s := yamlSite{doc: doc, at: next, path: cp}
			if v.Kind == yaml.ScalarNode {
				s.scalar = v
			}
			*sites = append(*sites, s)
			walkYAML(v, doc, next, cp, sites)
		}
	}
}

// joinKey extends a field path the way labmate's checks name fields
// (compare.JoinKey: the compare view names the same fields).
func joinKey(p, key string) string { return compare.JoinKey(p, key) }

func applyYAML(doc *yaml.Node, s yamlSite, c docEdit) {
	parent := doc
	for _, i := range s.at[:len(s.at)-1] {
		parent = parent.Content[i]
	}
	i := s.at[len(s.at)-1]
	if c.op == "delete" {
		if s.isKey {
			parent.Content = append(parent.Content[:i-1], parent.Content[i+1:]...)
		} else {
			parent.Content = append(parent.Content[:i], parent.Content[i+1:]...)
		}
		return
	}
	n := parent.Content[i]
	switch c.op {
	case "string":
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
	case "typed":
		n.Tag, n.Style = "", 0
	case "set":
		n.Value = c.setTo
		if n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle {
			n.Style = yaml.DoubleQuotedStyle
		}
	}
}

// scalarChanges are a scalar's changes: its string form (a number or a
// boolean written as text) or back (text that reads as one, unquoted),
// and its value changed (a number by one either way, a boolean flipped,
// a string by one character).
func scalarChanges(n *yaml.Node, p string) []docEdit {
	var out []docEdit
	tag := n.ShortTag()
	switch tag {
	case "!!int", "!!float", "!!bool":
		out = append(out, docEdit{op: "string", path: p, desc: "string " + p})
	case "!!str":
		if typedText(n.Value) {
			out = append(out, docEdit{op: "typed", path: p, desc: "typed " + p})
		}
	}
	for _, v := range changedValues(tag, n.Value) {
		out = append(out, docEdit{op: "set", path: p, desc: "set " + p + " " + strconv.Quote(v), setTo: v})
	}
	return out
}

// typedText says a string reads as a number or a boolean once unquoted.
func typedText(s string) bool {
	if s == "true" || s == "false" {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// changedValues are the values a scalar is changed to.
func changedValues(tag, v string) []string {
	switch tag {
	case "!!int":
		if i, err := strconv.ParseInt(v, 0, 64); err == nil {
			return []string{strconv.FormatInt(i+1, 10), strconv.FormatInt(i-1, 10)}
		}
	case "!!float":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return []string{strconv.FormatFloat(f+1, 'g', -1, 64), strconv.FormatFloat(f-1, 'g', -1, 64)}
		}
	case "!!bool":
		if v == "true" {
			return []string{"false"}
		}
		return []string{"true"}
	case "!!str":
		return []string{oneCharChanged(v)}
	}
	return nil
}

// oneCharChanged changes a string's last letter or digit by one (z to a,
// 9 to 0), or gives an empty one a character.
func oneCharChanged(s string) string {
	r := []rune(s)
	for i := len(r) - 1; i >= 0; i-- {
		switch c := r[i]; {
		case c >= '0' && c <= '8', c >= 'a' && c <= 'y', c >= 'A' && c <= 'Y':
			r[i]++
			return string(r)
		case c == '9':
			r[i] = '0'
			return string(r)
		case c == 'z', c == 'Z':
			r[i] -= 25
			return string(r)
		}
	}
	return s + "x"
}

// yamlRestyles are the file in four styles of the same meaning: every
// collection in flow style, every mapping's keys in reverse order, every
// string double-quoted, and without comments.
func yamlRestyles(body []byte) ([]docEdit, error) {
	docs, err := parseYAML(body)
	if err != nil {
		return nil, err
	}
	styles := []struct {
		name string
		fn   func(*yaml.Node)
	}{
		{"flow", func(n *yaml.Node) {
			if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
				n.Style = yaml.FlowStyle
			}
		}},
		{"reorder", func(n *yaml.Node) {
			if n.Kind == yaml.MappingNode {
				var pairs [][2]*yaml.Node
				for i := 0; i+1 < len(n.Content); i += 2 {
					pairs = append(pairs, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
				}
				n.Content = n.Content[:0]
				for i := len(pairs) - 1; i >= 0; i-- {
					n.Content = append(n.Content, pairs[i][0], pairs[i][1])
				}
			}
		}},
		{"quote", func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
				n.Style = yaml.DoubleQuotedStyle
			}
		}},
		{"plain", func(n *yaml.Node) { n.HeadComment, n.LineComment, n.FootComment = "", "", "" }},
	}
	var out []docEdit
	for _, st := range styles {
		mutated := make([]*yaml.Node, len(docs))
		for i, d := range docs {
			mutated[i] = copyNode(d)
			visit(mutated[i], st.fn)
		}
		b, err := encodeYAML(mutated)
		if err != nil {
			return nil, err
		}
		out = append(out, docEdit{op: st.name, desc: st.name, body: b})
	}
	return out, nil
}

func visit(n *yaml.Node, fn func(*yaml.Node)) {
	fn(n)
	for _, c := range n.Content {
		visit(c, fn)
	}
}

// ---------------------------------------------------------------- TOML

// tomlSite is a place in a TOML document: the keys and indices from the
// top down to it.
type tomlSite struct {
	at   []any // string keys and int indices
	path string
	leaf any // the scalar, when it is one
}

func tomlEdits(body []byte) ([]docEdit, error) {
	var doc map[string]any
	if err := toml.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	var sites []tomlSite
	walkTOML(doc, nil, "", &sites)
	var out []docEdit
	for _, s := range sites {
		changes := []docEdit{{op: "delete", path: s.path, desc: "delete " + s.path}}
		changes = append(changes, tomlScalarChanges(s)...)
		for _, c := range changes {
			mutated := copyTOML(doc).(map[string]any)
			applyTOML(mutated, s, c)
			b, err := toml.Marshal(mutated)
			if err != nil {
				continue
			}
			c.body = b
			out = append(out, c)
		}
	}
	return out, nil
}

func walkTOML(v any, at []any, p string, sites *[]tomlSite) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			next := append(append([]any(nil), at...), k)
			cp := tomlJoin(p, k)
			*sites = append(*sites, tomlSite{at: next, path: cp, leaf: scalarOf(t[k])})
			walkTOML(t[k], next, cp, sites)
		}
	case []any:
		for i, e := range t {
			next := append(append([]any(nil), at...), i)
			cp := fmt.Sprintf("%s[%d]", p, i)
			*sites = append(*sites, tomlSite{at: next, path: cp, leaf: scalarOf(e)})
			walkTOML(e, next, cp, sites)
		}
	}
}

func scalarOf(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		return nil
	}
	return v
}

// tomlJoin extends a TOML key path as TOML writes it: a key that is not
// bare in double quotes.
func tomlJoin(p, k string) string {
	bare := k != ""
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			bare = false
		}
	}
	if !bare {
		k = strconv.Quote(k)
	}
	if p == "" {
		return k
	}
	return p + "." + k
}

func copyTOML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, e := range t {
			c[k] = copyTOML(e)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = copyTOML(e)
		}
		return c
	}
	return v
}

func tomlScalarChanges(s tomlSite) []docEdit {
	var out []docEdit
	add := func(op, desc string, v any) {
		out = append(out, docEdit{op: op, path: s.path, desc: desc, value: v})
	}
	switch v := s.leaf.(type) {
	case int64:
		add("string", "string "+s.path, strconv.FormatInt(v, 10))
		add("set", fmt.Sprintf("set %s %d", s.path, v+1), v+1)
		add("set", fmt.Sprintf("set %s %d", s.path, v-1), v-1)
	case float64:
		add("string", "string "+s.path, strconv.FormatFloat(v, 'g', -1, 64))
		add("set", fmt.Sprintf("set %s %g", s.path, v+1), v+1)
	case bool:
		add("string", "string "+s.path, strconv.FormatBool(v))
		add("set", fmt.Sprintf("set %s %t", s.path, !v), !v)
	case string:
		if b, err := strconv.ParseBool(v); err == nil {
			add("typed", "typed "+s.path, b)
		} else if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			add("typed", "typed "+s.path, i)
		}
		c := oneCharChanged(v)
		add("set", "set "+s.path+" "+strconv.Quote(c), c)
	}
	return out
}

func applyTOML(doc map[string]any, s tomlSite, c docEdit) {
	var parent any = doc
	for _, k := range s.at[:len(s.at)-1] {
		switch key := k.(type) {
		case string:
			parent = parent.(map[string]any)[key]
		case int:
			parent = parent.([]any)[key]
		}
	}
	last := s.at[len(s.at)-1]
	switch p := parent.(type) {
	case map[string]any:
		if c.op == "delete" {
			delete(p, last.(string))
		} else {
			p[last.(string)] = c.value
		}
	case []any:
		// A list is changed in place; a deletion rebuilds the parent.
		i := last.(int)
		if c.op != "delete" {
			p[i] = c.value
			return
		}
		shorter := append(append([]any(nil), p[:i]...), p[i+1:]...)
		setTOML(doc, s.at[:len(s.at)-1], shorter)
	}
}

// setTOML puts v at the place at names.
func setTOML(doc map[string]any, at []any, v any) {
	var parent any = doc
	for _, k := range at[:len(at)-1] {
		switch key := k.(type) {
		case string:
			parent = parent.(map[string]any)[key]
		case int:
			parent = parent.([]any)[key]
		}
	}
	switch p := parent.(type) {
	case map[string]any:
		p[at[len(at)-1].(string)] = v
	case []any:
		p[at[len(at)-1].(int)] = v
	}
}

// tomlRestyles are the file written again by a TOML encoder: its own
// order, quoting and layout, and with every table inline.
func tomlRestyles(body []byte) ([]docEdit, error) {
	var doc map[string]any
	if err := toml.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	plain, err := toml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.SetTablesInline(true)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return []docEdit{{op: "reencode", desc: "reencode", body: plain}, {op: "inline", desc: "inline", body: b.Bytes()}}, nil
}
