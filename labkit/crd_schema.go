package labkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
)

// customKinds are the custom resource kinds the lab's crds/ define, one
// for each served version, with the OpenAPI schema the CRD gives it: the
// schema the sandbox's API server validates the lab's custom resources
// against, so the one a manifest check of the kind, or an object check's
// file, reads the learner's manifest through.
type customKinds map[schema.GroupVersionKind]*customKind

// customKind is one served version of a lab's custom resource kind.
type customKind struct {
	schema *spec.Schema // nil when the version gives none
}

// crdSchemas is what labmate reads of a CRD for its schemas.
type crdSchemas struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema *struct {
				OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// readCustomKinds reads the schemas of the lab's crds/*.yaml. A file that
// is not a CRD is readCRDs' to report; a schema that cannot be read, or
// that uses $ref (the API server refuses it), is a problem of its file.
func readCustomKinds(text *content.Lab) (customKinds, []*fault) {
	out := customKinds{}
	var probs []*fault
	names, _ := fs.Glob(text.FS, CRDDir+"/*.yaml")
	for _, name := range names {
		raw, err := text.ReadFile(name)
		var d crdSchemas
		if err != nil || yaml.Unmarshal(raw, &d) != nil {
			continue
		}
		for _, v := range d.Spec.Versions {
			if !v.Served {
				continue
			}
			k := &customKind{}
			if v.Schema != nil && len(v.Schema.OpenAPIV3Schema) > 0 {
				k.schema, err = readSchema(v.Schema.OpenAPIV3Schema)
				if err != nil {
					probs = append(probs, faultAt(path.Join(text.Where, name), content.Span{},
						"labkit.bad_schema", "file", name, "version", v.Name, "err", err))
					continue
				}
			}
			out[schema.GroupVersionKind{Group: d.Spec.Group, Version: v.Name, Kind: d.Spec.Names.Kind}] = k
		}
	}
	return out, probs
}

func readSchema(raw []byte) (*spec.Schema, error) {
	if bytes.Contains(raw, []byte(`"$ref"`)) {
		return nil, errors.New(msgf("labkit.schema_ref"))
	}
	s := &spec.Schema{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// decode reads text, one YAML document of the kind, as the API server
// reads a custom resource: numbers as int64 or float64, its metadata an
// ObjectMeta, a field the schema does not declare refused (the server
// would prune it silently), and the rest validated against the schema.
func (k *customKind) decode(text string, tree *yamlv3.Node) (map[string]any, *checks.YAMLProblem) {
	j, err := yaml.YAMLToJSONStrict([]byte(text))
	if err != nil {
		return nil, &checks.YAMLProblem{Kind: "syntax", Err: err.Error()}
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return nil, &checks.YAMLProblem{Kind: "value", Err: err.Error()}
	}
	if md, ok := obj["metadata"]; ok {
		raw, _ := json.Marshal(md)
		strict, err := kjson.UnmarshalStrict(raw, &metav1.ObjectMeta{})
		if err != nil {
			return nil, &checks.YAMLProblem{Kind: "value", Field: "metadata", Err: err.Error()}
		}
		if len(strict) > 0 {
			fields := make([]string, len(strict))
			for i, e := range strict {
				fields[i] = "metadata." + quoted(e.Error())
			}
			return nil, checks.UnknownFields(tree, fields)
		}
	}
	if k.schema == nil {
		return obj, nil
	}
	if unknown := unknownFields(obj, k.schema, "", true); len(unknown) > 0 {
		return nil, checks.UnknownFields(tree, unknown)
	}
	res := validate.NewSchemaValidator(k.schema, nil, "", strfmt.Default).Validate(obj)
	if res == nil || res.IsValid() {
		return obj, nil
	}
	return nil, schemaProblem(res.Errors[0], obj, k.schema, tree)
}

// quoted is the first quoted text of s (the field of a strict error).
func quoted(s string) string {
	if _, rest, ok := strings.Cut(s, `"`); ok {
		if q, _, ok := strings.Cut(rest, `"`); ok {
			return q
		}
	}
	return s
}

// unknownFields are the paths of the fields of v that s does not declare
// and does not keep (x-kubernetes-preserve-unknown-fields): what the API
// server prunes. At the root (and in an embedded resource) apiVersion,
// kind and metadata are the server's own.
func unknownFields(v any, s *spec.Schema, at string, root bool) []string {
	var out []string
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	preserve, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields")
	embedded, _ := s.Extensions.GetBool("x-kubernetes-embedded-resource")
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for key := range v {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			if (root || embedded) && (key == "apiVersion" || key == "kind" || key == "metadata") {
				continue
			}
			if ps, ok := s.Properties[key]; ok {
				out = append(out, unknownFields(v[key], &ps, join(key), false)...)
				continue
			}
			switch ap := s.AdditionalProperties; {
			case ap != nil && ap.Schema != nil:
				out = append(out, unknownFields(v[key], ap.Schema, join(key), false)...)
			case ap != nil && ap.Allows, preserve:
			default:
				out = append(out, join(key))
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, item := range v {
				out = append(out, unknownFields(item, s.Items.Schema, join(strconv.Itoa(i)), false)...)
			}
		}
	}
	return out
}

// schemaProblem words the validator's first error as a problem: a value
// of the wrong type as the typed decoder's are, the rest by the rule the
// schema sets.
func schemaProblem(err error, obj map[string]any, s *spec.Schema, tree *yamlv3.Node) *checks.YAMLProblem {
	p := &checks.YAMLProblem{Kind: "schema", Want: "other", Err: err.Error()}
	ve, ok := err.(*openapierrors.Validation)
	if !ok {
		return p
	}
	p.Field = strings.TrimPrefix(ve.Name, ".")
	segs := checks.SplitFieldPath(p.Field)
	if tree != nil {
		_, _, p.Line = checks.YAMLWalk(tree, segs)
	}
	val, found := valueAt(obj, segs)
	if found {
		p.Value = shortJSON(val)
	}
	fs := schemaAt(s, segs) // the field's schema
	if fs == nil {
		fs = &spec.Schema{}
	}
	bound := func(rule string, limit string) {
		if limit != "" {
			p.Want, p.Limit = rule, limit
		}
	}
	switch ve.Code() {
	case openapierrors.InvalidTypeCode:
		p.Kind, p.Got, p.Want = "type", shapeOf(val), "value"
		if len(fs.Type) == 1 {
			p.Want = schemaShape(fs.Type[0])
		}
	case openapierrors.RequiredFailCode:
		p.Want = "required"
	case openapierrors.EnumFailCode:
		var vals []string
		for _, v := range ve.Values {
			vals = append(vals, shortJSON(v))
		}
		p.Want, p.Limit = "enum", strings.Join(vals, ", ")
	case openapierrors.PatternFailCode:
		bound("pattern", fs.Pattern)
	case openapierrors.MinFailCode:
		bound("min", number(fs.Minimum))
	case openapierrors.MaxFailCode:
		bound("max", number(fs.Maximum))
	case openapierrors.TooLongFailCode:
		bound("length", count(fs.MaxLength))
	case openapierrors.TooShortFailCode:
		bound("length", count(fs.MinLength))
	case openapierrors.MaxItemsFailCode:
		bound("items", count(fs.MaxItems))
	case openapierrors.MinItemsFailCode:
		bound("items", count(fs.MinItems))
	}
	if p.Want == "required" && p.Line == 0 && tree != nil {
		_, _, p.Line = checks.YAMLWalk(tree, segs[:max(len(segs)-1, 0)])
	}
	return p
}

// number is a schema's numeric bound as written, "" for none.
func number(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// count is a schema's length or item bound, "" for none.
func count(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}

// valueAt is the value at a field path of obj.
func valueAt(obj any, segs []string) (any, bool) {
	v := obj
	for _, seg := range segs {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// schemaAt is the schema of the field at a path, or nil.
func schemaAt(s *spec.Schema, segs []string) *spec.Schema {
	for _, seg := range segs {
		if s == nil {
			return nil
		}
		if ps, ok := s.Properties[seg]; ok {
			s = &ps
		} else if _, err := strconv.Atoi(seg); err == nil && s.Items != nil {
			s = s.Items.Schema
		} else if s.AdditionalProperties != nil {
			s = s.AdditionalProperties.Schema
		} else {
			return nil
		}
	}
	return s
}

// shapeOf names a decoded JSON value's shape as the typed decoder's
// problems do.
func shapeOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "map"
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "bool"
	case int64:
		return "integer"
	case float64:
		return "number"
	case nil:
		return "null"
	}
	return "value"
}

// schemaShape names an OpenAPI type as a shape.
func schemaShape(t string) string {
	switch t {
	case "object":
		return "map"
	case "array":
		return "list"
	case "string", "integer", "number":
		return t
	case "boolean":
		return "bool"
	}
	return "value"
}

// shortJSON is a value as JSON, cut to a line.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return string(b)
}
