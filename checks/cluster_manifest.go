package checks

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifest is a learner's Kubernetes YAML file decoded strictly into the
// real API type, with a node tree kept to point at lines.
type manifest struct {
	rel  string
	text string
	tree *yamlv3.Node // document node; nil when the text is not YAML
}

// line returns the 1-based line of a field path ("spec.containers[0].image"),
// or of its deepest existing parent, or 0.
func (m *manifest) line(path string) int {
	if m == nil || m.tree == nil || len(m.tree.Content) == 0 {
		return 0
	}
	return yamlPathLine(m.tree.Content[0], path)
}

// where is Result.Where for a field path.
func (m *manifest) where(path string) string { return where(m.rel, m.line(path)) }

// yamlPathLine walks a mapping/sequence tree along a dotted path with
// [i] indices and returns the line of the last key it could find.
func yamlPathLine(n *yamlv3.Node, path string) int {
	line := 0
	for _, seg := range splitFieldPath(path) {
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

// splitFieldPath splits "a.b[0].c" into a, b, 0, c. Keys with dots (like
// nvidia.com/gpu) can be written in brackets: limits[nvidia.com/gpu].
func splitFieldPath(p string) []string {
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
	yamlLineRE  = regexp.MustCompile(`line (\d+)`)
	yamlDocSepR = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)
	// "line 9: " before a YAML error, alone or in a list of errors.
	yamlLinePrefixRE = regexp.MustCompile(`(?m)^\s*line \d+: `)
)

// yamlProblem is why a YAML text did not decode into an API type.
type yamlProblem struct {
	kind  string // "syntax", "type" (a field of the wrong type), "value" (a bad value, field unknown), "unknown" (unknown fields)
	field string // field path for type; the first unknown field
	all   []string
	line  int // 1-based line in the text, 0 when unknown
	err   string
}

// decodeYAMLStrict decodes text into obj the way the API server would,
// but refusing unknown and duplicate fields. tree, when not nil, gives
// lines for field paths.
func decodeYAMLStrict(text string, tree *yamlv3.Node, obj any) *yamlProblem {
	lineOf := func(path string) int {
		if tree == nil || len(tree.Content) == 0 {
			return 0
		}
		return yamlPathLine(tree.Content[0], path)
	}
	j, err := yaml.YAMLToJSONStrict([]byte(text))
	if err != nil {
		p := &yamlProblem{kind: "syntax", err: yamlErrText(err)}
		if sm := yamlLineRE.FindStringSubmatch(err.Error()); sm != nil {
			p.line, _ = strconv.Atoi(sm[1])
		}
		return p
	}
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		if field := typeErrorField(err); field != "" {
			return &yamlProblem{kind: "type", field: field, line: lineOf(field), err: err.Error()}
		}
		return &yamlProblem{kind: "value", err: err.Error()}
	}
	if len(strict) > 0 {
		p := &yamlProblem{kind: "unknown"}
		for _, e := range strict {
			field := strictErrorField(e)
			if p.field == "" {
				p.field, p.line = field, lineOf(field)
			}
			p.all = append(p.all, msg("cluster.yaml.unknown_item", "field", field, "line", lineOf(field)))
		}
		return p
	}
	return nil
}

// decodeManifest reads rel and decodes it strictly into a T after checking
// apiVersion and kind. On failure it returns a failed (or file-state)
// result with the given ID, and a nil object and manifest.
func decodeManifest[T any](in Input, id, rel, apiVersion, kind string) (*T, *manifest, Result) {
	obj := new(T)
	m, r := decodeManifestInto(in, id, rel, apiVersion, kind, obj)
	if m == nil {
		return nil, nil, r
	}
	return obj, m, r
}

func decodeManifestInto(in Input, id, rel, apiVersion, kind string, obj any) (*manifest, Result) {
	text, bad := readText(in, id, rel)
	if bad != nil {
		return nil, *bad
	}
	m := &manifest{rel: rel, text: text}
	p := shown(in, rel)
	want := apiVersion + " " + kind
	if n := countYAMLDocs(text); n > 1 {
		return nil, failed(id, msg("cluster.yaml.multi_doc", "path", p, "n", n, "kind", kind), want, msg("cluster.yaml.seen_docs", "n", n), rel)
	}
	var tree yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(text), &tree); err == nil {
		m.tree = &tree
	}
	var tm metav1.TypeMeta
	if prob := decodeYAMLStrict(text, nil, &tm); prob != nil && prob.kind == "syntax" && prob.line <= 0 {
		return nil, failed(id, msg("cluster.yaml.syntax_noline", "path", p, "err", prob.err)+yamlErrHint(prob.err),
			msg("cluster.yaml.expect_yaml"), msg("cluster.yaml.seen_syntax"), rel)
	} else if prob != nil && prob.kind == "syntax" {
		return nil, failed(id, msg("cluster.yaml.syntax", "path", p, "line", prob.line, "err", prob.err, "excerpt", lineAt(text, prob.line)),
			msg("cluster.yaml.expect_yaml"), msg("cluster.yaml.seen_syntax"), where(rel, prob.line))
	} else if prob != nil && prob.kind != "unknown" {
		return nil, failed(id, msg("cluster.yaml.not_object", "path", p, "kind", kind), want, msg("cluster.yaml.seen_not_object"), rel)
	}
	if tm.APIVersion != apiVersion || tm.Kind != kind {
		got := strings.TrimSpace(tm.APIVersion + " " + tm.Kind)
		if got == "" {
			got = msg("cluster.none")
		}
		field := "kind"
		if tm.APIVersion != apiVersion {
			field = "apiVersion"
		}
		return nil, failed(id, msg("cluster.yaml.type", "path", p, "want", want, "got", got, "line", m.line(field)),
			want, got, m.where(field))
	}
	switch prob := decodeYAMLStrict(text, m.tree, obj); {
	case prob == nil:
		return m, passed(id, msg("cluster.yaml.ok", "path", p, "kind", kind))
	case prob.kind == "type":
		return nil, failed(id, msg("cluster.yaml.decode", "path", p, "kind", kind, "field", prob.field, "line", prob.line, "err", prob.err),
			want, msg("cluster.yaml.seen_decode", "field", prob.field), where(rel, prob.line))
	case prob.kind == "unknown":
		return nil, failed(id, msg("cluster.yaml.unknown", "path", p, "kind", kind, "fields", strings.Join(prob.all, ", ")),
			want, msg("cluster.yaml.seen_unknown", "field", prob.field), where(rel, prob.line))
	default:
		return nil, failed(id, msg("cluster.yaml.decode_value", "path", p, "kind", kind, "err", prob.err),
			want, msg("cluster.yaml.seen_value"), rel)
	}
}

// yamlErrHint explains a YAML error that has no position to point at.
func yamlErrHint(err string) string {
	if strings.Contains(err, "excessive aliasing") {
		return msg("cluster.yaml.alias_hint")
	}
	return ""
}

// countYAMLDocs counts documents that hold more than comments.
func countYAMLDocs(text string) int {
	n := 0
	for _, doc := range yamlDocSepR.Split(text, -1) {
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
	s = yamlLinePrefixRE.ReplaceAllString(s, "") // the message names the line already
	return strings.Join(strings.Fields(s), " ")
}

var quotedRE = regexp.MustCompile(`"([^"]*)"`)

// strictErrorField is the field path a strict decoding error names
// (`unknown field "spec.runtimeClass"`).
func strictErrorField(err error) string {
	if sm := quotedRE.FindStringSubmatch(err.Error()); sm != nil {
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
