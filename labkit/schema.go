package labkit

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/labhub/labmate/content"
)

// The JSON Schemas of lab.toml and verify.toml, for an author's editor
// (Taplo, the TOML language server of VS Code's Even Better TOML, reads
// a `#:schema` comment at the top of a file). They are made from the Go
// types labmate decodes the files into, content's and each check type's
// own (checkTypes), with each key's documentation: the field docs of the
// check types (the same that generate AUTHORING.md's reference) and the
// Go comments of content's types. TestSchemasArePublished keeps
// schema/*.json equal to them.

// SchemaID is where the published schemas live in the repository.
const SchemaID = "https://github.com/labhub/labmate/schema/"

// Schemas are the JSON Schemas of lab.toml and verify.toml. comments
// are the Go comments of content's types, keyed as
// jsonschema.Reflector.CommentMap keys them ("<import path>.<Type>" and
// "<import path>.<Type>.<Field>"); nil gives a schema without them.
func Schemas(comments map[string]string) (lab, verify []byte, err error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               "toml",
		RequiredFromJSONSchemaTags: true,
		DoNotReference:             true,
		ExpandedStruct:             true,
		CommentMap:                 comments,
	}
	ls := r.Reflect(&content.Lab{})
	ls.ID = SchemaID + "lab.schema.json"
	ls.Title = "lab.toml"
	ls.Required = []string{"id", "title"}
	step := r.Reflect(&content.Step{})
	step.Version, step.ID = "", ""
	step.Required = []string{"number", "id", "title"}
	step.Properties.Set("checks", &jsonschema.Schema{
		Type:        "array",
		Description: "The step's declarative checks, `[[steps.checks]]`; a step decided by the lab's Go code has none.",
		Items:       checkSchema(r),
	})
	ls.Properties.Set("steps", &jsonschema.Schema{Type: "array", Description: "The lab's steps, in order, `[[steps]]`.", Items: step})

	vs := r.Reflect(&content.Verify{})
	vs.ID = SchemaID + "verify.schema.json"
	vs.Title = "verify.toml"

	if lab, err = json.MarshalIndent(ls, "", "  "); err != nil {
		return nil, nil, err
	}
	if verify, err = json.MarshalIndent(vs, "", "  "); err != nil {
		return nil, nil, err
	}
	return append(lab, '\n'), append(verify, '\n'), nil
}

// checkSchema is a check: the keys of every check, then, for its
// `type`, the keys that type reads and no others.
func checkSchema(r *jsonschema.Reflector) *jsonschema.Schema {
	s := r.Reflect(&content.Check{})
	s.Version, s.ID = "", ""
	s.Required = []string{"id", "type"}
	document(s, commonFields)
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
		document(fs, kind.Fields)
		if rs, ok := fs.Properties.Get("rules"); ok && rs.Items != nil {
			document(rs.Items, ruleFields)
		}
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

// document sets the description of each of s's properties that fields
// document.
func document(s *jsonschema.Schema, fields []Field) {
	for _, f := range fields {
		if p, ok := s.Properties.Get(f.Name); ok {
			p.Description = f.Doc
		}
	}
}
