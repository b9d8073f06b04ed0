package labkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/labhub/labmate/content"
)

// The JSON Schemas of lab.toml and verify.toml, for an author's editor
// (Taplo, the TOML language server of VS Code's Even Better TOML, reads
// a `#:schema` comment at the top of a file and shows a key's
// `description` on hover, as markdown). They are made from the Go types
// labmate decodes the files into, content's and each check type's own
// (checkTypes); each key's description is the Korean of
// content/schema.toml, keyed by the key's TOML path, for an author who
// writes the lab in Korean. A key without one, or one schema.toml
// names that the schema does not have, is an error: a new field cannot
// ship undocumented. (The check types' English field docs stay what
// AUTHORING.md's reference renders.) TestSchemasArePublished keeps
// schema/*.json equal to them.

// SchemaID is where the published schemas live in the repository.
const SchemaID = "https://github.com/labhub/labmate/schema/"

// Schemas are the JSON Schemas of lab.toml and verify.toml, described
// by content/schema.toml.
func Schemas() (lab, verify []byte, err error) {
	var d schemaDocs
	if d.lab, err = content.SchemaText(content.SchemaLab); err != nil {
		return nil, nil, err
	}
	if d.verify, err = content.SchemaText(content.SchemaVerify); err != nil {
		return nil, nil, err
	}
	if d.types, err = content.SchemaText(content.SchemaCheckTypes); err != nil {
		return nil, nil, err
	}
	return schemas(d)
}

// schemaDocs are the descriptions of lab.toml's and verify.toml's keys
// by TOML path, and of each check type by name.
type schemaDocs struct {
	lab, verify, types map[string]string
}

func schemas(d schemaDocs) (lab, verify []byte, err error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               "toml",
		RequiredFromJSONSchemaTags: true,
		DoNotReference:             true,
		ExpandedStruct:             true,
	}
	ls := r.Reflect(&content.Lab{})
	ls.ID = SchemaID + "lab.schema.json"
	ls.Title = "lab.toml"
	ls.Required = []string{"id", "title"}
	step := r.Reflect(&content.Step{})
	step.Version, step.ID = "", ""
	step.Required = []string{"number", "id", "title"}
	step.Properties.Set("checks", &jsonschema.Schema{Type: "array", Items: checkSchema(r)})
	ls.Properties.Set("steps", &jsonschema.Schema{Type: "array", Items: step})

	vs := r.Reflect(&content.Verify{})
	vs.ID = SchemaID + "verify.schema.json"
	vs.Title = "verify.toml"

	var bad []string
	for _, f := range []struct {
		name string
		s    *jsonschema.Schema
		docs map[string]string
	}{{"lab.toml", ls, d.lab}, {"verify.toml", vs, d.verify}} {
		missing, unknown := describe(f.s, f.docs)
		for _, k := range missing {
			bad = append(bad, fmt.Sprintf("%s: the key %s has no description in content/schema.toml", f.name, k))
		}
		for _, k := range unknown {
			bad = append(bad, fmt.Sprintf("content/schema.toml describes %s of %s, which it does not have", k, f.name))
		}
	}
	missing, unknown := describeTypes(ls, d.types)
	for _, k := range missing {
		bad = append(bad, fmt.Sprintf("the check type %q has no description in content/schema.toml [check_types]", k))
	}
	for _, k := range unknown {
		bad = append(bad, fmt.Sprintf("content/schema.toml [check_types] describes %q, which is no check type", k))
	}
	if len(bad) > 0 {
		return nil, nil, errors.New(strings.Join(bad, "\n"))
	}

	if lab, err = json.MarshalIndent(ls, "", "  "); err != nil {
		return nil, nil, err
	}
	if verify, err = json.MarshalIndent(vs, "", "  "); err != nil {
		return nil, nil, err
	}
	return append(lab, '\n'), append(verify, '\n'), nil
}

// describe sets the description of every key of s, at any depth, from
// docs (keyed by TOML path: "steps.checks.path"), and returns the keys
// docs does not describe and the keys of docs s does not have, sorted.
// A map's values (`[cluster.names]`) have no keys of their own to
// describe; a table of them does.
func describe(s *jsonschema.Schema, docs map[string]string) (missing, unknown []string) {
	used := map[string]bool{}
	var walk func(s *jsonschema.Schema, prefix string)
	walk = func(s *jsonschema.Schema, prefix string) {
		if s == nil || s.Properties == nil {
			return
		}
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			key := prefix + p.Key
			if doc, ok := docs[key]; ok {
				p.Value.Description = doc
				used[key] = true
			} else {
				missing = append(missing, key)
			}
			walk(p.Value, key+".")
			walk(p.Value.Items, key+".")
		}
	}
	walk(s, "")
	for k := range docs {
		if !used[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(unknown)
	return missing, unknown
}

// describeTypes gives a check's `type` the description of each of its
// values, in Taplo's `x-taplo.docs.enumValues` (shown on hovering the
// value: `type = "manifest"`), and returns the types docs does not
// describe and the names of docs that are no type.
func describeTypes(lab *jsonschema.Schema, docs map[string]string) (missing, unknown []string) {
	steps, _ := lab.Properties.Get("steps")
	checks, _ := steps.Items.Properties.Get("checks")
	typ, _ := checks.Items.Properties.Get("type")
	var values []string
	for _, t := range checkTypes {
		name := t.Kind().Type
		doc, ok := docs[name]
		if !ok {
			missing = append(missing, name)
		}
		values = append(values, doc)
	}
	for k := range docs {
		if !slices.ContainsFunc(checkTypes, func(t checkType) bool { return t.Kind().Type == k }) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	typ.Extras = map[string]any{"x-taplo": map[string]any{"docs": map[string]any{"enumValues": values}}}
	return missing, unknown
}

// checkSchema is a check: the keys of every check, then, for its
// `type`, the keys that type reads and no others.
func checkSchema(r *jsonschema.Reflector) *jsonschema.Schema {
	s := r.Reflect(&content.Check{})
	s.Version, s.ID = "", ""
	s.Required = []string{"id", "type"}
	var names []any
	for _, typ := range checkTypes {
		names = append(names, typ.Kind().Type)
	}
	if t, ok := s.Properties.Get("type"); ok {
		t.Enum = names
	}
	// Every type's keys are offered at once (an editor completes them
	// before `type` is written); the branch of the type written refuses
	// the others.
	for _, typ := range checkTypes {
		kind := typ.Kind()
		fs := r.ReflectFromType(fieldsType(typ))
		then := &jsonschema.Schema{Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			then.Properties.Set(p.Key, &jsonschema.Schema{})
		}
		for p := fs.Properties.Oldest(); p != nil; p = p.Next() {
			then.Properties.Set(p.Key, &jsonschema.Schema{})
			if _, ok := s.Properties.Get(p.Key); !ok {
				s.Properties.Set(p.Key, p.Value)
			}
		}
		for _, f := range kind.Fields {
			if f.Required {
				then.Required = append(then.Required, f.Name)
			}
		}
		is := jsonschema.NewProperties()
		is.Set("type", &jsonschema.Schema{Const: kind.Type})
		s.AllOf = append(s.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: is, Required: []string{"type"}},
			Then: then,
		})
	}
	s.AdditionalProperties = nil
	return s
}

// fieldsType is the struct type typ decodes a check's own keys into.
func fieldsType(typ checkType) reflect.Type {
	c := &compiler{text: &content.Lab{}, spec: content.Check{ID: "x", Type: typ.Kind().Type}, typ: typ}
	typ.Compile(c)
	return reflect.TypeOf(c.decoded).Elem()
}
