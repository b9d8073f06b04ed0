package checks

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	yamlv3 "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Manifest is a learner's Kubernetes YAML file decoded strictly into the
// real API type, with a node tree kept to point at lines.
type Manifest struct {
	Rel  string
	Text string
	Tree *yamlv3.Node // document node; nil when the text is not YAML
}

// Line returns the 1-based line of a field path ("spec.containers[0].image"),
// or of its deepest existing parent, or 0.
func (m *Manifest) Line(path string) int {
	if m == nil || m.Tree == nil || len(m.Tree.Content) == 0 {
		return 0
	}
	return yamlPathLine(m.Tree.Content[0], path)
}

// Where is Result.Where for a field path.
func (m *Manifest) Where(path string) string { return Where(m.Rel, m.Line(path)) }

// yamlPathLine is the line of the last key of path that n has.
func yamlPathLine(n *yamlv3.Node, path string) int {
	_, _, line := YAMLWalk(n, SplitFieldPath(path))
	return line
}

// YAMLWalk follows a field path from n (a document node or what it holds)
// through mappings by key and sequences by index, seeing through aliases.
// It returns the node at the end (nil when the path is not all there),
// how many segments it followed, and the line of the last one followed:
// its key's in a mapping, the element's in a sequence (0 for none).
func YAMLWalk(n *yamlv3.Node, segs []string) (end *yamlv3.Node, depth, line int) {
	if n.Kind == yamlv3.DocumentNode {
		if len(n.Content) == 0 {
			return nil, 0, 0
		}
		n = n.Content[0]
	}
	for i, seg := range segs {
		if n.Kind == yamlv3.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next *yamlv3.Node
		nextLine := 0
		if idx, err := strconv.Atoi(seg); err == nil && n.Kind == yamlv3.SequenceNode {
			if idx >= 0 && idx < len(n.Content) {
				next = n.Content[idx]
				nextLine = next.Line
			}
		} else if n.Kind == yamlv3.MappingNode {
			for k := 0; k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == seg {
					next, nextLine = n.Content[k+1], n.Content[k].Line
					break
				}
			}
		}
		if next == nil {
			return nil, i, line
		}
		n, line = next, nextLine
	}
	return n, len(segs), line
}

// SplitFieldPath splits "a.b[0].c" into a, b, 0, c. Keys with dots (like
// nvidia.com/gpu) can be written in brackets: limits[nvidia.com/gpu].
func SplitFieldPath(p string) []string {
	var out []string
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return append(out, p[1:])
			}
			out = append(out, p[1:end])
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				return append(out, p)
			}
			out = append(out, p[:end])
			p = p[end:]
		}
	}
	return out
}

var (
	yamlLineRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })
	yamlDocSepR = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`) })
	// "line 9: " before a YAML error, alone or in a list of errors.
	yamlLinePrefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*line \d+: `) })
)

// YAMLProblem is why a YAML text did not decode into an API type.
type YAMLProblem struct {
	Kind  string    // "syntax", "type" (a field of the wrong type), "value" (a bad value), "unknown" (unknown fields), "schema" (a custom resource's schema refuses a value: Want says which rule)
	Field string    // field path for type and value (with indices when the tree placed it); the first unknown field
	All   []FieldAt // unknown: every unknown field, with its line
	Line  int       // 1-based line in the text, 0 when unknown
	Got   string    // type, value: the shape found (map, list, string, number, bool, null)
	Want  string    // type, value: the shape wanted (map, list, string, integer, number, bool, quantity)
	Value string    // value: the scalar that did not parse; schema: the value refused
	Limit string    // schema: the bound, pattern or allowed values the schema sets
	Err   string    // the decoder's own words: shown only as what labmate observed
}

// DecodeYAMLStrict decodes text into obj the way the API server would,
// but refusing unknown and duplicate fields. tree, when not nil, gives
// lines for field paths.
func DecodeYAMLStrict(text string, tree *yamlv3.Node, obj any) *YAMLProblem {
	lineOf := func(path string) int {
		if tree == nil || len(tree.Content) == 0 {
			return 0
		}
		return yamlPathLine(tree.Content[0], path)
	}
	j, err := yaml.YAMLToJSONStrict([]byte(text))
	if err != nil {
		return syntaxProblem(err)
	}
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		p := &YAMLProblem{Kind: "value", Err: err.Error()}
		explainDecode(p, j, tree, obj)
		if p.Line == 0 && p.Field != "" {
			p.Line = lineOf(p.Field)
		}
		return p
	}
	if len(strict) > 0 {
		fields := make([]string, len(strict))
		for i, e := range strict {
			fields[i] = strictErrorField(e)
		}
		return UnknownFields(tree, fields)
	}
	return nil
}

// UnknownFields is the problem of fields (paths) the type does not have,
// each with its line in tree when tree is not nil.
func UnknownFields(tree *yamlv3.Node, fields []string) *YAMLProblem {
	p := &YAMLProblem{Kind: "unknown"}
	for _, field := range fields {
		line := 0
		if tree != nil && len(tree.Content) > 0 {
			line = yamlPathLine(tree.Content[0], field)
		}
		if p.Field == "" {
			p.Field, p.Line = field, line
		}
		p.All = append(p.All, FieldAt{Field: field, Line: line})
	}
	return p
}

// FieldAt is a field path and its line (0 when unknown).
type FieldAt struct {
	Field string
	Line  int
}

// UnknownWords words each unknown field with its line, in the lab's
// words.
func (p *YAMLProblem) UnknownWords(in Input) string {
	words := make([]string, len(p.All))
	for i, f := range p.All {
		words[i] = in.Msg("cluster.yaml.unknown_item", "field", f.Field, "line", f.Line)
	}
	return strings.Join(words, ", ")
}

// syntaxProblem is a YAML parser's error as a problem, with its line when
// the parser named one.
func syntaxProblem(err error) *YAMLProblem {
	p := &YAMLProblem{Kind: "syntax", Err: yamlErrText(err)}
	if sm := yamlLineRE().FindStringSubmatch(err.Error()); sm != nil {
		p.Line, _ = strconv.Atoi(sm[1])
	}
	return p
}

// ParseYAML parses a learner's YAML file into a node tree (a document
// node), refusing what the API server's decoder refuses (duplicate keys
// included). When the text is not YAML it returns the failed result
// instead: with the line and its text when the parser named one, else the
// parser's words and, for an alias bomb, what to do.
func ParseYAML(in Input, id, rel, text string) (*yamlv3.Node, *Result) {
	var tree yamlv3.Node
	err := yamlv3.Unmarshal([]byte(text), &tree)
	if _, serr := yaml.YAMLToJSONStrict([]byte(text)); serr != nil {
		err = serr // the decoder manifests go through: its words, as before
	}
	if err == nil {
		return &tree, nil
	}
	p, path := syntaxProblem(err), Shown(in, rel)
	var r Result
	if p.Line <= 0 {
		r = Fail(id, in.Msg("cluster.yaml.syntax_noline", "path", path, "why", p.Why(in, "")),
			in.Msg("cluster.yaml.expect_yaml"), p.Err, rel)
	} else {
		line := LineAt(text, p.Line)
		r = Fail(id, in.Msg("cluster.yaml.syntax", "path", path, "line", p.Line, "why", p.Why(in, line), "excerpt", line),
			in.Msg("cluster.yaml.expect_yaml"), p.Err, Where(rel, p.Line))
	}
	return nil, &r
}

// DecodeManifest reads rel and decodes it strictly into a T after checking
// apiVersion and kind. On failure it returns a failed (or file-state)
// result with the given ID, and a nil object and manifest.
func DecodeManifest[T any](in Input, id, rel, apiVersion, kind string) (*T, *Manifest, Result) {
	obj := new(T)
	m, r := DecodeManifestInto(in, id, rel, apiVersion, kind, obj)
	if m == nil {
		return nil, nil, r
	}
	return obj, m, r
}

// DecodeManifestInto is DecodeManifest into obj, a typed API object.
func DecodeManifestInto(in Input, id, rel, apiVersion, kind string, obj any) (*Manifest, Result) {
	return DecodeManifestWith(in, id, rel, apiVersion, kind, func(text string, tree *yamlv3.Node) *YAMLProblem {
		return DecodeYAMLStrict(text, tree, obj)
	})
}

// DecodeManifestWith is DecodeManifest with decode reading the text (one
// YAML document of the right apiVersion and kind, tree its nodes) the way
// the API server reads the kind: a custom resource through its CRD's
// schema, for one.
func DecodeManifestWith(in Input, id, rel, apiVersion, kind string, decode func(text string, tree *yamlv3.Node) *YAMLProblem) (*Manifest, Result) {
	text, bad := ReadText(in, id, rel)
	if bad != nil {
		return nil, *bad
	}
	m := &Manifest{Rel: rel, Text: text}
	p := Shown(in, rel)
	want := apiVersion + " " + kind
	if n := countYAMLDocs(text); n > 1 {
		return nil, Fail(id, in.Msg("cluster.yaml.multi_doc", "path", p, "n", n, "kind", kind), want, in.Msg("cluster.yaml.seen_docs", "n", n), rel)
	}
	tree, bad := ParseYAML(in, id, rel, text)
	if bad != nil {
		return nil, *bad
	}
	m.Tree = tree
	var tm metav1.TypeMeta
	if prob := DecodeYAMLStrict(text, nil, &tm); prob != nil && prob.Kind != "unknown" {
		return nil, Fail(id, in.Msg("cluster.yaml.not_object", "path", p, "kind", kind), want, in.Msg("cluster.yaml.seen_not_object"), rel)
	}
	if tm.APIVersion != apiVersion || tm.Kind != kind {
		got := strings.TrimSpace(tm.APIVersion + " " + tm.Kind)
		if got == "" {
			got = in.Msg("cluster.none")
		}
		field := "kind"
		if tm.APIVersion != apiVersion {
			field = "apiVersion"
		}
		return nil, Fail(id, in.Msg("cluster.yaml.type", "path", p, "want", want, "got", got, "line", m.Line(field)),
			want, got, m.Where(field))
	}
	switch prob := decode(text, m.Tree); {
	case prob == nil:
		return m, Pass(id, in.Msg("cluster.yaml.ok", "path", p, "kind", kind))
	case prob.Kind == "unknown":
		return nil, Fail(id, in.Msg("cluster.yaml.unknown", "path", p, "kind", kind, "fields", prob.UnknownWords(in)),
			want, in.Msg("cluster.yaml.seen_unknown", "field", prob.Field), Where(rel, prob.Line))
	default:
		where := rel
		if prob.Line > 0 {
			where = Where(rel, prob.Line)
		}
		return nil, Fail(id, in.Msg("cluster.yaml.decode", "path", p, "kind", kind, "why", prob.Why(in, "")), want, prob.Err, where)
	}
}

// countYAMLDocs counts documents that hold more than comments.
func countYAMLDocs(text string) int {
	n := 0
	for _, doc := range yamlDocSepR().Split(text, -1) {
		for _, l := range strings.Split(doc, "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				n++
				break
			}
		}
	}
	return n
}

// yamlErrText drops the converter's prefixes from a YAML error.
func yamlErrText(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "error converting YAML to JSON: ")
	s = strings.TrimPrefix(s, "yaml: ")
	s = yamlLinePrefixRE().ReplaceAllString(s, "") // the message names the line already
	return strings.Join(strings.Fields(s), " ")
}

var quotedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"]*)"`) })

// strictErrorField is the field path a strict decoding error names
// (`unknown field "spec.runtimeClass"`).
func strictErrorField(err error) string {
	if sm := quotedRE().FindStringSubmatch(err.Error()); sm != nil {
		return sm[1]
	}
	return err.Error()
}
