package checks

import (
	"encoding/json"
	"errors"
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

// Line returns the 1-based Line of a field path ("spec.containers[0].image"),
// or of its deepest existing parent, or 0.
func (m *Manifest) Line(path string) int {
	if m == nil || m.Tree == nil || len(m.Tree.Content) == 0 {
		return 0
	}
	return yamlPathLine(m.Tree.Content[0], path)
}

// Where is Result.Where for a field path.
func (m *Manifest) Where(path string) string { return Where(m.Rel, m.Line(path)) }

// yamlPathLine walks a mapping/sequence tree along a dotted path with
// [i] indices and returns the line of the last key it could find.
func yamlPathLine(n *yamlv3.Node, path string) int {
	line := 0
	for _, seg := range SplitFieldPath(path) {
		if n.Kind == yamlv3.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if i, err := strconv.Atoi(seg); err == nil && n.Kind == yamlv3.SequenceNode {
			if i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind != yamlv3.MappingNode {
			return line
		}
		found := false
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == seg {
				line = n.Content[k].Line
				n = n.Content[k+1]
				found = true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
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
	Kind  string // "syntax", "type" (a field of the wrong type), "value" (a bad value, field unknown), "unknown" (unknown fields)
	Field string // field path for type; the first unknown field
	All   []string
	Line  int // 1-based line in the text, 0 when unknown
	Err   string
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
		p := &YAMLProblem{Kind: "syntax", Err: yamlErrText(err)}
		if sm := yamlLineRE().FindStringSubmatch(err.Error()); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
		}
		return p
	}
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		if field := typeErrorField(err); field != "" {
			return &YAMLProblem{Kind: "type", Field: field, Line: lineOf(field), Err: err.Error()}
		}
		return &YAMLProblem{Kind: "value", Err: err.Error()}
	}
	if len(strict) > 0 {
		p := &YAMLProblem{Kind: "unknown"}
		for _, e := range strict {
			field := strictErrorField(e)
			if p.Field == "" {
				p.Field, p.Line = field, lineOf(field)
			}
			p.All = append(p.All, msg("cluster.yaml.unknown_item", "field", field, "line", lineOf(field)))
		}
		return p
	}
	return nil
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

func DecodeManifestInto(in Input, id, rel, apiVersion, kind string, obj any) (*Manifest, Result) {
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
	var tree yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(text), &tree); err == nil {
		m.Tree = &tree
	}
	var tm metav1.TypeMeta
	if prob := DecodeYAMLStrict(text, nil, &tm); prob != nil && prob.Kind == "syntax" && prob.Line <= 0 {
		return nil, Fail(id, in.Msg("cluster.yaml.syntax_noline", "path", p, "err", prob.Err)+YAMLErrHint(prob.Err),
			in.Msg("cluster.yaml.expect_yaml"), in.Msg("cluster.yaml.seen_syntax"), rel)
	} else if prob != nil && prob.Kind == "syntax" {
		return nil, Fail(id, in.Msg("cluster.yaml.syntax", "path", p, "line", prob.Line, "err", prob.Err, "excerpt", LineAt(text, prob.Line)),
			in.Msg("cluster.yaml.expect_yaml"), in.Msg("cluster.yaml.seen_syntax"), Where(rel, prob.Line))
	} else if prob != nil && prob.Kind != "unknown" {
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
	switch prob := DecodeYAMLStrict(text, m.Tree, obj); {
	case prob == nil:
		return m, Pass(id, in.Msg("cluster.yaml.ok", "path", p, "kind", kind))
	case prob.Kind == "type":
		return nil, Fail(id, in.Msg("cluster.yaml.decode", "path", p, "kind", kind, "field", prob.Field, "line", prob.Line, "err", prob.Err),
			want, in.Msg("cluster.yaml.seen_decode", "field", prob.Field), Where(rel, prob.Line))
	case prob.Kind == "unknown":
		return nil, Fail(id, in.Msg("cluster.yaml.unknown", "path", p, "kind", kind, "fields", strings.Join(prob.All, ", ")),
			want, in.Msg("cluster.yaml.seen_unknown", "field", prob.Field), Where(rel, prob.Line))
	default:
		return nil, Fail(id, in.Msg("cluster.yaml.decode_value", "path", p, "kind", kind, "err", prob.Err),
			want, in.Msg("cluster.yaml.seen_value"), rel)
	}
}

// YAMLErrHint explains a YAML error that has no position to point at.
func YAMLErrHint(err string) string {
	if strings.Contains(err, "excessive aliasing") {
		return msg("cluster.yaml.alias_hint")
	}
	return ""
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

// typeErrorField is the field path of a JSON type error, if it has one.
func typeErrorField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		s := te.Error()
		if i := strings.Index(s, "Go struct field "); i >= 0 {
			rest := s[i+len("Go struct field "):]
			if j := strings.Index(rest, " of type"); j >= 0 {
				rest = rest[:j]
			}
			// "PodSpec.spec.containers.resources" -> drop the Go type name.
			if k := strings.IndexByte(rest, '.'); k >= 0 {
				return rest[k+1:]
			}
			return rest
		}
	}
	return ""
}
